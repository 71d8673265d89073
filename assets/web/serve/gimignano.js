// San Gimignano's renderer for the play page (client.js loads it by the match's game id).
//
// The hex board is SVG, drawn from the state message's view alone (tiles, stones, towers, hands,
// the tile guilds and colours), with pan (drag, arrow keys) and zoom (wheel, + and -, 0 fits).
// The seat to move gets its legal moves as things to click: glowing plots for a stone or a tower,
// ghost tiles for a tile (pick the tile and one of its six turns first), a button for "no tower".
// Geometry follows pisa3d/games/gimignano/hexgrid.py: axial pointy-top hexes, x east, y south,
// corner c at 60c + 30 degrees counter-clockwise from east, plot k of a tile turned t owning the
// board edges 2k + t and 2k + t + 1.

import { el, svg } from "../dom.js";

const SQRT3 = Math.sqrt(3);
const LETTERS = "abc";
const FALLBACK_PLAYERS = ["#d62728", "#1f77b4", "#2ca02c", "#ff7f0e"];

// --- geometry (hexgrid.py) ---------------------------------------------------------------
const hexCentre = (q, r) => [SQRT3 * (q + r / 2), 1.5 * r];
const cornerPoint = (q, r, c) => {
  const [cx, cy] = hexCentre(q, r);
  const a = ((60 * c + 30) * Math.PI) / 180;
  return [cx + Math.cos(a), cy - Math.sin(a)];
};
const mod = (a, n) => ((a % n) + n) % n;
const plotFirstEdge = (turn, plot) => mod(2 * plot + turn, 6);
const plotPolygon = (q, r, turn, plot) => {
  const first = plotFirstEdge(turn, plot);
  return [hexCentre(q, r), ...[first - 1, first, first + 1].map((c) => cornerPoint(q, r, mod(c, 6)))];
};
// Toward the plot's outer corner by `share` of the way (0.5: the middle of its rhombus).
const towardCorner = (q, r, turn, plot, share) => {
  const [cx, cy] = hexCentre(q, r);
  const [px, py] = cornerPoint(q, r, plotFirstEdge(turn, plot));
  return [cx + share * (px - cx), cy + share * (py - cy)];
};
const points = (pts) => pts.map(([x, y]) => `${x.toFixed(3)},${y.toFixed(3)}`).join(" ");
const hexPoints = (q, r, scale) => {
  const [cx, cy] = hexCentre(q, r);
  return points([0, 1, 2, 3, 4, 5].map((c) => {
    const [x, y] = cornerPoint(q, r, c);
    return [cx + scale * (x - cx), cy + scale * (y - cy)];
  }));
};

// --- moves in notation (moves.py writes them exactly so) ---------------------------------
function parseLegal(legal) {
  const out = { stones: new Map(), builds: new Map(), tiles: [], done: false };
  for (const move of legal || []) {
    let m;
    if (move === "done") out.done = true;
    else if ((m = /^([SB]) (-?\d+),(-?\d+)\/([abc])$/.exec(move))) {
      (m[1] === "S" ? out.stones : out.builds).set(`${m[2]},${m[3]}/${m[4]}`, move);
    } else if ((m = /^T(\d+) @ (-?\d+),(-?\d+) r(\d)$/.exec(move))) {
      out.tiles.push({ tile: Number(m[1]), q: Number(m[2]), r: Number(m[3]), turn: Number(m[4]), move });
    }
  }
  return out;
}

