// The lobby: builds the new-match form from GET /api/games, creates the match, shows each
// person's link and the invitation to the open seats (with copy buttons) and the spectators'
// link, and lists the matches, with "join" for those with an open seat.
// Links of seats taken in this browser are kept in localStorage (together.js), so "play" stays
// one click away in the list (a seat's token is secret: the server never lists it).

import { $, el } from "../dom.js";
import * as T from "./together.js";
const { api } = T;
let games = [];
let joining = null; // the match whose join form is open

function linkItem(label, url) {
  return el("li", {}, el("div", {}, el("strong", { text: label }), " ", el("a", { href: url, text: "open" })),
            T.linkField(label, url));
}

// --- the form ----------------------------------------------------------------------------
const currentGame = () => games.find((g) => g.id === (document.querySelector("input[name=game]:checked") || {}).value);

function renderGames() {
  const box = $("games");
  box.replaceChildren();
  games.forEach((game, index) => {
    const input = el("input", { type: "radio", name: "game", value: game.id, checked: index === 0 });
    input.addEventListener("change", renderGameForm);
    box.append(el("label", {}, input, game.title || game.id));
  });
  renderGameForm();
}

function renderGameForm() {
  const game = currentGame();
  if (!game) return;
  const players = $("players");
  players.replaceChildren();
  for (let n = game.min_players; n <= game.max_players; n++) {
    players.append(el("option", { value: String(n), text: String(n), selected: n === game.default_players }));
  }
  renderSeats();
  renderOptions(game);
}

function seatParams(bot) {
  // One small input per declared parameter; blank keeps the bot's default.
  return (bot.params || []).map((param) => {
    const kind = String(param.type);
    const input = el("input", {
      type: kind === "int" || kind === "float" ? "number" : "text",
      step: kind === "float" ? "any" : kind === "int" ? "1" : undefined,
      placeholder: param.default === null || param.default === undefined ? "none" : String(param.default),
      "data-param": param.name, "aria-label": `${bot.name} ${param.name}`, class: "param",
    });
    return el("label", { class: "help" }, `${param.name} `, input);
  });
}

function renderSeats() {
  const game = currentGame();
  const count = Number($("players").value);
  const rows = $("seat-rows");
  const before = [...rows.querySelectorAll("select")].map((s) => s.value);
  rows.replaceChildren();
  for (let seat = 0; seat < count; seat++) {
    const select = el("select", { "data-seat": String(seat), "aria-label": `player ${seat + 1}` });
    select.append(el("option", { value: "human", text: "person (gets a link)" }));
    select.append(el("option", { value: "open", text: "open seat (invitation)" }));
    for (const bot of game.bots || []) select.append(el("option", { value: bot.name, text: `bot: ${bot.name}` }));
    // Seat 1 a person, the others the game's first non-random bot: the usual table.
    const fallback = seat === 0 ? "human" : ((game.bots || []).find((b) => b.name !== "random") || { name: "human" }).name;
    select.value = before[seat] && [...select.options].some((o) => o.value === before[seat]) ? before[seat] : fallback;
    const params = el("div", { class: "params field" });
    const help = el("div", { class: "help" });
    const refresh = () => {
      const bot = (game.bots || []).find((b) => b.name === select.value);
      params.replaceChildren(...(bot ? seatParams(bot) : []));
      help.textContent = bot ? bot.help || ""
        : select.value === "open" ? "the first person to join through the lobby or the invitation link"
          : "you hand this player their own link";
    };
    select.addEventListener("change", refresh);
    refresh();
    // A bot's parameters are rarely changed: folded away, one click to open.
    const settings = el("details", { class: "bot-params" }, el("summary", { text: "bot settings" }), params);
    const note = el("div", { class: "params" }, help, settings);
    const syncFold = () => settings.classList.toggle("hidden", !params.childElementCount);
    select.addEventListener("change", syncFold);
    syncFold();
    rows.append(el("div", { class: "seat-row" }, el("span", { text: `player ${seat + 1}` }), select, note));
  }
}

// Options whose values a form can hold; the rest (tile sets, engine parameters) keep their
// defaults here and are set from the command line.
function editable(option) {
  const kind = String(option.type || "");
  return option.allowed || /\b(int|float|str|bool|number|string|integer|boolean)\b/.test(kind)
    && !/dict|list|object|array/.test(kind);
}

