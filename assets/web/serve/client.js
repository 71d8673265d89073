// The play page's common client, for every game: the socket, the header (whose turn, the seats
// by name), the narration, refused moves, reconnecting, the end screen, and being together:
// names, the invitation while seats are open, leaving, the rematch, turn alerts and the chat.
// Names and chat are other people's text: they are only ever set as text, never as HTML.
//
// ---- The renderer interface (game modules are written against exactly this) ------------------
// A game's renderer is the module /static/serve/<game id>.js (its style sheet, if any, is
// <game id>.css beside it). Its default export is a factory:
//
//   export default function (container, ctx) {
//     return {
//       update(stateMsg) { ... },   // every state message (pisa3d/web/messages.py, docs/serve.md):
//                                   // {type: "state", view, to_move, legal, listed, details,
//                                   //  frame_box, events, moves, over, result, seat, game, title,
//                                   //  and on the live page the match's: seats, status, ...}
//       trajectory(msg) { ... },    // optional: the tower's {type: "trajectory", ...} messages,
//                                   // each played before the state it leads to
//       framing() { ... },          // optional: where the camera is going (tests)
//     };
//   }
//
// Two pages call it, with the same messages: this live client, fed by the socket, and the replay
// page (replay.js), fed by a record's positions, one spectator's state message per position.
//   container: an empty element the renderer owns (it draws everything in the game area there).
//   ctx = {seat, sendMove(notation), game, seatLabel(seat), speed()}
//     seat: this page's seat (0-based), or null for a spectator (always null on a replay);
//     sendMove(notation): sends {"type": "move", "move": notation}; pick notations from
//       stateMsg.legal (a person never types notation). A refused move is shown by this client;
//     game: the game id;
//     seatLabel(seat): how the page names a seat: its player's name, else "player N";
//     speed(): how many times real time animations run (1 here; the replay's speed control).
// The factory is called once, after the first state message; update() is then called with that
// message and with every later one (also after a reconnect, when the server resends the state, and
// on a replay for any position in any order, so update() must draw from the message alone).
// Whose turn it is, the events' narration, errors and the end screen are the page's job, not
// the renderer's.
// -----------------------------------------------------------------------------------------------

import { $, el } from "../dom.js";
import fallbackRenderer from "./fallback.js";
import * as T from "./together.js";

const path = location.pathname.split("/").filter(Boolean); // ["play", "<id>"]
const matchId = decodeURIComponent(path[1] || "");
const token = new URLSearchParams(location.search).get("token") || "";
const LOG_KEY = `pisa3d.log.${matchId}.${token ? token.slice(0, 12) : "watch"}`;
const ASKED_KEY = `pisa3d.asked.${matchId}.${token.slice(0, 12)}`;
const ALERTS_KEY = "pisa3d.alerts";
const MAX_LINES = 400;
const MAX_CHAT = 200;
const RETRY_MS = [300, 700, 1500, 3000, 5000];
const LIVE = ["playing", "waiting"];

let socket = null;
let retries = 0;
let retryTimer = null;
let giveUp = false; // a refused token or an unknown match: retrying would not help
let renderer = null;
let loading = false;
let queued = []; // messages that came while the game's script was loading
let last = null; // the latest state message
let pending = false; // a move sent, its answer not yet in
let pendingTimer = null;
let log = loadLog();
let namesDrawn = ""; // the names the narration was last drawn with
let naming = null; // a name sent, its answer not yet in: {name, resolve, reject, timer}
let rematchId = null; // the rematch's match id, from a state or a "rematch" message
let alerts = loadAlerts();
let audio = null; // made on a click or key press: browsers keep sound off until then

const isSeated = () => token !== "" && last !== null && last.seat !== null && last.seat !== undefined;
const mine = (msg) => msg && msg.seat !== null && msg.seat !== undefined;
const myTurn = (msg) => mine(msg) && !msg.over && (msg.status || "playing") === "playing" && msg.to_move === msg.seat;

// --- seats by name -----------------------------------------------------------------------
function nameOf(seat, msg) {
  const state = msg || last;
  if (!state) return null;
  const named = (state.names || [])[seat];
  if (named) return named;
  const info = (state.seats || []).find((s) => s.seat === seat);
  return (info && info.name) || null;
}

