// pisa3d replay page: one template for every game. The page data (the record itself plus what
// pisa3d/export/html.py prepared for this game) is inlined as JSON; three.js comes from the
// inlined bundle. Nothing is ever fetched.
//
// Timeline: position -1 is the set-up, position i is the game right after the move at index i.
// People see moves numbered from 1 (as `pisa3d replay show` prints them): move n is position
// n - 1 and move 0 the set-up. Seek with the URL hash (#move=12; #move=12&play also starts
// playing) or window.pisaSeek(12); the #status element then names the move (data-move holds its
// number) and sums up the game there.
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("pisa-data").textContent);
  const record = data.record;
  const numMoves = record.moves.length;
  const $ = (id) => document.getElementById(id);
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const SVG_NS = "http://www.w3.org/2000/svg";
  // San Gimignano's seat colours should a page lack them: assets/gimignano/setup.json's (tested equal).
  const FALLBACK_PLAYERS = ["#d62728", "#1f77b4", "#2ca02c", "#ff7f0e"];
  const svg = (tag, attrs) => {
    const e = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    return e;
  };

  // ---- views: one per game, all with the same small interface ---------------------------
  //   show(pos)             draw the game at timeline position pos (-1 .. numMoves-1)
  //   animation(pos)        null, or {frames, hz} to animate move pos while playing
  //   showFrame(pos, f)     draw frame f of that animation
  //   summary(pos)          a short text of the state at pos (for #status)
  const views = {};

  // -- tower: three.js scene posed from the recorded trajectories --
  views.tower = function (stage, scene) {
    const { THREE } = globalThis.PISA_THREE;
    const shared = globalThis.PisaTowerScene; // tower_scene.js: renderer, lights, table, tiles
    // Tile meshes built as the live page builds them (tower_scene.js), one per distinct tile.
    const [side, , thickness] = scene.tile_extents;
    const geometries = new Map();
    const geometryOf = (k) => {
      const faces = (scene.tiles || [])[k];
      if (!faces) return null;
      const key = faces.join("/");
      if (!geometries.has(key)) geometries.set(key, shared.tileGeometry(THREE, faces[0], faces[1], side, thickness));
      return geometries.get(key);
    };
    if (scene.missing_poses) { // say why the table is empty, never just show it so
      const notice = el("div", "notice", scene.missing_poses.charAt(0).toUpperCase() + scene.missing_poses.slice(1));
      notice.id = "missing-poses";
      stage.appendChild(notice);
    }
    const view3d = shared.create(stage, { tileExtents: scene.tile_extents, geometryOf });
    const { pose, render } = view3d;

    const trajectoryOf = (i) => {
      if (i < 0 || i >= numMoves) return null;
      const extras = record.moves[i].extras;
      if (!extras) return null;
      const t = scene.trajectory_key ? extras[scene.trajectory_key] : extras;
      return t && t.frames && t.frames.length ? t : null;
    };
    // The settled poses after move i: the last frame of the latest trajectory up to i.
    const settledFrame = (i) => {
      for (let j = i; j >= 0; j--) {
        const t = trajectoryOf(j);
        if (t) return t.frames[t.frames.length - 1];
      }
      return [];
    };
    // Each position framed on its own, by the box the viewer and the video frame
    // (pisa3d.games.tower.presentation.framing.move_bounds: the tower before the move and its release, tiles that
    // fell off the table left out); tower_scene.js follows it (whole tower or its top) unless
    // the person has turned or zoomed the camera.
    const { camera } = view3d;
    const boxOf = (pos) => {
      const boxes = scene.frame_boxes || [];
      return boxes[Math.min(boxes.length - 1, Math.max(0, pos + 1))] || [[-0.03, -0.03, 0], [0.03, 0.03, 0.06]];
    };
    let framedPos = null;
    const frameFor = (pos) => {
      if (pos === framedPos) return;
      framedPos = pos;
      view3d.follow(...boxOf(pos));
    };
    frameFor(-1);

    // The tile a move placed glows faintly, as on the live page: tiles placed up to each move.
    const placedUpTo = [];
    record.moves.forEach((m, i) => {
      const placed = (m.events || []).filter((e) => e.kind === "placed").length;
      placedUpTo.push((i ? placedUpTo[i - 1] : 0) + placed);
    });
    const markMove = (pos) => {
      const placedNow = pos >= 0 && placedUpTo[pos] > (pos ? placedUpTo[pos - 1] : 0);
      view3d.mark(placedNow ? placedUpTo[pos] - 1 : -1);
      for (let k = 0; k < view3d.tileCount(); k++) view3d.refreshTile(k);
    };

    return {
      show(pos) { frameFor(pos); pose(settledFrame(pos)); markMove(pos); render(); },
      animation(pos) { return trajectoryOf(pos); },
      showFrame(pos, f) {
        frameFor(pos);
        const t = trajectoryOf(pos);
        pose(t.frames[Math.min(f, t.frames.length - 1)]);
        render();
      },
      // Where the camera goes for the position shown (for tests: the eased camera ends there).
      framing() {
        return { following: view3d.view() !== "free", view: view3d.view(), fov: camera.fov, aspect: camera.aspect,
                 box: boxOf(framedPos), ...view3d.goal() };
      },
      summary(pos) { return scene.states ? scene.states[pos + 1].summary : `${settledFrame(pos).length} tiles`; },
    };
  };

  // -- cards: a table per position, from the seat/trick data prepared in Python --
  views.cards = function (stage, scene) {
    const root = el("div", "table");
    stage.appendChild(root);
    const cardEl = (c) => {
      if (c === null || c === undefined) return el("span", "card hidden", "?");
      const text = String(c);
      return el("span", "card suit-" + text.charAt(0), text);
    };
    return {
      show(pos) {
        const s = scene.states[pos + 1];
        root.replaceChildren();
        root.appendChild(el("div", "", s.headline || ""));
        const seats = el("div", "");
        seats.style.display = "grid";
        seats.style.gridTemplateColumns = "repeat(auto-fit, minmax(240px, 1fr))";
        seats.style.gap = "10px";
        s.seats.forEach((seat, p) => {
          const toMove = s.to_move === p;
          const box = el("div", "seat" + (toMove ? " active" : ""));
          const title = el("h3", "", seat.title);
          // the outline's legend: the highlighted box is the player whose move comes next
          if (toMove) title.appendChild(el("span", "to-move", "\u25C0 to move"));
          box.appendChild(title);
          for (const [label, cards] of seat.rows) {
            const row = el("div", "");
            row.appendChild(el("span", "", label + ": "));
            if (Array.isArray(cards)) cards.forEach((c) => row.appendChild(cardEl(c)));
            else row.appendChild(document.createTextNode(String(cards)));
            box.appendChild(row);
          }
          seats.appendChild(box);
        });
        root.appendChild(seats);
        if (s.center && s.center.length) {
          const c = el("div", "seat");
          c.appendChild(el("h3", "", s.center_title || "On the table"));
          for (const [label, card] of s.center) {
            const span = el("span", "");
            span.appendChild(document.createTextNode(label + " "));
            span.appendChild(cardEl(card));
            span.appendChild(document.createTextNode("  "));
            c.appendChild(span);
          }
          root.appendChild(c);
        }
        if (s.sheet) {
          const t = el("table", "sheet");
          s.sheet.forEach((row, r) => {
            const tr = el("tr");
            row.forEach((cell) => tr.appendChild(el(r === 0 ? "th" : "td", "", String(cell))));
            t.appendChild(tr);
          });
          const box = el("div", "seat");
          box.appendChild(el("h3", "", "Score sheet"));
          box.appendChild(t);
          root.appendChild(box);
        }
      },
      animation() { return null; },
      showFrame() {},
      summary(pos) { return scene.states[pos + 1].summary || ""; },
    };
  };

  // -- gimignano: the hex board as SVG, grown move by move --
  views.gimignano = function (stage, scene) {
    const root = el("div", "board");
    root.style.position = "absolute";
    root.style.inset = "0";
    stage.appendChild(root);
    const colors = scene.guild_colors || {};
    const playerColors = scene.player_colors || FALLBACK_PLAYERS;
    // The key: a swatch and a name for every guild and every player, then the players' counts.
    const swatch = (color, text, round) => {
      const item = el("span", "key-item");
      const dot = el("span", "swatch" + (round ? " round" : ""));
      dot.style.background = color;
      item.append(dot, document.createTextNode(text));
      return item;
    };
    const legendBox = (status) => {
      const box = el("div", "legend");
      const key = scene.key || { guilds: [], players: [] };
      const guilds = el("div", "");
      key.guilds.forEach((g) => guilds.appendChild(swatch(g.color, `${g.key} ${g.name}`, false)));
      const players = el("div", "");
      key.players.forEach((p) => players.appendChild(swatch(p.color, `${p.name} (${p.color_name})`, true)));
      box.append(guilds, players);
      if (status) box.appendChild(el("div", "events", status));
      return box;
    };
    return {
      show(pos) {
        const s = scene.states[pos + 1];
        const pic = svg("svg", { viewBox: scene.view_box.join(" "), preserveAspectRatio: "xMidYMid meet" });
        for (const plot of s.plots) {
          pic.appendChild(svg("polygon", {
            points: plot.points.map((p) => p.join(",")).join(" "),
            fill: colors[plot.guild] || "#888", stroke: "#222", "stroke-width": scene.stroke || 0.03,
          }));
          plot.stones.forEach((owner, k) => {
            pic.appendChild(svg("circle", {
              cx: plot.center[0] + (k - (plot.stones.length - 1) / 2) * 0.22, cy: plot.center[1], r: 0.1,
              fill: playerColors[owner % playerColors.length], stroke: "#000", "stroke-width": 0.02,
            }));
          });
          if (plot.tower !== null && plot.tower !== undefined) {
            // a square in the owner's colour with the player's number, as on the --svg board
            const [x, y] = plot.center;
            const g = svg("g", { class: "tower", "data-player": String(plot.tower + 1) });
            g.appendChild(svg("rect", {
              x: x - 0.17, y: y - 0.17, width: 0.34, height: 0.34, rx: 0.03,
              fill: playerColors[plot.tower % playerColors.length], stroke: "#000", "stroke-width": 0.03,
            }));
            const n = svg("text", { x, y, "font-size": 0.24, "font-weight": "bold", "text-anchor": "middle",
              "dominant-baseline": "central", "font-family": "sans-serif",
              fill: (scene.player_text_colors || [])[plot.tower] || "#fff" });
            n.textContent = String(plot.tower + 1);
            g.appendChild(n);
            pic.appendChild(g);
          }
        }
        for (const hex of s.hexes || []) {
          pic.appendChild(svg("polygon", {
            points: hex.map((p) => p.join(",")).join(" "), fill: "none", stroke: "#000", "stroke-width": 0.06,
          }));
        }
        // plot letters with their guild key, and each hex's q,r (as in the PNG the game draws)
        const label = (text, [x, y], size, fill, halo) => {
          const t = svg("text", { x, y, "font-size": size, fill, "text-anchor": "middle",
            "dominant-baseline": "central", "font-family": "sans-serif" });
          if (halo) { t.setAttribute("stroke", halo); t.setAttribute("stroke-width", 0.05); t.setAttribute("paint-order", "stroke"); }
          t.textContent = text;
          pic.appendChild(t);
        };
        for (const plot of s.plots) if (plot.label) label(plot.label, plot.label_at, 0.16, plot.label_color);
        // each hex's q,r on a white box of its own, as on the --svg board: the plot borders that
        // meet at the hex centre run under the box, never through the text
        for (const c of s.coordinates || []) {
          const w = 0.085 * c.text.length + 0.06, h = 0.2;
          pic.appendChild(svg("rect", { class: "coord", x: c.at[0] - w / 2, y: c.at[1] - h / 2, width: w, height: h,
            rx: 0.04, fill: "#fff", "fill-opacity": 0.9, stroke: "#555", "stroke-width": 0.015 }));
          label(c.text, c.at, 0.14, "#222");
        }
        root.replaceChildren(legendBox(s.legend), pic);
      },
      animation() { return null; },
      showFrame() {},
      summary(pos) { return scene.states[pos + 1].summary || ""; },
    };
  };

  // -- any other game: the narration only --
  views.text = function (stage) {
    const box = el("div", "events");
    box.style.padding = "14px";
    stage.appendChild(box);
    return {
      show(pos) { box.textContent = (pos < 0 ? data.setup : data.moves[pos]).events.join("\n"); },
      animation() { return null; },
      showFrame() {},
      summary() { return ""; },
    };
  };

  // ---- page shell ----------------------------------------------------------------------
  $("title").textContent = data.title;
  $("meta").textContent = data.meta;
  // A game's end as a table where the scene has one (the cards' score sheet), else as text.
  const resultTable = data.scene.result_table;
  if (resultTable) {
    const t = el("table", "sheet");
    const caption = el("caption", "", resultTable.title);
    t.appendChild(caption);
    const wrap = new Set(resultTable.wrap || []); // long text columns wrap so the table fits the side
    [resultTable.header, ...resultTable.rows].forEach((row, r) => {
      const tr = el("tr");
      row.forEach((cell, k) => tr.appendChild(el(r === 0 ? "th" : "td", r > 0 && wrap.has(k) ? "wrap" : "", String(cell))));
      t.appendChild(tr);
    });
    $("result").replaceChildren(t, el("div", "", resultTable.winners));
  } else {
    $("result").textContent = data.result || "";
  }
  const resultLine = resultTable ? resultTable.winners : data.result;
  const list = $("moves");
  const items = [];
  const addItem = (pos, label, cls) => {
    const li = el("li", cls || "");
    li.appendChild(el("span", "n", pos < 0 ? "" : String(pos + 1)));
    li.appendChild(document.createTextNode(label));
    li.title = (pos < 0 ? data.setup : data.moves[pos]).events.join("\n");
    li.addEventListener("click", () => { pause(); seek(pos); });
    list.appendChild(li);
    items.push(li);
  };
  addItem(-1, "set-up");
  data.moves.forEach((m, i) => addItem(i, m.label, m.bad ? "bad" : ""));

  let view;
  try {
    view = (views[data.scene.kind] || views.text)($("stage"), data.scene);
  } catch (err) { // no WebGL, say: keep the move list and status working
    $("stage").textContent = "The 3D view needs WebGL, which this browser does not offer here (" + err.message
      + "); the move list and the narration still work.";
    view = views.text($("stage"));
  }
  const scrub = $("scrub");
  scrub.max = String(numMoves - 1);
  let position = -1;
  let playing = false;
  let anim = null; // {pos, t0, traj} while a move's trajectory is being played

  function statusText(pos) {
    const head = pos < 0 ? `set-up (then ${numMoves} moves)` : `move ${pos + 1} of ${numMoves}`;
    const parts = [head];
    if (pos >= 0) parts.push(`player ${data.moves[pos].player + 1}`, data.moves[pos].move);
    const summary = pos < 0 ? data.setup.summary : data.moves[pos].summary;
    if (summary) parts.push(summary);
    const state = view.summary(pos);
    if (state) parts.push(state);
    // the result is a block of lines: one clause each, after the move's own
    if (pos === numMoves - 1 && resultLine) {
      const lines = String(resultLine).split("\n").map((l) => l.trim()).filter(Boolean);
      parts.push(lines.reduce((text, l, k) => (k === 0 ? l : text + (/:$/.test(text) ? " " : "; ") + l), ""));
    }
    return parts.join(" | ");
  }

  function seek(pos) {
    pos = Math.max(-1, Math.min(numMoves - 1, Math.round(Number(pos))));
    if (Number.isNaN(pos)) return position;
    position = pos;
    anim = null;
    view.show(pos);
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
    return pos;
  }

  function speed() { return Number($("speed").value) || 1; }
  function pause() { playing = false; $("play").innerHTML = "&#x25B6;"; }
  function play() {
    if (position >= numMoves - 1) seek(-1);
    playing = true;
    $("play").textContent = "||";
    lastStep = performance.now();
    nextTick();
  }
  let lastStep = 0;
  // A timer, not requestAnimationFrame, drives the clock: it also runs in a background tab and
  // in headless browsers (the tests), and 60 steps a second are plenty.
  const nextTick = () => setTimeout(() => tick(performance.now()), 16);
  // Paced by simulation time: a trajectory sampled at hz plays frame f at f / hz seconds.
  function tick(now) {
    if (!playing) return;
    if (anim) {
      const f = Math.floor(((now - anim.t0) / 1000) * speed() * anim.traj.hz);
      if (f >= anim.traj.frames.length) { seek(anim.pos); lastStep = now; }
      else view.showFrame(anim.pos, f);
    } else if (position >= numMoves - 1) {
      pause();
      return;
    } else if ((now - lastStep) / 1000 >= 0.8 / speed()) {
      const next = position + 1;
      const traj = view.animation(next);
      if (traj) {
        anim = { pos: next, t0: now, traj };
        items.forEach((li, k) => li.classList.toggle("current", k === next + 1));
        $("status").textContent = statusText(next);
        $("status").dataset.move = String(next + 1);
        scrub.value = String(next);
      } else {
        seek(next);
        lastStep = now;
      }
    }
    nextTick();
  }

  $("first").onclick = () => { pause(); seek(-1); };
  $("last").onclick = () => { pause(); seek(numMoves - 1); };
  $("prev").onclick = () => { pause(); seek(position - 1); };
  $("next").onclick = () => { pause(); seek(position + 1); };
  $("play").onclick = () => (playing ? pause() : play());
  scrub.oninput = () => { pause(); seek(scrub.value); };
  document.addEventListener("keydown", (e) => {
    if (e.target && e.target.tagName === "SELECT") return;
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
  window.pisaFraming = () => (view.framing ? view.framing() : null);
  const start = hashMove();
  seek(start === null ? numMoves - 1 : start - 1);
  if (/(^#|&)play\b/.test(window.location.hash)) play(); // e.g. #move=0&play plays from the set-up
})();