function renderOptions(game) {
  const box = $("options");
  box.replaceChildren();
  // Options with a fixed set of values (the tower's named hand, ...) first; after the first
  // few, the rest fold under "more options".
  const shown = (game.options || []).filter(editable);
  shown.sort((a, b) => Number(!a.allowed) - Number(!b.allowed));
  $("options-box").classList.toggle("hidden", shown.length === 0);
  const more = el("details", { class: "options" }, el("summary", { text: "more options" }));
  shown.forEach((option, index) => {
    const target = index < 3 || shown.length <= 4 ? box : more;
    const id = `opt-${option.name}`;
    const kind = String(option.type || "");
    const shownDefault = option.default === null || option.default === undefined ? "default" : String(option.default);
    let input;
    if (option.allowed || /bool/.test(kind)) {
      const values = option.allowed || [true, false];
      input = el("select", { id });
      input.append(el("option", { value: "", text: `default (${shownDefault})` }));
      for (const value of values) input.append(el("option", { value: JSON.stringify(value), text: String(value) }));
    } else if (/int|float|number/.test(kind)) {
      input = el("input", { id, type: "number", step: /float|number/.test(kind) ? "any" : "1", placeholder: shownDefault });
    } else {
      input = el("input", { id, type: "text", placeholder: shownDefault });
    }
    input.dataset.option = option.name;
    input.dataset.kind = kind;
    target.append(el("div", { class: "field" }, el("label", { for: id, text: option.name }), input,
                     el("span", { class: "help", text: option.help || "" })));
  });
  if (more.childElementCount > 1) box.append(more);
}

function formRequest() {
  const game = currentGame();
  const seats = [...$("seat-rows").querySelectorAll(".seat-row")].map((row) => {
    const kind = row.querySelector("select").value;
    if (kind === "human" || kind === "open") return kind;
    const params = [...row.querySelectorAll("input[data-param]")]
      .filter((input) => input.value.trim() !== "")
      .map((input) => `${input.dataset.param}=${input.value.trim()}`);
    return params.length ? `${kind}:${params.join(",")}` : kind;
  });
  const options = {};
  for (const input of $("options").querySelectorAll("[data-option]")) {
    const raw = input.value.trim();
    if (raw === "") continue;
    const kind = input.dataset.kind;
    if (input.tagName === "SELECT") options[input.dataset.option] = JSON.parse(raw);
    else if (/int/.test(kind)) options[input.dataset.option] = parseInt(raw, 10);
    else if (/float|number/.test(kind)) options[input.dataset.option] = parseFloat(raw);
    else options[input.dataset.option] = raw;
  }
  const request = { game: game.id, players: Number($("players").value), seats, options };
  const seed = $("seed").value.trim();
  if (seed !== "") request.seed = parseInt(seed, 10);
  return request;
}

function showCreated(created) {
  $("created-id").textContent = created.match_id;
  const list = $("created-links");
  list.replaceChildren();
  for (const seat of created.seats) {
    if (seat.url) list.append(linkItem(`player ${seat.seat + 1}'s link (only for that player)`, seat.url));
  }
  if (created.invite_url) list.append(linkItem("invitation to the open seats (anyone with it can join)", created.invite_url));
  list.append(linkItem("spectators' link", created.watch_url));
  $("created").classList.remove("hidden");
  $("created").scrollIntoView({ block: "nearest" });
}

async function onCreate(event) {
  event.preventDefault();
  const error = $("create-error");
  error.classList.add("hidden");
  $("create-btn").disabled = true;
  try {
    const created = await api("POST", "/api/matches", formRequest());
    for (const seat of created.seats) if (seat.url) T.rememberSeat(created.match_id, seat.seat, seat.url);
    showCreated(created);
    refreshMatches();
  } catch (e) {
    error.textContent = e.message;
    error.classList.remove("hidden");
  } finally {
    $("create-btn").disabled = false;
  }
}

// --- the match list ----------------------------------------------------------------------
const seatLabel = (s) => s.name || `player ${s.seat + 1}`;

function seatsText(match) {
  return (match.seats || []).map((s) => {
    if (s.open) return `P${s.seat + 1} open`;
    if (s.kind !== "human") return `P${s.seat + 1} ${s.kind}`;
    return `P${s.seat + 1} ${seatLabel(s)}${s.connected ? " (here)" : ""}`;
  }).join(", ");
}