function seatLabel(seat, msg) {
  return nameOf(seat, msg) || `player ${seat + 1}`;
}

// The server's events say "player N"; a named seat reads better by its name. Done when drawn,
// so a name given later shows in the earlier lines too.
function withNames(line) {
  return line.replace(/\b([Pp])layer (\d+)\b/g, (text, p, n) => nameOf(Number(n) - 1) || text);
}

// --- narration, kept across reloads ------------------------------------------------------
function loadLog() {
  try {
    const saved = JSON.parse(sessionStorage.getItem(LOG_KEY) || "null");
    if (saved && Array.isArray(saved.lines)) return saved;
  } catch (e) { /* nothing saved */ }
  return { moves: -1, lines: [] };
}

function saveLog() {
  try { sessionStorage.setItem(LOG_KEY, JSON.stringify(log)); } catch (e) { /* storage full or off */ }
}

function drawLog() {
  const list = $("narration");
  list.replaceChildren(...log.lines.map((line) => {
    const item = document.createElement("li");
    item.textContent = withNames(line);
    if (/^(round|game over|contract)/.test(line)) item.className = "mark";
    return item;
  }));
  list.scrollTop = list.scrollHeight;
}

function narrate(msg) {
  const names = JSON.stringify((msg.seats || []).map((s) => nameOf(s.seat, msg)));
  const renamed = names !== namesDrawn;
  namesDrawn = names;
  // On (re)connecting the server resends the last move's events: show them only once.
  if (typeof msg.moves === "number" && msg.moves <= log.moves) {
    if (renamed) drawLog();
    return;
  }
  for (const event of msg.events || []) if (event.text) log.lines.push(event.text);
  if (log.lines.length > MAX_LINES) log.lines = log.lines.slice(-MAX_LINES);
  log.moves = typeof msg.moves === "number" ? msg.moves : log.moves;
  saveLog();
  drawLog();
}

// --- header, seats, banner ---------------------------------------------------------------
function showBanner(text, kind) {
  const banner = $("banner");
  banner.textContent = text;
  banner.className = `banner ${kind}`;
}

function hideBanner() { $("banner").className = "banner hidden"; }

function turnText(msg) {
  if (msg.status === "abandoned") return "abandoned";
  if (msg.over) return "game over";
  if (msg.status === "broken") return `this match is broken${msg.reason ? `: ${msg.reason}` : ""}`;
  if (msg.status === "waiting") return "waiting for players";
  if (msg.to_move === null || msg.to_move === undefined) return "waiting";
  if (msg.to_move === msg.seat) return "your turn";
  return `${seatLabel(msg.to_move, msg)} to move`;
}

function drawWho(msg) {
  const who = $("who");
  if (!mine(msg)) { who.textContent = "you are watching"; return; }
  const named = nameOf(msg.seat, msg);
  const button = el("button", { type: "button", id: "my-name", class: "linkish",
                                title: "change your name", "aria-label": `you are ${seatLabel(msg.seat, msg)}: change your name`,
                                text: named || `player ${msg.seat + 1}`, onclick: () => openNameForm(true) });
  who.replaceChildren("you are ", button);
}

function drawHeader(msg) {
  const title = msg.title || msg.game;
  $("title").textContent = title;
  const focusedName = document.activeElement && document.activeElement.id === "my-name";
  drawWho(msg);
  if (focusedName) $("my-name").focus(); // redrawn under the keyboard: keep its place
  const turn = $("turn");
  const text = turnText(msg);
  turn.textContent = text;
  turn.classList.toggle("mine", myTurn(msg));
  document.title = `${alerts.title && myTurn(msg) ? "\u25CF Your turn \u2014 " : ""}${title} \u00B7 pisa3d`;
  const body = document.body.dataset;
  body.game = msg.game;
  body.moves = String(msg.moves);
  body.toMove = msg.to_move === null || msg.to_move === undefined ? "" : String(msg.to_move);
  body.seat = mine(msg) ? String(msg.seat) : "";
  body.over = msg.over || msg.status === "abandoned" ? "1" : "0";
  body.status = msg.status || "";
}

