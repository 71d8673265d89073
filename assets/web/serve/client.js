// The play page's common client, for every game: the socket, the header (whose turn), the
// narration, refused moves, reconnecting, and the end screen with "rematch".
//
// ---- The renderer interface (game scripts are written against exactly this) -------------------
// A game's renderer is /static/serve/<game id>.js. It registers a factory:
//
//   window.PisaClients = window.PisaClients || {};
//   window.PisaClients[gameId] = function (container, ctx) {
//     return {
//       update(stateMsg) { ... },   // every state message, as the server sent it (docs/serve.md):
//                                   // {type: "state", view, to_move, legal, events, moves, over,
//                                   //  result, status, seat, seats, game, match_id, protocol}
//       trajectory(msg) { ... },    // optional: the tower's {type: "trajectory", ...} messages
//     };
//   };
//
//   container: an empty element the renderer owns (it draws everything in the game area there).
//   ctx = {seat, sendMove(notation), game}
//     seat: this page's seat (0-based), or null for a spectator;
//     sendMove(notation): sends {"type": "move", "move": notation}; pick notations from
//       stateMsg.legal (a person never types notation). A refused move is shown by this client;
//     game: the game id.
// The factory is called once, after the first state message; update() is then called with that
// message and with every later one (also after a reconnect, when the server resends the state, so
// update() must draw from the message alone). Whose turn it is, the events' narration, errors and
// the end screen are this client's job, not the renderer's.
// -----------------------------------------------------------------------------------------------
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const path = location.pathname.split("/").filter(Boolean); // ["play", "<id>"]
  const matchId = decodeURIComponent(path[1] || "");
  const token = new URLSearchParams(location.search).get("token") || "";
  const LOG_KEY = `pisa3d.log.${matchId}.${token ? token.slice(0, 12) : "watch"}`;
  const MAX_LINES = 400;
  const RETRY_MS = [300, 700, 1500, 3000, 5000];

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

  window.PisaClients = window.PisaClients || {};

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
      item.textContent = line;
      if (/^(round|game over|contract)/.test(line)) item.className = "mark";
      return item;
    }));
    list.scrollTop = list.scrollHeight;
  }

  function narrate(msg) {
    // On (re)connecting the server resends the last move's events: show them only once.
    if (typeof msg.moves === "number" && msg.moves <= log.moves) return;
    for (const event of msg.events || []) if (event.text) log.lines.push(event.text);
    if (log.lines.length > MAX_LINES) log.lines = log.lines.slice(-MAX_LINES);
    log.moves = typeof msg.moves === "number" ? msg.moves : log.moves;
    saveLog();
    drawLog();
  }

  // --- header, banner, end screen ----------------------------------------------------------
  function seatName(seat, seats) {
    const info = (seats || []).find((s) => s.seat === seat);
    const kind = info && info.kind !== "human" ? ` (${info.kind})` : "";
    return `player ${seat + 1}${kind}`;
  }

  function showBanner(text, kind) {
    const banner = $("banner");
    banner.textContent = text;
    banner.className = `banner ${kind}`;
  }

  function hideBanner() { $("banner").className = "banner hidden"; }

  function drawHeader(msg) {
    const mySeat = msg.seat;
    $("title").textContent = `${msg.game} ${msg.match_id}`;
    $("who").textContent = mySeat === null || mySeat === undefined ? "you are watching" : `you are player ${mySeat + 1}`;
    const turn = $("turn");
    let text;
    if (msg.over) text = "game over";
    else if (msg.status === "broken") text = "this match is broken";
    else if (msg.to_move === null || msg.to_move === undefined) text = "waiting";
    else if (msg.to_move === mySeat) text = "your turn";
    else text = `${seatName(msg.to_move, msg.seats)} to move`;
    turn.textContent = text;
    turn.classList.toggle("mine", !msg.over && msg.to_move === mySeat && mySeat !== null);
    document.title = `${text === "your turn" ? "(your turn) " : ""}pisa3d ${msg.game}`;
    const body = document.body.dataset;
    body.game = msg.game;
    body.moves = String(msg.moves);
    body.toMove = msg.to_move === null || msg.to_move === undefined ? "" : String(msg.to_move);
    body.seat = mySeat === null || mySeat === undefined ? "" : String(mySeat);
    body.over = msg.over ? "1" : "0";
  }

  function drawEnd(msg) {
    const box = $("end");
    if (!msg.over) { box.classList.add("hidden"); return; }
    const result = msg.result || {};
    const winners = (result.winners || []).map((w) => (w === msg.seat ? "you" : seatName(w, msg.seats)));
    const won = msg.seat !== null && (result.winners || []).includes(msg.seat);
    $("end-title").textContent = won ? "Game over: you win" : "Game over";
    $("end-winners").textContent = winners.length ? `Winner${winners.length > 1 ? "s" : ""}: ${winners.join(", ")}` : "";
    // Players by score, best first; the game's own summary (its score sheet) one click away.
    const scores = (result.scores || []).map((score, seat) => ({ seat, score }));
    scores.sort((a, b) => b.score - a.score || a.seat - b.seat);
    $("end-scores").replaceChildren(...scores.map(({ seat, score }) => {
      const item = document.createElement("li");
      const who = seat === msg.seat ? `${seatName(seat, msg.seats)} (you)` : seatName(seat, msg.seats);
      item.textContent = `${who}: ${score}${(result.winners || []).includes(seat) ? " \u2605" : ""}`;
      return item;
    }));
    $("end-summary").textContent = result.summary || "";
    $("end-details").classList.toggle("hidden", !result.summary);
    $("replay-link").href = `/replay/${encodeURIComponent(msg.match_id)}`;
    box.classList.remove("hidden");
  }

  function setConn(ok, text) {
    const conn = $("conn");
    conn.textContent = text;
    conn.className = ok ? "ok" : "down";
    document.body.dataset.conn = ok ? "open" : "closed";
  }

  // --- rematch -----------------------------------------------------------------------------
  async function rematch() {
    const button = $("rematch");
    button.disabled = true;
    try {
      const answer = await fetch(`/api/matches/${encodeURIComponent(matchId)}/rematch`, { method: "POST" });
      const data = await answer.json().catch(() => ({}));
      if (!answer.ok) throw new Error(data.error || `rematch: HTTP ${answer.status}`);
      const mySeat = last ? last.seat : null;
      const mine = (data.seats || []).find((s) => s.seat === mySeat && s.url);
      const others = (data.seats || []).filter((s) => s.url && s.seat !== mySeat);
      const target = mine ? mine.url : data.watch_url;
      if (!others.length) { location.assign(target); return; }
      // Other people at the table need their new links: show them before leaving.
      const list = $("rematch-links");
      list.replaceChildren();
      for (const seat of others) {
        const item = document.createElement("li");
        const url = new URL(seat.url, location.href).href;
        item.append(`player ${seat.seat + 1}'s new link: `);
        const input = document.createElement("input");
        input.readOnly = true; input.value = url; input.className = "mono"; input.size = 40;
        input.setAttribute("aria-label", `player ${seat.seat + 1}'s new link`);
        const copy = document.createElement("button");
        copy.type = "button"; copy.textContent = "Copy";
        copy.addEventListener("click", () => { input.select(); navigator.clipboard.writeText(url).catch(() => document.execCommand("copy")); });
        item.append(input, " ", copy);
        list.append(item);
      }
      const go = document.createElement("li");
      const link = document.createElement("a");
      link.href = target; link.textContent = mine ? "go to my seat in the rematch" : "watch the rematch";
      go.append(link);
      list.append(go);
      link.focus();
    } catch (e) {
      showBanner(e.message, "error");
      button.disabled = false;
    }
  }

  // --- the game's renderer -----------------------------------------------------------------
  function fallbackRenderer(container, ctx) {
    // For a game without a script of its own: the legal moves as buttons, the view as text.
    const note = document.createElement("p");
    note.className = "help";
    note.textContent = `This game (${ctx.game}) has no table of its own yet: its legal moves are the buttons.`;
    const moves = document.createElement("div");
    moves.className = "fallback-moves";
    const box = document.createElement("details");
    const summary = document.createElement("summary");
    summary.textContent = "the view as data";
    const view = document.createElement("pre");
    view.className = "mono fallback-view";
    box.append(summary, view);
    container.append(note, moves, box);
    return {
      update(msg) {
        moves.replaceChildren(...(msg.legal || []).map((notation) => {
          const button = document.createElement("button");
          button.type = "button"; button.textContent = notation; button.className = "move";
          button.dataset.move = notation;
          button.addEventListener("click", () => ctx.sendMove(notation));
          return button;
        }));
        view.textContent = JSON.stringify(msg.view);
      },
    };
  }

  function makeRenderer(game, seat) {
    const container = $("game");
    container.replaceChildren();
    const factory = window.PisaClients[game] || fallbackRenderer;
    renderer = factory(container, { seat, sendMove, game });
    for (const msg of queued) deliver(msg);
    queued = [];
  }

  function loadRenderer(game, seat) {
    loading = true;
    const script = document.createElement("script");
    script.src = `/static/serve/${encodeURIComponent(game)}.js`;
    script.onload = () => makeRenderer(game, seat);
    script.onerror = () => makeRenderer(game, seat); // falls back to the move list
    document.head.append(script);
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
  function onMessage(event) {
    let msg;
    try { msg = JSON.parse(event.data); } catch (e) { return; }
    if (msg.type === "error") {
      clearPending();
      showBanner(msg.message || "refused", "error");
      return;
    }
    if (msg.type === "state") {
      const moved = !last || msg.moves !== last.moves;
      if (moved) { clearPending(); hideBanner(); }
      else if (msg.seat === null || msg.to_move !== msg.seat) clearPending();
      last = msg;
      drawHeader(msg);
      narrate(msg);
      drawEnd(msg);
    }
    if (renderer) deliver(msg);
    else {
      queued.push(msg);
      if (!loading && msg.type === "state") loadRenderer(msg.game, msg.seat);
    }
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
  $("rematch").addEventListener("click", rematch);
  window.addEventListener("online", retryNow);
  document.addEventListener("visibilitychange", () => { if (!document.hidden) retryNow(); });
  drawLog();
  connect();
})();
