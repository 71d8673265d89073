// The invitation page, /join/<match id>: what the match is and who sits there, then a name and
// "Join", which takes the first open seat (POST /api/matches/<id>/join), keeps its link in this
// browser as the lobby does, and goes to it.

import { $, el } from "../dom.js";
import * as T from "./together.js";
const matchId = decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] || "");

function showError(text) {
  $("join-error").textContent = text;
  $("join-error").classList.remove("hidden");
}

function seatLine(seat) {
  const who = seat.open ? "open: the seat you would take" : seat.kind !== "human" ? `bot: ${seat.kind}`
    : `${seat.name || `player ${seat.seat + 1}`}${seat.connected ? " (here)" : ""}`;
  return el("li", {}, el("span", { class: "dim", text: `player ${seat.seat + 1}: ` }), who);
}

function showMine(seats) {
  // Already seated here from this browser: one click back to that seat instead of a second seat.
  if (!seats.length) return;
  const line = $("join-mine");
  line.replaceChildren("You already have a seat here: ",
    ...seats.map((s) => el("a", { href: s.url, text: `play as player ${s.seat + 1}` })));
  line.classList.remove("hidden");
}

async function start() {
  $("join-watch").href = `/play/${encodeURIComponent(matchId)}`;
  let match;
  try {
    match = await T.api("GET", `/api/matches/${encodeURIComponent(matchId)}`);
  } catch (e) {
    $("join-about").textContent = "";
    showError(e.status === 404 ? `there is no match ${matchId} on this server` : e.message);
    return;
  }
  const title = match.title || match.game;
  document.title = `pisa3d: join ${title}`;
  $("join-title").textContent = `Join ${title}`;
  $("join-about").textContent = `match ${match.match_id}, ${match.players} players`;
  $("join-seats").replaceChildren(...(match.seats || []).map(seatLine));
  if (match.seed_note) {
    $("seed-note").textContent = match.seed_note;
    $("seed-note").classList.remove("hidden");
  }
  showMine(T.mySeats()[match.match_id] || []);
  if (!(match.open_seats > 0) || !(match.status === "waiting" || match.status === "playing")) {
    showError(`no seat is open in this match any more (it is ${match.status}): you can still watch it`);
    return;
  }
  const form = T.nameForm({
    id: "join-form", label: "Your name (the others see it)", submit: "Join",
    onSubmit: async (name) => { location.assign(await T.join(match.match_id, name)); },
  });
  $("join-slot").replaceChildren(form.form);
  form.input.focus();
  form.input.select();
}

start();