function seatChip(info, msg) {
  const seat = info.seat;
  const asked = (msg.abandon || []).includes(seat);
  const notes = [];
  if (seat === msg.seat) notes.push("you");
  if (info.open) notes.push("open seat");
  else if (info.kind !== "human") notes.push(`bot: ${info.kind}`);
  if (asked) notes.push("asked to leave");
  const chip = el("li", { class: `tg-seat${msg.to_move === seat && !msg.over ? " to-move" : ""}${seat === msg.seat ? " me" : ""}`,
                          "data-seat": String(seat) },
    // Lit while a page holds the seat, as the last state said (a bot is always there).
    el("span", { class: `tg-dot${info.kind !== "human" || info.connected ? " on" : ""}`, "aria-hidden": "true",
                 title: info.kind !== "human" || info.connected ? "here" : "no page open" }),
    el("span", { class: "tg-name", text: info.open ? `player ${seat + 1}` : seatLabel(seat, msg) }),
    notes.length ? el("span", { class: "tg-note", text: ` (${notes.join(", ")})` }) : null,
    msg.to_move === seat && !msg.over && msg.status === "playing" ? el("span", { class: "tg-turn", text: " to move" }) : null);
  return chip;
}

function drawSeats(msg) {
  $("seat-list").replaceChildren(...(msg.seats || []).map((info) => seatChip(info, msg)));
  const note = $("seed-note");
  note.textContent = msg.seed_note || "";
  note.classList.toggle("hidden", !msg.seed_note);
}

// --- waiting for players and the invitation ----------------------------------------------
function drawWaiting(msg) {
  const box = $("waiting");
  if (msg.status !== "waiting") { box.classList.add("hidden"); return; }
  const missing = (msg.seats || []).filter((s) => s.open || (s.kind === "human" && !s.connected && s.seat !== msg.seat));
  const parts = missing.map((s) => (s.open ? `player ${s.seat + 1} (an open seat: anyone with the invitation)`
    : `${seatLabel(s.seat, msg)} (has not come in yet)`));
  $("waiting-text").textContent = parts.length ? `Waiting for ${parts.join(", ")}.` : "Waiting for the other players.";
  const invite = $("invite");
  const url = msg.invite_url ? T.absolute(msg.invite_url) : "";
  if (!url) invite.replaceChildren();
  else if (invite.dataset.url !== url) {
    invite.replaceChildren(el("p", { class: "help", text: "Send this invitation to whoever should join:" }),
                           T.linkField("invitation link", msg.invite_url));
  }
  invite.dataset.url = url;
  box.classList.remove("hidden");
}

// --- leaving -----------------------------------------------------------------------------
function drawLeave(msg) {
  const box = $("leave-box");
  const asked = msg.abandon || [];
  const others = asked.filter((s) => s !== msg.seat).map((s) => seatLabel(s, msg));
  const iAsked = mine(msg) && asked.includes(msg.seat);
  const live = LIVE.includes(msg.status) && !msg.over;
  let text = "";
  if (live && others.length) text = `${others.join(", ")} asked to leave.`;
  if (live && iAsked) text = `${text} You asked to leave: the match ends once every person has asked.`.trim();
  $("leave-asked").textContent = text;
  $("leave").classList.toggle("hidden", !mine(msg) || iAsked || !live);
  $("stay").classList.toggle("hidden", !iAsked || !live);
  if (!mine(msg) || iAsked || !live) $("leave-confirm").classList.add("hidden");
  box.classList.toggle("hidden", !live || (!mine(msg) && !text));
}

function send(message) {
  if (!socket || socket.readyState !== WebSocket.OPEN) {
    showBanner("not connected: nothing was sent; reconnecting...", "warn");
    return false;
  }
  socket.send(JSON.stringify(message));
  return true;
}

function askLeave() {
  $("leave-confirm").classList.remove("hidden");
  $("leave").classList.add("hidden");
  $("leave-no").focus(); // the safe answer under the keyboard
}

function leaveAnswer(yes) {
  $("leave-confirm").classList.add("hidden");
  if (yes && send({ type: "abandon" })) { $("stay").classList.remove("hidden"); $("stay").focus(); return; }
  $("leave").classList.remove("hidden");
  $("leave").focus();
}