export default function gimignanoRenderer(container, ctx) {
  const root = el("div", "gim");
  root.tabIndex = -1; // takes the board's keys when a click lands on the board
  const boardBox = el("div", "gim-board");
  const tools = el("div", "gim-tools");
  const zoomButtons = [["+", "zoom in (+)", () => zoomBy(0.8)], ["\u2212", "zoom out (-)", () => zoomBy(1.25)],
    ["fit", "fit the board (0)", () => fit(true)]];
  for (const [text, title, act] of zoomButtons) {
    const b = el("button", "", text);
    b.type = "button"; b.title = title; b.setAttribute("aria-label", title);
    b.addEventListener("click", act);
    tools.appendChild(b);
  }
  const pic = svg("svg", { class: "gim-svg", role: "img", "aria-label": "the board" });
  boardBox.append(pic, tools);
  const panel = el("div", "gim-panel");
  const prompt = el("p", "gim-prompt");
  prompt.setAttribute("aria-live", "polite");
  const actions = el("div", "gim-actions");
  const chooser = el("div", "gim-chooser");
  const players = el("div", "gim-players");
  const key = el("div", "gim-key");
  panel.append(prompt, actions, chooser, players, key);
  root.append(boardBox, panel);
  container.appendChild(root);

  let msg = null;
  let chosenTile = null; // the hand tile picked to lay, and its turn
  let chosenTurn = 0;
  let box = null; // the SVG viewBox [x, y, w, h]
  let userMoved = false; // once the person pans or zooms, updates no longer re-fit the board

  // --- pan and zoom --------------------------------------------------------------------
  const applyBox = () => { if (box) pic.setAttribute("viewBox", box.map((v) => v.toFixed(3)).join(" ")); };
  function contentBox(view, spots) {
    const xs = [], ys = [];
    const add = (q, r) => { const [x, y] = hexCentre(q, r); xs.push(x - 1, x + 1); ys.push(y - 1, y + 1); };
    for (const [, q, r] of view.tiles) add(q, r);
    for (const s of spots) add(s.q, s.r);
    if (!xs.length) add(0, 0);
    // A margin, and at least six hexes' room: an early board is not blown up to fill the screen.
    const m = 0.35, least = 7;
    let [x0, x1, y0, y1] = [Math.min(...xs) - m, Math.max(...xs) + m, Math.min(...ys) - m, Math.max(...ys) + m];
    if (x1 - x0 < least) { const c = (x0 + x1) / 2; [x0, x1] = [c - least / 2, c + least / 2]; }
    if (y1 - y0 < least) { const c = (y0 + y1) / 2; [y0, y1] = [c - least / 2, c + least / 2]; }
    return [x0, y0, x1 - x0, y1 - y0];
  }
  function fit(byPerson) {
    if (!msg) return;
    if (byPerson) userMoved = false;
    box = contentBox(msg.view, parseLegal(msg.legal).tiles);
    applyBox();
  }
  function zoomBy(f, at) {
    if (!box) return;
    const [cx, cy] = at || [box[0] + box[2] / 2, box[1] + box[3] / 2];
    const w = Math.min(80, Math.max(1.5, box[2] * f)), h = box[3] * (w / box[2]);
    box = [cx - (cx - box[0]) * (w / box[2]), cy - (cy - box[1]) * (h / box[3]), w, h];
    userMoved = true;
    applyBox();
  }
  function panBy(fx, fy) {
    if (!box) return;
    box = [box[0] + fx * box[2], box[1] + fy * box[3], box[2], box[3]];
    userMoved = true;
    applyBox();
  }
  // Screen pixels to board units (the SVG keeps its aspect: "meet").
  function toBoard(clientX, clientY) {
    const ctm = pic.getScreenCTM();
    if (!ctm) return null;
    const p = new DOMPoint(clientX, clientY).matrixTransform(ctm.inverse());
    return [p.x, p.y];
  }
  pic.addEventListener("wheel", (e) => {
    e.preventDefault();
    zoomBy(e.deltaY > 0 ? 1.15 : 1 / 1.15, toBoard(e.clientX, e.clientY));
  }, { passive: false });
  let drag = null; // {x, y, moved} while a pointer is down on the board
  pic.addEventListener("pointerdown", (e) => {
    if (e.button !== 0) return;
    drag = { x: e.clientX, y: e.clientY, moved: false, id: e.pointerId };
  });
  pic.addEventListener("pointermove", (e) => {
    if (!drag || drag.id !== e.pointerId || !box) return;
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (!drag.moved && Math.hypot(dx, dy) < 5) return;
    if (!drag.moved) pic.setPointerCapture(e.pointerId);
    drag.moved = true;
    const ctm = pic.getScreenCTM();
    const scale = ctm ? ctm.a : 1;
    box = [box[0] - dx / scale, box[1] - dy / scale, box[2], box[3]];
    drag.x = e.clientX; drag.y = e.clientY;
    userMoved = true;
    applyBox();
  });
  const endDrag = (e) => {
    if (drag && drag.moved) {
      // a drag is not a click: swallow the click that follows it
      const stop = (c) => { c.stopPropagation(); c.preventDefault(); };
      pic.addEventListener("click", stop, { capture: true, once: true });
      setTimeout(() => pic.removeEventListener("click", stop, { capture: true }), 0);
    }
    if (drag && pic.hasPointerCapture(e.pointerId)) pic.releasePointerCapture(e.pointerId);
    drag = null;
  };
  pic.addEventListener("pointerup", endDrag);
  pic.addEventListener("pointercancel", endDrag);

  root.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const keys = {
      "+": () => zoomBy(0.8), "=": () => zoomBy(0.8), "-": () => zoomBy(1.25), "0": () => fit(true),
      ArrowLeft: () => panBy(-0.15, 0), ArrowRight: () => panBy(0.15, 0),
      ArrowUp: () => panBy(0, -0.15), ArrowDown: () => panBy(0, 0.15),
      r: () => turnBy(1), R: () => turnBy(-1),
    };
    if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
  });

  // --- clickable things: a person acts by click, Enter or Space ------------------------
  function clickable(node, label, act) {
    node.setAttribute("tabindex", "0");
    node.setAttribute("role", "button");
    node.setAttribute("aria-label", label);
    node.addEventListener("click", act);
    node.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") { e.preventDefault(); act(); }
    });
    const title = svg("title");
    title.textContent = label;
    node.appendChild(title);
  }
  const send = (move) => { if (ctx.seat !== null && ctx.seat !== undefined) ctx.sendMove(move); };

  // --- drawing -------------------------------------------------------------------------
  const guildColor = (view, key) => {
    const g = (view.guilds || []).find((x) => x.key === key);
    return g ? g.color : "#888";
  };
  const guildName = (view, key) => {
    const g = (view.guilds || []).find((x) => x.key === key);
    return g ? g.name : key;
  };
  const playerColor = (view, p) => {
    const c = (view.player_colors || [])[p];
    return c ? c.color : FALLBACK_PLAYERS[p % FALLBACK_PLAYERS.length];
  };
  const tileGuilds = (view, id) => (view.tile_guilds || {})[String(id)] || ["?", "?", "?"];

  // A lone tile (for the hand and the turn buttons), drawn at hex 0,0.
  function tileIcon(view, id, turn, size) {
    const icon = svg("svg", { viewBox: "-1.05 -1.05 2.1 2.1", width: size, height: size, "aria-hidden": "true" });
    tileGuilds(view, id).forEach((g, k) => icon.appendChild(svg("polygon", {
      points: points(plotPolygon(0, 0, turn, k)), fill: guildColor(view, g), stroke: "#222", "stroke-width": 0.05,
    })));
    icon.appendChild(svg("polygon", { points: hexPoints(0, 0, 1), fill: "none", stroke: "#000", "stroke-width": 0.08 }));
    return icon;
  }

  function lastChanges(events) {
    // What the latest move changed, to mark it on the board: plots and hexes.
    const plots = new Set(), hexes = new Set();
    for (const e of events || []) {
      const d = e.data || {};
      if ((e.kind === "stone" || e.kind === "tower") && d.plot) plots.add(d.plot);
      if (e.kind === "tile" && d.hex) hexes.add(`${d.hex[0]},${d.hex[1]}`);
    }
    return { plots, hexes };
  }

  function drawBoard() {
    const view = msg.view;
    const legal = parseLegal(msg.legal);
    const changed = lastChanges(msg.events);
    const layer = svg("g");
    const top = svg("g"); // highlights and pieces above every tile
    view.tiles.forEach(([id, q, r, turn], order) => {
      const guilds = tileGuilds(view, id);
      for (let k = 0; k < 3; k++) {
        const pid = 3 * order + k;
        const name = `${q},${r}/${LETTERS[k]}`;
        const poly = svg("polygon", {
          points: points(plotPolygon(q, r, turn, k)), fill: guildColor(view, guilds[k]),
          stroke: "#222", "stroke-width": 0.03, class: "plot", "data-plot": name, "data-guild": guilds[k],
        });
        layer.appendChild(poly);
        const [lx, ly] = towardCorner(q, r, turn, k, 0.35);
        const label = svg("text", { x: lx, y: ly, class: "plot-label" });
        label.textContent = `${LETTERS[k]}\u00b7${guilds[k]}`;
        layer.appendChild(label);
        const stones = (view.stones || [])[pid] || [];
        const tower = (view.towers || [])[pid];
        const [sx, sy] = towardCorner(q, r, turn, k, 0.72);
        stones.forEach((owner, n) => top.appendChild(svg("circle", {
          cx: sx + (n - (stones.length - 1) / 2) * 0.24, cy: sy, r: 0.11, class: "stone",
          fill: playerColor(view, owner), "data-owner": owner,
        })));
        if (tower !== undefined && tower !== null && tower >= 0) {
          top.appendChild(svg("path", {
            d: `M${sx - 0.14},${sy + 0.2} v-0.32 h0.07 v0.07 h0.035 v-0.07 h0.07 v0.07 h0.035 v-0.07 h0.07 v0.32 z`,
            class: "tower", fill: playerColor(view, tower), "data-owner": tower,
          }));
          // the owner's number on the tower, as on the --svg board (colours alone are not enough)
          const number = svg("text", { x: sx, y: sy + 0.06, class: "tower-number", "data-owner": tower });
          number.textContent = String(tower + 1);
          top.appendChild(number);
        }
        if (changed.plots.has(name)) {
          top.appendChild(svg("polygon", { points: points(plotPolygon(q, r, turn, k)), class: "changed" }));
        }
        const move = legal.stones.get(name) || legal.builds.get(name);
        if (move) {
          const hot = svg("polygon", { points: points(plotPolygon(q, r, turn, k)), class: "legal", "data-move": move });
          const what = move[0] === "S" ? "put a stone on" : "build a tower on";
          clickable(hot, `${what} ${name} (${guildName(view, guilds[k])})`, () => send(move));
          top.appendChild(hot);
        }
      }
      layer.appendChild(svg("polygon", { points: hexPoints(q, r, 1), class: "hex-edge" }));
      const [cx, cy] = hexCentre(q, r);
      // q,r on a small box of its own: the plot borders meeting at the centre run under it
      const text = `${q},${r}`, boxWidth = 0.085 * text.length + 0.06;
      layer.appendChild(svg("rect", { x: cx - boxWidth / 2, y: cy - 0.08, width: boxWidth, height: 0.2, rx: 0.04,
        class: "coord-box" }));
      const coord = svg("text", { x: cx, y: cy + 0.02, class: "coord" });
      coord.textContent = text;
      layer.appendChild(coord);
      if (changed.hexes.has(`${q},${r}`)) top.appendChild(svg("polygon", { points: hexPoints(q, r, 0.96), class: "changed" }));
    });
    // Tile phase: ghosts of the chosen tile where it fits with the chosen turn; spots where it
    // fits only with another turn are outlined, and a click there picks the first such turn.
    if (legal.tiles.length && chosenTile !== null) {
      const mine = legal.tiles.filter((t) => t.tile === chosenTile);
      const spots = new Map();
      for (const t of mine) {
        const k = `${t.q},${t.r}`;
        if (!spots.has(k)) spots.set(k, []);
        spots.get(k).push(t);
      }
      for (const [name, options] of spots) {
        const { q, r } = options[0];
        const exact = options.find((t) => t.turn === chosenTurn);
        if (exact) {
          const ghost = svg("g", { class: "ghost", "data-move": exact.move });
          tileGuilds(view, chosenTile).forEach((g, k) => ghost.appendChild(svg("polygon", {
            points: points(plotPolygon(q, r, chosenTurn, k)), fill: guildColor(view, g),
          })));
          ghost.appendChild(svg("polygon", { points: hexPoints(q, r, 1), class: "ghost-edge" }));
          clickable(ghost, `lay tile ${chosenTile} on ${name} turned r${chosenTurn}`, () => send(exact.move));
          top.appendChild(ghost);
        } else {
          const spot = svg("polygon", { points: hexPoints(q, r, 0.94), class: "spot", "data-spot": name });
          const turns = options.map((t) => `r${t.turn}`).join(", ");
          clickable(spot, `tile ${chosenTile} fits on ${name} turned ${turns}: pick that turn`, () => {
            chosenTurn = options[0].turn;
            draw();
          });
          top.appendChild(spot);
          const [cx, cy] = hexCentre(q, r);
          const hint = svg("text", { x: cx, y: cy, class: "spot-hint" });
          hint.textContent = turns;
          top.appendChild(hint);
        }
      }
    }
    pic.replaceChildren(layer, top);
    if (!box || !userMoved) fit(false);
  }

  function phaseText(view, legal, myTurn) {
    const who = (p) => (p === ctx.seat ? "you" : ctx.seatLabel(p));
    if (msg.over) return `Game over: ${view.end_reason || ""}`;
    if (!myTurn) {
      const p = msg.to_move;
      if (p === null || p === undefined) return "Waiting.";
      return `${who(p).replace(/^./, (c) => c.toUpperCase())} ${p === ctx.seat ? "are" : "is"} to move: ${view.phase} phase.`;
    }
    if (legal.stones.size) return "Your turn: place a stone. Click a glowing plot.";
    if (legal.tiles.length) return "Your turn: lay a tile. Pick a tile and a turn, then click a ghost tile on the board.";
    if (legal.builds.size) {
      const must = !legal.done;
      return must ? "Your turn: you must build a tower in the group of your last one. Click a glowing plot."
        : "Your turn: you hold a quartet. Click a glowing plot to build a tower there, or build none.";
    }
    return "Your turn.";
  }

  function drawPanel() {
    const view = msg.view;
    const legal = parseLegal(msg.legal);
    const myTurn = ctx.seat !== null && ctx.seat !== undefined && msg.to_move === ctx.seat && !msg.over;
    prompt.textContent = phaseText(view, legal, myTurn);
    prompt.classList.toggle("mine", myTurn);
    actions.replaceChildren();
    if (legal.done) {
      const b = el("button", "primary", "Build no tower");
      b.type = "button"; b.dataset.move = "done";
      b.addEventListener("click", () => send("done"));
      actions.appendChild(b);
    }
    // Tile phase: the hand's tiles that fit somewhere, then the six turns of the chosen one.
    chooser.replaceChildren();
    if (legal.tiles.length) {
      const tiles = [...new Set(legal.tiles.map((t) => t.tile))];
      const fitsTurns = new Set(legal.tiles.filter((t) => t.tile === chosenTile).map((t) => t.turn));
      const hand = el("div", "gim-row");
      const mine = view.hands[ctx.seat] || [];
      mine.forEach((id) => {
        const b = el("button", "tile-btn" + (id === chosenTile ? " chosen" : ""));
        b.type = "button"; b.dataset.tile = String(id);
        b.setAttribute("aria-pressed", id === chosenTile ? "true" : "false");
        b.setAttribute("aria-label", `tile ${id}: ${tileGuilds(view, id).map((g) => guildName(view, g)).join(", ")}`);
        b.appendChild(tileIcon(view, id, id === chosenTile ? chosenTurn : 0, 40));
        b.appendChild(el("span", "", `T${id}`));
        b.disabled = !tiles.includes(id);
        if (b.disabled) b.title = "fits nowhere now";
        b.addEventListener("click", () => { chosenTile = id; draw(); focusChooser(`[data-tile="${id}"]`); });
        hand.appendChild(b);
      });
      const turns = el("div", "gim-row");
      for (let t = 0; t < 6; t++) {
        const b = el("button", "turn-btn" + (t === chosenTurn ? " chosen" : ""));
        b.type = "button"; b.dataset.turn = String(t);
        b.setAttribute("aria-pressed", t === chosenTurn ? "true" : "false");
        b.setAttribute("aria-label", `turn r${t}` + (fitsTurns.has(t) ? "" : " (fits nowhere)"));
        b.appendChild(tileIcon(view, chosenTile, t, 30));
        b.appendChild(el("span", "", `r${t}`));
        if (!fitsTurns.has(t)) b.classList.add("nofit");
        b.addEventListener("click", () => { chosenTurn = t; draw(); focusChooser(`[data-turn="${t}"]`); });
        turns.appendChild(b);
      }
      const help = el("div", "help", "keys: r / R turn the tile; Tab to a ghost tile, Enter lays it");
      chooser.append(el("div", "dim", "your tile"), hand, el("div", "dim", "its turn (r / R)"), turns, help);
    }
    // The players: towers and stones (the scores), and their open hands.
    const table = el("table", "gim-scores");
    const head = el("tr");
    for (const h of ["player", "towers", "stones", "placed", "hand"]) head.appendChild(el("th", "", h));
    table.appendChild(head);
    const onBoard = new Array(view.num_players).fill(0);
    for (const s of view.stones || []) for (const o of s) onBoard[o] += 1;
    for (let p = 0; p < view.num_players; p++) {
      const row = el("tr", p === msg.to_move && !msg.over ? "to-move" : "");
      row.dataset.player = String(p);
      const name = el("td", "");
      const dot = el("span", "dot");
      dot.style.background = playerColor(view, p);
      const colour = (view.player_colors || [])[p];
      name.append(dot, `${ctx.seatLabel(p)}${p === ctx.seat ? " (you)" : ""}${colour ? " " + colour.name : ""}`);
      row.appendChild(name);
      row.appendChild(el("td", "num", `${view.towers_built[p]}/${view.options.towers_per_player}`));
      row.appendChild(el("td", "num", String(view.supply[p])));
      row.appendChild(el("td", "num", String(onBoard[p])));
      const hand = el("td", "hand");
      for (const id of view.hands[p] || []) {
        const icon = tileIcon(view, id, 0, 22);
        icon.setAttribute("aria-hidden", "false");
        icon.setAttribute("role", "img");
        icon.setAttribute("aria-label", `tile ${id}`);
        hand.appendChild(icon);
      }
      if (!(view.hands[p] || []).length) hand.textContent = "-";
      row.appendChild(hand);
      table.appendChild(row);
    }
    players.replaceChildren(table);
    key.replaceChildren(...(view.guilds || []).map((g) => {
      const item = el("span", "key-item");
      const sw = el("span", "swatch");
      sw.style.background = g.color;
      item.append(sw, `${g.key} ${g.name}`);
      return item;
    }), el("div", "help", "a plot: letter·guild; stones by colour; drag to pan, wheel or +/- to zoom"));
  }

  function focusChooser(selector) {
    const b = chooser.querySelector(selector);
    if (b) b.focus();
  }

  function turnBy(step) {
    if (!msg || chosenTile === null || !parseLegal(msg.legal).tiles.length) return;
    chosenTurn = mod(chosenTurn + step, 6);
    draw();
  }

  // Keep the chosen tile and turn among those that fit (the first that does, else).
  function normaliseChoice() {
    const tiles = msg ? parseLegal(msg.legal).tiles : [];
    if (!tiles.length) return;
    const ids = [...new Set(tiles.map((t) => t.tile))];
    if (!ids.includes(chosenTile)) chosenTile = ids[0];
    const turns = tiles.filter((t) => t.tile === chosenTile).map((t) => t.turn);
    if (!turns.includes(chosenTurn)) chosenTurn = Math.min(...turns);
  }

  function draw() {
    normaliseChoice();
    drawBoard();
    drawPanel();
  }

  return {
    update(stateMsg) {
      const fresh = !msg || stateMsg.moves !== msg.moves;
      msg = stateMsg;
      if (fresh && !parseLegal(stateMsg.legal).tiles.length) chosenTile = null;
      draw();
      root.dataset.phase = stateMsg.view.phase;
      root.dataset.moves = String(stateMsg.moves);
    },
  };
}
