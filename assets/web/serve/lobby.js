// The lobby: builds the new-match form from GET /api/games, creates the match, shows each
// person's link (with a copy button) and the spectators' link, and lists the matches.
// Links of matches made in this browser are kept in localStorage, so "play" stays one click away
// in the list (a seat's token is secret: the server never lists it).
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const MY_SEATS_KEY = "pisa3d.mySeats";
  let games = [];

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children) if (child !== null && child !== undefined) node.append(child);
    return node;
  }

  async function api(method, path, body) {
    const init = { method, headers: {} };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const answer = await fetch(path, init);
    let data = null;
    try { data = await answer.json(); } catch (e) { /* an empty or non-JSON answer */ }
    if (!answer.ok) throw new Error((data && data.error) || `${method} ${path}: HTTP ${answer.status}`);
    return data;
  }

  function mySeats() {
    try { return JSON.parse(localStorage.getItem(MY_SEATS_KEY) || "{}"); } catch (e) { return {}; }
  }

  function rememberSeats(created) {
    const all = mySeats();
    all[created.match_id] = created.seats.filter((s) => s.url).map((s) => ({ seat: s.seat, url: s.url }));
    try { localStorage.setItem(MY_SEATS_KEY, JSON.stringify(all)); } catch (e) { /* private mode */ }
  }

  const absolute = (url) => new URL(url, location.href).href;

  async function copyText(text, button) {
    let ok = false;
    try {
      await navigator.clipboard.writeText(text);
      ok = true;
    } catch (e) {
      // Plain http on a LAN address is not a secure context: no clipboard API there.
      const area = el("textarea", { class: "offscreen" });
      area.value = text;
      document.body.append(area);
      area.select();
      try { ok = document.execCommand("copy"); } catch (e2) { ok = false; }
      area.remove();
    }
    const label = button.textContent;
    button.textContent = ok ? "Copied" : "Select and copy";
    setTimeout(() => { button.textContent = label; }, 1500);
  }

  function linkItem(label, url) {
    const full = absolute(url);
    const input = el("input", { type: "text", readonly: true, class: "url mono", value: full, "aria-label": label,
                                size: 40 });
    input.addEventListener("focus", () => input.select());
    const copy = el("button", { type: "button", text: "Copy", "aria-label": `copy ${label}` });
    copy.addEventListener("click", () => copyText(full, copy));
    return el("li", {}, el("div", {}, el("strong", { text: label }), " ", el("a", { href: url, text: "open" })),
              el("div", { class: "field" }, input, copy));
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
      select.append(el("option", { value: "human", text: "person" }));
      for (const bot of game.bots || []) select.append(el("option", { value: bot.name, text: `bot: ${bot.name}` }));
      // Seat 1 a person, the others the game's first non-random bot: the usual table.
      const fallback = seat === 0 ? "human" : ((game.bots || []).find((b) => b.name !== "random") || { name: "human" }).name;
      select.value = before[seat] && [...select.options].some((o) => o.value === before[seat]) ? before[seat] : fallback;
      const params = el("div", { class: "params field" });
      const help = el("div", { class: "help" });
      const refresh = () => {
        const bot = (game.bots || []).find((b) => b.name === select.value);
        params.replaceChildren(...(bot ? seatParams(bot) : []));
        help.textContent = bot ? bot.help || "" : "gets a link to play from";
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
      if (kind === "human") return "human";
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
      rememberSeats(created);
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
  function seatsText(match) {
    return (match.seats || []).map((s) => `P${s.seat + 1} ${s.kind === "human" ? "person" : s.kind}`
      + (s.kind === "human" && s.connected ? " (here)" : "")).join(", ");
  }

  function statusText(match) {
    if (match.status === "over") return `over after ${match.moves} moves`;
    if (match.status === "broken") return `broken: ${match.reason || "no reason given"}`;
    const turn = match.to_move === null || match.to_move === undefined ? "" : `, player ${match.to_move + 1} to move`;
    return `playing, ${match.moves} moves${turn}`;
  }

  function renderMatches(matches) {
    const body = $("matches");
    body.replaceChildren();
    if (!matches.length) {
      body.append(el("tr", {}, el("td", { colspan: "5", class: "dim", text: "no matches yet" })));
      return;
    }
    const mine = mySeats();
    for (const match of matches) {
      const actions = el("td", { class: "actions" });
      if (match.status === "over") {
        actions.append(el("a", { href: `/replay/${encodeURIComponent(match.match_id)}`, text: "replay" }));
      } else {
        for (const seat of (match.status === "playing" && mine[match.match_id]) || []) {
          actions.append(el("a", { href: seat.url, text: `play P${seat.seat + 1}` }), " ");
        }
        actions.append(el("a", { href: `/play/${encodeURIComponent(match.match_id)}`, text: "watch" }));
      }
      body.append(el("tr", { "data-match": match.match_id },
        el("td", { class: "mono", text: match.match_id }),
        el("td", { text: match.title || match.game }),
        el("td", { class: "opt", text: seatsText(match) }),
        el("td", { class: `status-${match.status}`, text: statusText(match) }),
        actions));
    }
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
})();