function stay() {
  if (send({ type: "abandon", undo: true })) { $("leave").classList.remove("hidden"); $("stay").classList.add("hidden"); $("leave").focus(); }
}

// --- names -------------------------------------------------------------------------------
function wasAsked() {
  try { return localStorage.getItem(ASKED_KEY) === "1"; } catch (e) { return false; }
}

function markAsked() {
  try { localStorage.setItem(ASKED_KEY, "1"); } catch (e) { /* asked again next time */ }
}

const normal = (name) => (name || "").split(/\s+/).filter(Boolean).join(" ").toLowerCase();

// Answered by the state the server sends everyone once it took the name (the seat's name then
// differs from before, or already was this one), or by an error message.
function sendName(name) {
  return new Promise((resolve, reject) => {
    if (naming) { clearTimeout(naming.timer); naming.reject(new Error("a newer name was sent")); }
    const before = last ? nameOf(last.seat) : null;
    if (!send({ type: "name", name })) { reject(new Error("not connected: try again in a moment")); return; }
    const timer = setTimeout(() => { naming = null; reject(new Error("the server did not answer: try again")); }, 8000);
    naming = { name, before, resolve, reject, timer };
  });
}

function settleName(msg, error) {
  if (!naming) return false;
  const { name, before, resolve, reject, timer } = naming;
  if (error !== undefined) { naming = null; clearTimeout(timer); reject(new Error(error)); return true; }
  const now = nameOf(msg.seat, msg);
  if (now && (now !== before || normal(now) === normal(name))) { naming = null; clearTimeout(timer); resolve(); }
  return false;
}

function openNameForm(byClick) {
  if (!isSeated()) return;
  markAsked();
  const box = $("name-box");
  const current = nameOf(last.seat);
  const form = T.nameForm({
    id: "name-form", label: byClick ? "Your name (the others see it)" : "Your name, so the others know who plays",
    submit: "Save", cancel: byClick || current ? "Cancel" : "Not now",
    onSubmit: async (name) => {
      if (name !== current) await sendName(name);
      T.saveName(name);
      closeNameForm();
    },
    onCancel: closeNameForm,
  });
  if (current) form.input.value = current;
  box.replaceChildren(form.form);
  box.classList.remove("hidden");
  form.input.focus();
  form.input.select();
}

function closeNameForm() {
  const box = $("name-box");
  const hadFocus = box.contains(document.activeElement);
  box.classList.add("hidden");
  box.replaceChildren();
  if (hadFocus && $("my-name")) $("my-name").focus();
}

function maybeAskName(msg) {
  // Asked once per seat link: when the seat has no name yet and the match is not over.
  if (!mine(msg) || !token || !$("name-box").classList.contains("hidden")) return;
  if (nameOf(msg.seat, msg) || wasAsked() || !LIVE.includes(msg.status) || msg.over) return;
  openNameForm(false);
}

// --- the end screen and the rematch ------------------------------------------------------
function drawEnd(msg) {
  const box = $("end");
  const abandoned = msg.status === "abandoned";
  if (!msg.over && !abandoned) { box.classList.add("hidden"); return; }
  const result = msg.result || {};
  const winners = abandoned ? [] : result.winners || [];
  const names = winners.map((w) => (w === msg.seat ? "you" : seatLabel(w, msg)));
  const won = mine(msg) && winners.includes(msg.seat);
  $("end-title").textContent = abandoned ? "Game abandoned" : won ? "Game over: you win" : "Game over";
  $("end-winners").textContent = abandoned ? `No winners: ${msg.reason || "abandoned"}`
    : names.length ? `Winner${names.length > 1 ? "s" : ""}: ${names.join(", ")}` : "";
  // Players by score, best first; the game's own summary (its score sheet) one click away.
  const scores = abandoned ? [] : (result.scores || []).map((score, seat) => ({ seat, score }));
  scores.sort((a, b) => b.score - a.score || a.seat - b.seat);
  $("end-scores").replaceChildren(...scores.map(({ seat, score }) => {
    const who = seat === msg.seat ? `${seatLabel(seat, msg)} (you)` : seatLabel(seat, msg);
    return el("li", { text: `${who}: ${score}${winners.includes(seat) ? " \u2605" : ""}` });
  }));
  $("end-summary").textContent = abandoned ? "" : result.summary || "";
  $("end-details").classList.toggle("hidden", abandoned || !result.summary);
  $("replay-link").href = `/replay/${encodeURIComponent(msg.match_id)}`;
  $("replay-link").classList.toggle("hidden", abandoned);
  // A spectator cannot start a rematch (it takes a seat's token), only watch one.
  $("rematch").classList.toggle("hidden", !mine(msg));
  $("rematch-help").classList.toggle("hidden", mine(msg) || rematchId !== null);
  const appearing = box.classList.contains("hidden");
  box.classList.remove("hidden");
  // The game ends with the page scrolled down (a phone's player taps a move below the picture):
  // back to the top, where the end screen and the game's last picture (the fallen tower) are.
  if (appearing && window.scrollY > 0) window.scrollTo({ top: 0, behavior: "smooth" });
}