function statusText(match) {
  if (match.status === "over") return `over after ${match.moves} moves`;
  if (match.status === "broken") return `broken: ${match.reason || "no reason given"}`;
  if (match.status === "abandoned") return `abandoned, no winners: ${match.reason || "no reason given"}`;
  if (match.status === "waiting") {
    const open = match.open_seats || 0;
    return open ? `waiting: ${open} open seat${open === 1 ? "" : "s"}` : "waiting for its players";
  }
  const seat = (match.seats || []).find((s) => s.seat === match.to_move);
  const turn = seat ? `, ${seatLabel(seat)} to move` : "";
  return `playing, ${match.moves} moves${turn}`;
}

function actionsFor(match, mine) {
  const id = encodeURIComponent(match.match_id);
  const actions = el("td", { class: "actions" });
  if (match.status === "over") {
    actions.append(el("a", { href: `/replay/${id}`, text: "replay", "data-key": `replay-${match.match_id}` }));
    return actions;
  }
  const live = match.status === "playing" || match.status === "waiting";
  for (const seat of (live && mine[match.match_id]) || []) {
    actions.append(el("a", { href: seat.url, text: `play P${seat.seat + 1}`,
                             "data-key": `play-${match.match_id}-${seat.seat}` }), " ");
  }
  if (live && (match.open_seats || 0) > 0) {
    actions.append(el("button", { type: "button", class: "join", text: "join", "data-key": `join-${match.match_id}`,
                                  "aria-label": `join ${match.title || match.game} ${match.match_id}`,
                                  onclick: () => openJoin(match) }), " ");
  }
  actions.append(el("a", { href: `/play/${id}`, text: "watch", "data-key": `watch-${match.match_id}` }));
  return actions;
}

function renderMatches(matches) {
  const body = $("matches");
  // The list is redrawn every few seconds: keep the keyboard's place in it.
  const focused = document.activeElement && body.contains(document.activeElement)
    ? document.activeElement.getAttribute("data-key") : null;
  body.replaceChildren();
  if (!matches.length) {
    body.append(el("tr", {}, el("td", { colspan: "5", class: "dim", text: "no matches yet" })));
    return;
  }
  const mine = T.mySeats();
  for (const match of matches) {
    body.append(el("tr", { "data-match": match.match_id, "data-status": match.status },
      el("td", { class: "mono", text: match.match_id }),
      el("td", { text: match.title || match.game }),
      el("td", { class: "opt", text: seatsText(match) }),
      el("td", { class: `status-${match.status}`, text: statusText(match) }),
      actionsFor(match, mine)));
  }
  if (focused) {
    const again = [...body.querySelectorAll("[data-key]")].find((node) => node.getAttribute("data-key") === focused);
    if (again) again.focus();
  }
}

// --- joining an open seat ----------------------------------------------------------------
function openJoin(match) {
  joining = match;
  const box = $("join-box");
  const form = T.nameForm({
    id: "join-form", label: "Your name (the others see it)", submit: "Join", cancel: "Cancel",
    onSubmit: async (name) => { location.assign(await T.join(joining.match_id, name)); },
    onCancel: closeJoin,
  });
  $("join-what").textContent = `${match.title || match.game} ${match.match_id}: ${statusText(match)}`;
  $("join-slot").replaceChildren(form.form);
  box.classList.remove("hidden");
  box.scrollIntoView({ block: "nearest" });
  form.input.focus();
  form.input.select();
}

function closeJoin() {
  const key = joining ? `join-${joining.match_id}` : null;
  joining = null;
  $("join-box").classList.add("hidden");
  $("join-slot").replaceChildren();
  const again = key && [...document.querySelectorAll("#matches [data-key]")].find((n) => n.getAttribute("data-key") === key);
  if (again) again.focus();
}

async function refreshMatches() {
  try {
    const answer = await api("GET", "/api/matches");
    renderMatches(Array.isArray(answer) ? answer : answer.matches || []);
    $("list-error").classList.add("hidden");
  } catch (e) {
    $("list-error").textContent = `could not load the matches: ${e.message}`;
    $("list-error").classList.remove("hidden");
  }
}

async function start() {
  $("create").addEventListener("submit", onCreate);
  $("players").addEventListener("change", renderSeats);
  $("join-box").addEventListener("keydown", (event) => { if (event.key === "Escape") closeJoin(); });
  try {
    const answer = await api("GET", "/api/games");
    games = Array.isArray(answer) ? answer : answer.games || [];
    renderGames();
  } catch (e) {
    $("create-error").textContent = `could not load the games: ${e.message}`;
    $("create-error").classList.remove("hidden");
  }
  refreshMatches();
  setInterval(refreshMatches, 3000);
}

start();
