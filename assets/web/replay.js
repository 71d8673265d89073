// The replay page: the live page's renderer for the game (serve/<game>.js), fed by a record's
// positions instead of a socket. For each position (the set-up, then after each move) the page
// carries the state message a spectator of the live match was sent there, and for each simulated
// release its trajectory message (pisa3d/web/messages.py builds both for the server and for this
// page), so the two pages cannot draw a position differently. Around it: the move list, the
// controls, the narration of each move and the result.
//
// Timeline: position -1 is the set-up, position i is the game right after the move at index i.
// People see moves numbered from 1 (as `pisa3d replay show` prints them): move n is position
// n - 1 and move 0 the set-up. Seek with the URL hash (#move=12; #move=12&play also starts
// playing) or window.pisaSeek(12); the #status element then names the move (data-move holds its
// number) and sums up what happened.

import { $, el } from "./dom.js";

const PAUSE_S = 0.8; // between moves while playing, at speed 1

// The offline page's entry (assets/web/loader.js): the replay drawn by the game's renderer module.
export async function start(data, load) {
  startReplay(data, (await load(data.renderer)).default);
}

export function startReplay(data, createRenderer) {
  const numMoves = data.moves.length;
  const speed = () => Number($("speed").value) || 1;
  const seatLabel = (seat) => data.seats[seat] || `player ${seat + 1}`;
  // a record shown with --no-check may have positions up to a move the rules refuse only
  const positionAt = (pos) => data.positions[Math.min(pos + 1, data.positions.length - 1)];

  $("title").textContent = data.title;
  $("meta").textContent = data.meta;
  $("result").textContent = data.result || "";
  const list = $("moves");
  const items = [];
  const addItem = (pos, label) => {
    const li = el("li", {}, el("span", "n", pos < 0 ? "0" : String(pos + 1)), label);
    li.title = pos < 0 ? data.setup : data.moves[pos].summary || label;
    li.addEventListener("click", () => { pause(); seek(pos); });
    list.appendChild(li);
    items.push(li);
  };
  addItem(-1, "set-up");
  data.moves.forEach((m, i) => addItem(i, m.label));

  const stage = $("stage");
  if (data.notice) stage.appendChild(el("div", { class: "notice", id: "replay-notice" }, data.notice));
  const container = el("div", { id: "game" });
  stage.appendChild(container);
  const renderer = createRenderer(container, { seat: null, sendMove: () => false, game: data.game, seatLabel, speed });

  const scrub = $("scrub");
  scrub.max = String(numMoves - 1);
  let position = -1;
  let playing = false;
  let timer = null;

  function statusText(pos) {
    const parts = [pos < 0 ? `set-up (then ${numMoves} moves)` : `move ${pos + 1} of ${numMoves}`];
    if (pos >= 0) parts.push(seatLabel(data.moves[pos].player), data.moves[pos].move);
    const told = pos < 0 ? data.setup : data.moves[pos].summary;
    if (told) parts.push(told);
    // the result is a block of lines: one clause each, after the move's own
    if (pos === numMoves - 1 && data.result) {
      const lines = String(data.result).split("\n").map((l) => l.trim()).filter(Boolean);
      parts.push(lines.reduce((text, l, k) => (k === 0 ? l : text + (/:$/.test(text) ? " " : "; ") + l), ""));
    }
    return parts.join(" | ");
  }

  // Marks position `pos` in the list, the scrubber and the status; draws nothing.
  function mark(pos) {
    scrub.value = String(pos);
    items.forEach((li, k) => li.classList.toggle("current", k === pos + 1));
    const cur = items[pos + 1];
    if (cur) { // scroll the move list only, never the page (on narrow screens the page scrolls)
      const box = list.getBoundingClientRect(), row = cur.getBoundingClientRect();
      if (row.top < box.top) list.scrollTop -= box.top - row.top;
      else if (row.bottom > box.bottom) list.scrollTop += row.bottom - box.bottom;
    }
    const status = $("status");
    status.textContent = statusText(pos);
    status.dataset.move = String(pos + 1);
  }

  function seek(pos) {
    pos = Math.max(-1, Math.min(numMoves - 1, Math.round(Number(pos))));
    if (Number.isNaN(pos)) return position;
    position = pos;
    renderer.update(positionAt(pos));
    mark(pos);
    return pos;
  }

  // Playing: each move's release (when it has one) is played by the renderer, then the pause.
  function step() {
    if (!playing) return;
    if (position >= numMoves - 1) { pause(); return; }
    const next = position + 1;
    const release = data.trajectories[next];
    let seconds = PAUSE_S;
    if (release && renderer.trajectory) {
      renderer.trajectory(release);
      const t = release.trajectory;
      seconds += t.frames.length / (t.hz || 30);
    }
    position = next;
    renderer.update(positionAt(next));
    mark(next);
    timer = setTimeout(step, (1000 * seconds) / speed());
  }
  function pause() {
    playing = false;
    clearTimeout(timer);
    $("play").innerHTML = "&#x25B6;";
  }
  function play() {
    if (position >= numMoves - 1) seek(-1);
    playing = true;
    $("play").textContent = "||";
    timer = setTimeout(step, (1000 * PAUSE_S) / speed());
  }

  $("first").onclick = () => { pause(); seek(-1); };
  $("last").onclick = () => { pause(); seek(numMoves - 1); };
  $("prev").onclick = () => { pause(); seek(position - 1); };
  $("next").onclick = () => { pause(); seek(position + 1); };
  $("play").onclick = () => (playing ? pause() : play());
  scrub.oninput = () => { pause(); seek(scrub.value); };
  document.addEventListener("keydown", (e) => {
    if (e.target && ["SELECT", "INPUT"].includes(e.target.tagName)) return;
    if (e.target && e.target.closest && e.target.closest("#game")) return; // the game area's own keys
    const keys = { ArrowLeft: () => $("prev").onclick(), ArrowRight: () => $("next").onclick(),
      Home: () => $("first").onclick(), End: () => $("last").onclick(), " ": () => $("play").onclick() };
    if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
  });

  const hashMove = () => {
    const m = /move=(-?\d+)/.exec(window.location.hash);
    return m ? Number(m[1]) : null;
  };
  // the hash and pisaSeek take the move number people see (0: the set-up)
  window.addEventListener("hashchange", () => { const m = hashMove(); if (m !== null) { pause(); seek(m - 1); } });
  window.pisaSeek = (move) => { pause(); return seek(move - 1) + 1; };
  window.pisaStatus = () => $("status").textContent;
  window.pisaFraming = () => (renderer.framing ? renderer.framing() : null);
  const start = hashMove();
  seek(start === null ? numMoves - 1 : start - 1);
  if (/(^#|&)play\b/.test(window.location.hash)) play(); // e.g. #move=0&play plays from the set-up
}