function drawRematch() {
  const box = $("rematch-offer");
  const seated = isSeated();
  box.classList.toggle("hidden", rematchId === null);
  $("rematch-join").classList.toggle("hidden", !seated);
  const watch = $("rematch-watch");
  watch.classList.toggle("hidden", seated);
  if (rematchId !== null) watch.href = `/play/${encodeURIComponent(rematchId)}`;
}

function learnRematch(id) {
  if (!id || id === rematchId) return;
  rematchId = id;
  document.body.dataset.rematch = id;
  drawRematch();
  if (last) drawEnd(last);
}

// Every person who asks lands in the same new match, in their own seat of it.
async function joinRematch(event) {
  const button = event.currentTarget;
  if (!isSeated()) {
    if (rematchId !== null) location.assign(`/play/${encodeURIComponent(rematchId)}`);
    return;
  }
  button.disabled = true;
  try {
    const seat = await T.api("POST", `/api/matches/${encodeURIComponent(matchId)}/rematch`, { token });
    T.rememberSeat(seat.match_id, seat.seat, seat.url);
    location.assign(seat.url);
  } catch (e) {
    showBanner(`rematch: ${e.message}`, "error");
    button.disabled = false;
  }
}

// --- turn alerts -------------------------------------------------------------------------
function loadAlerts() {
  const fallback = { title: true, sound: true, notify: false };
  try { return { ...fallback, ...JSON.parse(localStorage.getItem(ALERTS_KEY) || "{}") }; } catch (e) { return fallback; }
}

function saveAlerts() {
  try { localStorage.setItem(ALERTS_KEY, JSON.stringify(alerts)); } catch (e) { /* kept for this page only */ }
}

function unlockAudio() {
  if (!alerts.sound) return;
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!audio && Context) audio = new Context();
  if (audio && audio.state === "suspended") audio.resume().catch(() => {});
}

function beep() {
  if (!audio || audio.state !== "running") return; // no click yet: the browser would stay silent
  const now = audio.currentTime;
  const tone = audio.createOscillator();
  const gain = audio.createGain();
  tone.type = "sine";
  tone.frequency.setValueAtTime(880, now);
  tone.frequency.setValueAtTime(660, now + 0.12);
  gain.gain.setValueAtTime(0.0001, now);
  gain.gain.exponentialRampToValueAtTime(0.25, now + 0.02);
  gain.gain.exponentialRampToValueAtTime(0.0001, now + 0.3);
  tone.connect(gain).connect(audio.destination);
  tone.start(now);
  tone.stop(now + 0.32);
}

function notify(msg) {
  if (!("Notification" in window) || Notification.permission !== "granted") return;
  try {
    const note = new Notification("Your turn", { body: `${msg.title || msg.game}: your move`, tag: `pisa3d-${matchId}` });
    note.onclick = () => { window.focus(); note.close(); };
  } catch (e) { /* some browsers only notify from a service worker */ }
}

function alertTurn(msg) {
  document.body.dataset.alerts = String(Number(document.body.dataset.alerts || "0") + 1);
  if (!document.hidden) return; // the page in view says it already
  if (alerts.sound) beep();
  if (alerts.notify) notify(msg);
}

function drawAlerts() {
  $("alerts").classList.toggle("hidden", !isSeated());
  $("alert-title").checked = alerts.title;
  $("alert-sound").checked = alerts.sound;
  $("alert-notify").checked = alerts.notify && "Notification" in window && Notification.permission === "granted";
}

async function onAlertToggle(event) {
  const key = { "alert-title": "title", "alert-sound": "sound", "alert-notify": "notify" }[event.target.id];
  alerts[key] = event.target.checked;
  saveAlerts(); // at once: the page may be left before the browser answers the permission below
  $("alert-note").textContent = "";
  if (key === "sound" && alerts.sound) unlockAudio();
  if (key === "notify" && alerts.notify) {
    // Asked only now, after the person's own click.
    const answer = "Notification" in window ? await Notification.requestPermission() : "unsupported";
    if (answer !== "granted") {
      alerts.notify = false;
      event.target.checked = false;
      $("alert-note").textContent = answer === "unsupported" ? "this browser has no notifications"
        : "the browser did not allow notifications for this page";
    }
  }
  saveAlerts();
  if (last) drawHeader(last);
}

// --- chat --------------------------------------------------------------------------------
function chatLine(line) {
  const item = el("li", { class: line.seat !== null && line.seat === (last && last.seat) ? "mine" : null, title: line.time || null },
                  el("strong", { text: line.from || "spectator" }), `: ${line.text}`);
  return item;
}

function showChat(lines, replace) {
  const list = $("chat-lines");
  const items = lines.map(chatLine);
  if (replace) list.replaceChildren(...items);
  else list.append(...items);
  while (list.childElementCount > MAX_CHAT) list.firstElementChild.remove();
  list.scrollTop = list.scrollHeight;
}

function sendChat(event) {
  event.preventDefault();
  const input = $("chat-input");
  const text = input.value.trim();
  if (!text) return;
  if (send({ type: "chat", text })) input.value = "";
}

// --- the game's renderer -----------------------------------------------------------------
function makeRenderer(factory, game, seat) {
  const container = $("game");
  container.replaceChildren();
  renderer = factory(container, { seat, sendMove, game, seatLabel: (s) => seatLabel(s), speed: () => 1 });
  for (const msg of queued) deliver(msg);
  queued = [];
}

// The game's renderer module, /static/serve/<game id>.js, and its style sheet, fetched only by
// the pages of that game (only the tower's brings three.js).
function loadRenderer(game, seat) {
  loading = true;
  const name = encodeURIComponent(game);
  document.head.append(el("link", { rel: "stylesheet", href: `/static/serve/${name}.css` }));
  import(`./${name}.js`)
    .then((module) => makeRenderer(module.default, game, seat))
    .catch((e) => {
      console.error(e);
      makeRenderer(fallbackRenderer, game, seat); // the move list still plays
    });
}

function deliver(msg) {
  try {
    if (msg.type === "state") renderer.update(msg);
    else if (msg.type === "trajectory" && renderer.trajectory) renderer.trajectory(msg);
  } catch (e) {
    console.error(e);
    showBanner(`the page could not draw this state: ${e.message}`, "error");
  }
}

// --- moves -------------------------------------------------------------------------------
function sendMove(notation) {
  if (pending) return false;
  if (!socket || socket.readyState !== WebSocket.OPEN) {
    showBanner("not connected: the move was not sent; reconnecting...", "warn");
    return false;
  }
  pending = true;
  document.body.dataset.pending = "1";
  hideBanner(); // a new try: the last complaint is answered
  clearTimeout(pendingTimer);
  pendingTimer = setTimeout(clearPending, 5000); // never lock the page for good
  socket.send(JSON.stringify({ type: "move", move: notation }));
  return true;
}

function clearPending() {
  pending = false;
  document.body.dataset.pending = "0";
  clearTimeout(pendingTimer);
}

// --- the socket --------------------------------------------------------------------------
function onState(msg) {
  const moved = !last || msg.moves !== last.moves;
  if (moved) { clearPending(); hideBanner(); }
  else if (!mine(msg) || msg.to_move !== msg.seat) clearPending();
  const turnCame = last !== null && !myTurn(last) && myTurn(msg);
  last = msg;
  drawHeader(msg);
  drawSeats(msg);
  drawWaiting(msg);
  drawLeave(msg);
  narrate(msg);
  if (msg.rematch) learnRematch(msg.rematch);
  drawEnd(msg);
  drawRematch();
  drawAlerts();
  settleName(msg);
  maybeAskName(msg);
  if (turnCame) alertTurn(msg);
}

function onMessage(event) {
  let msg;
  try { msg = JSON.parse(event.data); } catch (e) { return; }
  if (msg.type === "error") {
    // A refused name is answered in the name form, every other refusal in the banner.
    if (settleName(last, msg.message || "refused")) return;
    clearPending();
    showBanner(msg.message || "refused", "error");
    return;
  }
  if (msg.type === "chat") { showChat([msg], false); return; }
  if (msg.type === "chat_history") { showChat(msg.messages || [], true); return; }
  if (msg.type === "rematch") { learnRematch(msg.match_id); return; }
  if (msg.type === "seats") { // someone's page came or went: only the seats' dots change
    if (last) { last.seats = msg.seats; drawSeats(last); drawWaiting(last); }
    return;
  }
  if (msg.type === "state") onState(msg);
  if (renderer) deliver(msg);
  else {
    queued.push(msg);
    if (!loading && msg.type === "state") loadRenderer(msg.game, msg.seat);
  }
}

function setConn(ok, text) {
  const conn = $("conn");
  conn.textContent = text;
  conn.className = ok ? "ok" : "down";
  document.body.dataset.conn = ok ? "open" : "closed";
}

function scheduleRetry() {
  if (giveUp || retryTimer) return;
  const wait = RETRY_MS[Math.min(retries, RETRY_MS.length - 1)];
  retries += 1;
  setConn(false, `reconnecting in ${(wait / 1000).toFixed(1)} s...`);
  retryTimer = setTimeout(() => { retryTimer = null; connect(); }, wait);
}

function connect() {
  if (!matchId) {
    showBanner("no match in this address: links look like /play/<match id>?token=...", "error");
    return;
  }
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const query = token ? `?token=${encodeURIComponent(token)}` : "";
  const ws = new WebSocket(`${scheme}://${location.host}/ws/${encodeURIComponent(matchId)}${query}`);
  socket = ws;
  setConn(false, "connecting...");
  ws.onopen = () => { retries = 0; setConn(true, "connected"); };
  ws.onmessage = onMessage;
  ws.onclose = (event) => {
    if (socket !== ws) return;
    clearPending();
    if (event.code === 4403 || event.code === 4404) {
      giveUp = true;
      setConn(false, "refused");
      if ($("banner").classList.contains("hidden")) {
        showBanner(event.reason || "the server refused this link (a wrong token or an unknown match)", "error");
      }
      return;
    }
    scheduleRetry();
  };
}

// Coming back to the tab or the network: try at once instead of waiting for the timer.
function retryNow() {
  if (giveUp || (socket && socket.readyState <= WebSocket.OPEN)) return;
  clearTimeout(retryTimer);
  retryTimer = null;
  connect();
}

// For tests and the browser console: the same power as the page's own buttons, no more.
window.PisaPlay = { sendMove };
$("rematch").addEventListener("click", joinRematch);
$("rematch-join").addEventListener("click", joinRematch);
$("leave").addEventListener("click", askLeave);
$("leave-yes").addEventListener("click", () => leaveAnswer(true));
$("leave-no").addEventListener("click", () => leaveAnswer(false));
$("stay").addEventListener("click", stay);
$("name-box").addEventListener("keydown", (event) => { if (event.key === "Escape") closeNameForm(); });
$("chat-form").addEventListener("submit", sendChat);
for (const id of ["alert-title", "alert-sound", "alert-notify"]) $(id).addEventListener("change", onAlertToggle);
document.addEventListener("pointerdown", unlockAudio, true);
document.addEventListener("keydown", unlockAudio, true);
window.addEventListener("online", retryNow);
document.addEventListener("visibilitychange", () => { if (!document.hidden) retryNow(); });
drawLog();
connect();
