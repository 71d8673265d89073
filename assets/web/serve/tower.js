// The tower's renderer for the play page (client.js loads it by the match's game id).
//
// Beside a three.js scene of the tower as it stands (tower_scene.js, posed from the view's
// settled `poses`, each tile's mesh built from the tile set the view's options carry), a panel:
// whose turn, the tile in hand with its visible face, the legal placements grouped by slot with
// one button per turn (each showing the face so turned), every player's stack and face colour.
// A placement's simulated release (the "trajectory" message) is played before the new state.

import { el, svg } from "../dom.js";
import { create as createScene, ghostGeometry, rimGeometry, tileGeometry } from "../tower_scene.js";

const SIDE_NAMES = { N: "north", E: "east", S: "south", W: "west" };
const FACE_FILL = { white: "#ece4d2", black: "#262220" };
const STROKE_FILL = { white: "#a01e1e", black: "#deb23c" };

// The visible bits by position once turned `rotation` quarters clockwise (geometry.py).
const turned = (pattern, rotation) =>
  [0, 1, 2, 3].map((p) => String(pattern)[(((p - rotation) % 4) + 4) % 4]).join("");

// A face as people see it: its colour, a centre square and a stroke to each stroked edge.
function faceIcon(face, pattern, size) {
  const icon = svg("svg", { viewBox: "-1 -1 2 2", width: size, height: size, class: "face-icon", "aria-hidden": "true" });
  icon.appendChild(svg("rect", { x: -0.96, y: -0.96, width: 1.92, height: 1.92, rx: 0.08,
    fill: FACE_FILL[face] || "#999", stroke: "#8a6a45", "stroke-width": 0.08 }));
  const w = 0.36, ink = STROKE_FILL[face] || "#c00";
  icon.appendChild(svg("rect", { x: -w / 2, y: -w / 2, width: w, height: w, fill: ink }));
  // positions top, right, bottom, left (screen y grows downward)
  const bars = [[-w / 2, -0.96, w, 0.96], [0, -w / 2, 0.96, w], [-w / 2, 0, w, 0.96], [-0.96, -w / 2, 0.96, w]];
  String(pattern).split("").forEach((bit, p) => {
    if (bit === "1") {
      const [x, y, width, height] = bars[p];
      icon.appendChild(svg("rect", { x, y, width, height, fill: ink }));
    }
  });
  return icon;
}

function slotName(slot) {
  const m = /^W(\d+)([NESW])$/.exec(slot);
  if (m) return `wall ${SIDE_NAMES[m[2]]}, floor ${m[1]}`;
  const c = /^C(\d+)$/.exec(slot);
  return c ? `ceiling of floor ${c[1]}` : slot;
}

// Legal notations ("W0N r1", "C2 r3", "pass") grouped by slot, in the server's order.
function groupLegal(legal) {
  const slots = new Map();
  let pass = false;
  for (const move of legal || []) {
    if (move === "pass") { pass = true; continue; }
    const m = /^(\S+) r(\d)$/.exec(move);
    if (!m) continue;
    if (!slots.has(m[1])) slots.set(m[1], []);
    slots.get(m[1]).push({ rotation: Number(m[2]), move });
  }
  return { slots, pass };
}

export default function towerRenderer(container, ctx) {
  const root = el("div", "twr");
  const stage = el("div", "twr-stage");
  stage.setAttribute("role", "img");
  stage.setAttribute("aria-label", "the tower in 3D (drag to turn, wheel to zoom)");
  const stageBox = el("div", "twr-stage-box");
  stageBox.append(stage);
  const panel = el("div", "twr-panel");
  const prompt = el("p", "twr-prompt");
  prompt.setAttribute("aria-live", "polite");
  const hand = el("div", "twr-hand");
  const moves = el("div", "twr-moves");
  const players = el("div", "twr-players");
  const facts = el("div", "twr-facts");
  panel.append(prompt, hand, moves, players, facts);
  root.append(stageBox, panel);
  container.appendChild(root);

  let msg = null;
  let scene = null; // tower_scene.js's scene, once its scripts are in
  let sceneError = null;
  let lastBox = ""; // the box last given to the scene, as text
  let anim = null; // {frames, hz, t0} while a release plays
  let handTile = null; // the tile the mover held, for the new tile of a trajectory
  const geometries = new Map(); // tile id -> geometry
  let selected = null; // {slot, move}: the placement picked, waiting for "place"
  let hovered = null; // the slot of the ghost a click would pick, lit
  let ghostGroup = null; // the translucent tiles, one per legal slot

  // --- the 3D scene ----------------------------------------------------------------------
  function tileSize(view) {
    const o = view.options || {};
    const set = o.tile_set || {};
    return [(o.tile_side_mm || set.side_mm || 60) / 1000, (o.tile_thickness_mm || set.thickness_mm || 4) / 1000];
  }
  function geometryFor(view, tileId) {
    if (tileId === null || tileId === undefined) return null;
    if (!geometries.has(tileId)) {
      const tiles = ((view.options || {}).tile_set || {}).tiles || [];
      const tile = tiles.find((t) => t.id === tileId);
      if (!tile) return null;
      const [side, thickness] = tileSize(view);
      geometries.set(tileId, tileGeometry(tile.white, tile.black, side, thickness));
    }
    return geometries.get(tileId);
  }
  // The tile id behind pose k: the placements' order; a tile just released is the one in hand.
  const tileAt = (k) => {
    const placed = (msg.view.placements || [])[k];
    return placed ? placed.tile : handTile;
  };

  try {
    scene = createScene(stage, {
      tileExtents: [0.06, 0.06, 0.004], // until the first state's options say the tile set's
      geometryOf: (k) => (msg ? geometryFor(msg.view, tileAt(k)) : null),
    });
  } catch (e) {
    sceneError = e;
    stage.textContent = `The 3D view needs WebGL, which this browser does not offer here (${e.message}); the placements list still works.`;
  }

  // The camera follows the box the server sends, worked out by the one framing rule of the
  // replay page, the viewer and the video (pisa3d.games.tower.presentation.framing): a release is framed as the
  // replay frames that move, a state as well, widened to every ghost's slot for the person
  // placing. The page has no framing rule of its own.
  function frame(box) {
    const key = JSON.stringify(box || null);
    if (!scene || !box || key === lastBox) return;
    lastBox = key;
    scene.follow(box[0], box[1]);
    root.dataset.frameBox = key;
  }

  function drawScene() {
    if (!scene || !msg) return;
    const poses = anim ? anim.frames[Math.min(anim.frame, anim.frames.length - 1)] : msg.view.poses || [];
    // the last move's tile, when it was a placement
    const placed = (msg.events || []).some((e) => e.kind === "placed");
    scene.mark(placed ? (msg.view.placements || []).length - 1 : -1);
    const count = Math.max(poses.length, scene.tileCount());
    for (let k = 0; k < count; k++) scene.refreshTile(k);
    scene.pose(poses);
    frame(anim ? anim.box : msg.frame_box);
    drawGhosts();
    scene.render();
    root.dataset.tiles = String(poses.length);
  }


  // --- ghosts: every legal slot as a see-through tile -------------------------------------
  // A ghost is the tile in hand where the placement puts it, turned as that placement turns it:
  // its visible face with its strokes (the ones that must match), see-through, framed by a rim
  // in its safety's colour, from green (safe) to red (falls): by the fall odds when the server
  // sends them, else by the statics verdict; a match without hints sends only the poses, and its
  // rims are all one neutral colour. The picked ghost is drawn nearly solid with a bright outline
  // on top of everything, the others dimmed; the ghost a click would pick is lifted in front.
  const NEUTRAL = "#6f8fb8";
  const PICKED_LINE = 0xffe14d, HOVER_LINE = 0xffffff;
  const judged = (d) => !!d && d.verdict !== undefined; // a move with safety figures
  const VERDICT_RISK = { "safe": 0.05, "thin: a shaky hand may topple it": 0.45,
    "stands, but a next placement would topple it": 0.7, "falls now": 1.0 };
  const riskOf = (d) => (d.fall_odds !== undefined && d.fall_odds !== null ? d.fall_odds : (VERDICT_RISK[d.verdict] ?? 0.5));
  const riskColour = (r) => {
    const t = Math.max(0, Math.min(1, r));
    const hue = (1 - Math.min(1, t * 2.5)) * 120; // 40 % odds and more: red
    return `hsl(${hue.toFixed(0)}, 75%, 45%)`;
  };
  const ghostColour = (d) => (judged(d) ? riskColour(riskOf(d)) : NEUTRAL);
  const describe = (move, d) => {
    if (!judged(d)) return move;
    const odds = d.fall_odds !== undefined && d.fall_odds !== null ? `falls ${(100 * d.fall_odds).toFixed(0)}% of the time with your hand; ` : "";
    const mm = (v) => (v === null || v === undefined ? "-" : `${v >= 0 ? "+" : ""}${v.toFixed(2)} mm`);
    return `${move}: ${odds}margin ${mm(d.margin_mm)}, worst next ${mm(d.worst_next_mm)} (${d.verdict})`;
  };
  const listedOf = (m) => groupLegal(m.listed && m.listed.length ? m.listed : m.legal);
  // The slots as the list shows them: safest first when the server ranks them.
  const orderedSlots = () => {
    const details = msg.details || {};
    const rankOf = (options) => { const d = details[options[0].move]; return judged(d) ? d.rank : 0; };
    return [...listedOf(msg).slots].sort((a, b) => rankOf(a[1]) - rankOf(b[1]));
  };
  // The move a slot's ghost shows: the picked turn, else the first legal one.
  const ghostMove = (slot, options) => (selected && selected.slot === slot ? selected.move : options[0].move);
  const myTurnNow = () => ctx.seat !== null && ctx.seat !== undefined && msg.to_move === ctx.seat && !msg.over;

  let ghosts = []; // [{slot, move, colour, group, slab, rim, line}], in the list's order
  let ghostsKey = ""; // what the ghosts were built for: rebuilt only when it changes
  const ghostShapes = new Map(); // face, pattern and size -> geometry (shared by every ghost)
  const shape = (key, make) => { if (!ghostShapes.has(key)) ghostShapes.set(key, make()); return ghostShapes.get(key); };

  function clearGhosts() {
    if (ghostGroup) scene.world.remove(ghostGroup);
    for (const g of ghosts) for (const part of [g.slab, g.rim, g.line]) part.material.dispose();
    ghostGroup = null;
    ghosts = [];
  }

  function drawGhosts() {
    const held = msg.view.tile_in_hand;
    const show = myTurnNow() && !anim && held;
    const key = show ? JSON.stringify([msg.moves, held, orderedSlots().map(([slot, o]) => ghostMove(slot, o))]) : "";
    if (key !== ghostsKey) buildGhosts(key, held);
    styleGhosts();
  }

  function buildGhosts(key, held) {
    const THREE = scene.THREE;
    clearGhosts();
    ghostsKey = key;
    root.dataset.ghosts = "0";
    if (!key) return;
    const [side, thickness] = tileSize(msg.view);
    const rimWidth = 0.045 * side;
    const pattern = held.visible_pattern ?? tileFaces(msg.view, held.tile)[held.face] ?? "0000";
    const slabShape = shape(`${held.face} ${pattern} ${side} ${thickness}`, () => ghostGeometry(held.face, pattern, side, thickness));
    const rimShape = shape(`rim ${side} ${thickness}`, () => rimGeometry(side, thickness, rimWidth));
    const lineShape = shape(`line ${side} ${thickness}`, () => new THREE.EdgesGeometry(
      new THREE.BoxGeometry(side + 2 * rimWidth, side + 2 * rimWidth, thickness * 1.6)));
    const details = msg.details || {};
    ghostGroup = new THREE.Group();
    for (const [slot, options] of orderedSlots()) {
      const move = ghostMove(slot, options);
      const d = details[move];
      if (!d || !d.pose) continue;
      const colour = ghostColour(d);
      const slab = new THREE.Mesh(slabShape, new THREE.MeshStandardMaterial({
        vertexColors: true, transparent: true, depthWrite: false, side: THREE.DoubleSide, roughness: 0.6 }));
      const rim = new THREE.Mesh(rimShape, new THREE.MeshBasicMaterial({
        color: new THREE.Color(colour), transparent: true, depthWrite: false, side: THREE.DoubleSide }));
      const line = new THREE.LineSegments(lineShape, new THREE.LineBasicMaterial({
        color: PICKED_LINE, transparent: true, depthTest: false, depthWrite: false }));
      const group = new THREE.Group();
      group.add(slab, rim, line);
      group.position.set(d.pose[0], d.pose[1], d.pose[2]);
      group.quaternion.set(d.pose[3], d.pose[4], d.pose[5], d.pose[6]);
      const ghost = { slot, move, colour, group, slab, rim, line };
      slab.userData.ghost = rim.userData.ghost = ghost;
      ghostGroup.add(group);
      ghosts.push(ghost);
    }
    scene.world.add(ghostGroup);
    ghostGroup.updateMatrixWorld(true); // picking may come before the next frame is drawn
    root.dataset.ghosts = String(ghosts.length);
  }

  // Picked: nearly solid, outlined on top of everything, drawn over the other ghosts; the one a
  // click would pick: lifted in front of the tower's tiles and the other ghosts (not the picked
  // one) with a white outline; the others see-through, dimmer while one is picked.
  function styleGhosts() {
    for (const g of ghosts) {
      const picked = !!selected && selected.slot === g.slot;
      const lifted = !picked && hovered === g.slot;
      const slabOpacity = picked ? 0.92 : lifted ? 0.8 : selected ? 0.3 : 0.5;
      g.slab.material.opacity = slabOpacity;
      g.rim.material.opacity = picked || lifted ? 1 : selected ? 0.45 : 0.7;
      for (const part of [g.slab, g.rim]) {
        part.material.depthTest = !lifted;
        part.renderOrder = picked ? 5 : lifted ? 4 : 0; // blended last: over the other ghosts
      }
      g.line.visible = picked || lifted;
      g.line.material.color.setHex(picked ? PICKED_LINE : HOVER_LINE);
      g.line.renderOrder = picked ? 7 : 6;
    }
    root.dataset.picked = selected ? selected.move : "";
  }

  // Client pixels of a point of the world.
  function toScreen(point) {
    const rect = scene.renderer.domElement.getBoundingClientRect();
    const v = new scene.THREE.Vector3(...point).project(scene.camera);
    return { x: rect.left + ((v.x + 1) / 2) * rect.width, y: rect.top + ((1 - v.y) / 2) * rect.height };
  }
  // The ghosts under a point of the stage (client coordinates), the one whose middle is drawn
  // nearest the point first (so a click on a hidden ghost's middle picks it), then the nearer.
  function ghostsAt(x, y) {
    if (!scene || !ghosts.length) return [];
    const rect = scene.renderer.domElement.getBoundingClientRect();
    const ndc = new scene.THREE.Vector2(((x - rect.left) / rect.width) * 2 - 1, -((y - rect.top) / rect.height) * 2 + 1);
    const ray = new scene.THREE.Raycaster();
    ray.setFromCamera(ndc, scene.camera);
    const hits = ray.intersectObjects(ghosts.flatMap((g) => [g.slab, g.rim]), false);
    const under = new Map(); // slot -> {ghost, depth, off}
    for (const hit of hits) {
      const ghost = hit.object.userData.ghost;
      if (under.has(ghost.slot)) continue;
      const middle = toScreen(ghost.group.position.toArray());
      under.set(ghost.slot, { ghost, depth: hit.distance, off: Math.hypot(middle.x - x, middle.y - y) });
    }
    return [...under.values()].sort((a, b) => a.off - b.off || a.depth - b.depth).map((u) => u.ghost);
  }
  // What a click at (x, y) picks: the first ghost there; clicked again at about the same spot,
  // the ghost after the one picked, round and round: every ghost the pointer lies over is reached.
  let lastClick = null;
  const SAME_SPOT = 8; // pixels
  function clickTarget(x, y) {
    const under = ghostsAt(x, y);
    if (!under.length) return null;
    const again = lastClick && Math.hypot(x - lastClick.x, y - lastClick.y) <= SAME_SPOT;
    const i = again && selected ? under.findIndex((g) => g.slot === selected.slot) : -1;
    return i >= 0 ? under[(i + 1) % under.length] : under[0];
  }
  // Where each ghost's middle is drawn (client pixels), for tests: `front` when a first click
  // there picks it, `hidden` when another ghost is drawn in front of its middle.
  root.ghostPoints = () => ghosts.map((g) => {
    const { x, y } = toScreen(g.group.position.toArray());
    const under = ghostsAt(x, y);
    const nearest = [...under].sort((a, b) => depthOf(a) - depthOf(b))[0];
    return { slot: g.slot, move: g.move, colour: "#" + g.rim.material.color.getHexString(), x, y,
             front: under[0] === g, hidden: !!nearest && nearest !== g,
             picked: !!selected && selected.slot === g.slot, lifted: hovered === g.slot,
             slab: { vertexColors: g.slab.material.vertexColors, opacity: g.slab.material.opacity,
                     colours: !!g.slab.geometry.getAttribute("color") } };
  });
  const depthOf = (g) => g.group.position.distanceTo(scene.camera.position);
  // Client pixels of world points, for tests (the tower's frame box on the screen).
  root.screenPoints = (points) => (scene ? points.map(toScreen) : []);

  const say = el("p", "offscreen twr-say");
  say.setAttribute("aria-live", "polite");
  panel.append(say);
  function pick(slot, move) {
    selected = { slot, move };
    const d = (msg.details || {})[move];
    const turn = /r(\d)$/.exec(move);
    say.textContent = `picked ${slotName(slot)}${turn ? `, turned ${turn[1]} quarter${turn[1] === "1" ? "" : "s"}` : ""}`
      + (judged(d) ? `: ${describe("", d).replace(/^: /, "")}` : "");
    drawPanel();
    drawScene();
  }
  function setHovered(ghost) {
    const slot = ghost ? ghost.slot : null;
    stage.style.cursor = ghost ? "pointer" : "";
    if (slot === hovered) return;
    hovered = slot;
    stage.title = ghost ? describe(ghost.move, (msg.details || {})[ghost.move]) : "";
    root.dataset.hovered = slot || "";
    if (scene && msg) { styleGhosts(); scene.render(); }
  }
  // A tap or click (little movement between down and up) picks; a drag turns the camera.
  let down = null;
  stage.addEventListener("pointerdown", (e) => { down = { x: e.clientX, y: e.clientY }; });
  stage.addEventListener("pointerup", (e) => {
    if (!down || Math.hypot(e.clientX - down.x, e.clientY - down.y) > 6) return;
    const hit = clickTarget(e.clientX, e.clientY);
    if (!hit) return;
    lastClick = { x: e.clientX, y: e.clientY };
    pick(hit.slot, hit.move);
    setHovered(clickTarget(e.clientX, e.clientY)); // the next click here: lit at once
  });
  stage.addEventListener("pointermove", (e) => {
    if (e.buttons) return; // turning the camera
    setHovered(clickTarget(e.clientX, e.clientY));
  });
  stage.addEventListener("pointerleave", () => setHovered(null));
  // Two quick clicks on ghosts step through them: not the scene's double click (whole tower).
  stage.addEventListener("dblclick", (e) => {
    if (ghostsAt(e.clientX, e.clientY).length) e.stopPropagation();
  }, { capture: true });
  // Keys (with the tower focused): n / p pick the next or previous placement in the list's order,
  // r / R turn the picked tile (legal turns only), Enter places it, Escape drops the pick.
  root.tabIndex = 0;
  // Turn the picked tile `step` legal turns on (only the turns that are legal and look different).
  function turn(step) {
    if (!selected || !msg) return;
    const options = listedOf(msg).slots.get(selected.slot) || [];
    const i = options.findIndex((o) => o.move === selected.move);
    const next = options[(((i + step) % options.length) + options.length) % options.length];
    if (next) pick(selected.slot, next.move);
  }
  function step(by) {
    const slots = orderedSlots();
    if (!slots.length) return;
    const i = selected ? slots.findIndex(([slot]) => slot === selected.slot) : -1;
    const at = i < 0 ? (by > 0 ? 0 : slots.length - 1) : (((i + by) % slots.length) + slots.length) % slots.length;
    const [slot, options] = slots[at];
    pick(slot, options[0].move);
  }
  root.addEventListener("keydown", (e) => {
    if (!msg || !myTurnNow() || e.ctrlKey || e.metaKey || e.altKey) return;
    const tag = e.target && e.target.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
    if (e.key === "n" || e.key === "p") {
      step(e.key === "n" ? 1 : -1);
      e.preventDefault();
      return;
    }
    if (!selected) return;
    if (e.key === "r" || e.key === "R") {
      turn(e.key === "r" ? 1 : -1);
      e.preventDefault();
    } else if (e.key === "Enter" && (e.target === root || !e.target.closest("button, a"))) {
      ctx.sendMove(selected.move);
      e.preventDefault();
    } else if (e.key === "Escape") {
      selected = null;
      say.textContent = "no placement picked";
      drawPanel();
      drawScene();
    }
  });
  // Shift + wheel turns the picked tile (the wheel alone zooms): caught before the camera's controls.
  stage.addEventListener("wheel", (e) => {
    if (!selected || !e.shiftKey) return;
    e.preventDefault();
    e.stopPropagation();
    const delta = e.deltaY || e.deltaX; // some systems turn a shifted wheel into a sideways one
    if (delta) turn(delta > 0 ? 1 : -1);
  }, { capture: true, passive: false });

  function play(traj, box, move) {
    if (!traj || !traj.frames || !traj.frames.length) return;
    const hz = (traj.hz || 30) * (ctx.speed ? ctx.speed() : 1);
    anim = { frames: traj.frames, frame: 0, t0: performance.now(), box, move };
    root.dataset.animating = "1";
    root.dataset.releases = String(Number(root.dataset.releases || 0) + 1); // releases played here
    const step = () => {
      if (!anim) return;
      anim.frame = Math.floor(((performance.now() - anim.t0) / 1000) * hz);
      if (anim.frame >= anim.frames.length) { anim = null; root.dataset.animating = "0"; drawScene(); return; }
      drawScene();
      setTimeout(step, 1000 / Math.min(60, hz * 2));
    };
    step();
  }

  // --- the panel -------------------------------------------------------------------------
  // A tile's two face patterns from the tile set the view carries: {white, black}.
  const tileFaces = (view, tileId) => {
    const tiles = ((view.options || {}).tile_set || {}).tiles || [];
    const tile = tiles.find((t) => t.id === tileId);
    return tile ? { white: String(tile.white), black: String(tile.black) } : {};
  };
  // The top of a stack as far as this seat may know it: the tile in hand for the player to
  // move, your own top tile (your face up), nothing for another player's hidden stack.
  const topTileCell = (view, p, current) => {
    const cell = el("td", "twr-top");
    const held = view.tile_in_hand;
    let tileId = null, face = faceOfSeat(p);
    if (held && p === current && !msg.over) { tileId = held.tile; face = held.face; }
    else if (p === ctx.seat && view.my_stack && view.my_stack.length) tileId = view.my_stack[0];
    const pattern = tileId === null ? undefined : tileFaces(view, tileId)[face];
    if (pattern === undefined) { cell.appendChild(el("span", "dim", (view.stack_sizes || [])[p] ? "hidden" : "-")); return cell; }
    cell.dataset.tile = String(tileId);
    cell.appendChild(faceIcon(face, pattern, 22));
    cell.appendChild(el("span", "", ` ${tileId}`));
    return cell;
  };
  const faceOfSeat = (p) => (p % 2 === 0 ? "white" : "black");

  function drawPanel() {
    const view = msg.view;
    const myTurn = ctx.seat !== null && ctx.seat !== undefined && msg.to_move === ctx.seat && !msg.over;
    const { slots, pass } = groupLegal(msg.listed && msg.listed.length ? msg.listed : msg.legal);
    const current = view.current_player;
    if (msg.over) prompt.textContent = "Game over.";
    else if (myTurn) prompt.textContent = slots.size ? "Your turn: pick where your tile goes and how it is turned."
      : "Your turn: your tile fits nowhere; it goes to the bottom of your stack.";
    else if (current !== null && current !== undefined) prompt.textContent = `To place: ${ctx.seatLabel(current)}.`;
    else prompt.textContent = "Waiting.";
    prompt.classList.toggle("mine", myTurn);

    hand.replaceChildren();
    const held = view.tile_in_hand;
    if (held && !msg.over) {
      const mine = current === ctx.seat;
      hand.appendChild(el("div", "dim", mine ? "your tile, in hand" : `${ctx.seatLabel(current)}'s tile, in hand`));
      // Both faces, as a person holding the tile sees them: the one that shows once placed,
      // and the other side (turned over about its vertical axis).
      const row = el("div", "twr-row twr-faces");
      const other = held.face === "white" ? "black" : "white";
      const underneath = tileFaces(view, held.tile)[other];
      const face = (name, pattern, caption) => {
        const box = el("figure", "twr-face");
        box.dataset.face = name;
        box.appendChild(faceIcon(name, pattern, 64));
        box.appendChild(el("figcaption", "", caption));
        return box;
      };
      row.appendChild(face(held.face, held.visible_pattern, `${held.face}: shows`));
      if (underneath !== undefined) row.appendChild(face(other, underneath, `${other}: hidden side`));
      hand.appendChild(row);
      hand.appendChild(el("div", "help", `tile ${held.tile}; strokes on edges ${held.visible_pattern} `
        + "(top, right, bottom, left); a turn carries them round"));
    }

    moves.replaceChildren();
    if (myTurn) {
      const details = msg.details || {};
      const ordered = orderedSlots(); // safest first
      const withFigures = Object.values(details).some(judged);
      moves.appendChild(el("h3", "", withFigures ? "Placements, safest first" : "Placements"));
      if (slots.size) {
        moves.appendChild(el("p", "help twr-pick-help", "Click or tap a ghost to pick it: the one whose middle is "
          + "nearest (lit under the pointer). Again at the same spot: the next ghost there, so one hidden behind "
          + "another is reached. n / p: the next or previous in this list."));
      }
      if (selected && !slots.has(selected.slot)) selected = null;
      if (selected) {
        const bar = el("div", "twr-chosen");
        bar.appendChild(el("span", "", describe(selected.move, details[selected.move])));
        const place = el("button", "primary", `Place ${selected.move}`);
        place.type = "button";
        place.dataset.place = selected.move;
        place.addEventListener("click", () => ctx.sendMove(selected.move));
        bar.appendChild(place);
        bar.appendChild(el("div", "help", "r or Shift + wheel turns the tile, Enter places it, Esc lets go"));
        moves.appendChild(bar);
      }
      const list = el("ul", "twr-slots");
      for (const [slot, options] of ordered) {
        const item = el("li", "twr-slot" + (selected && selected.slot === slot ? " picked" : ""));
        item.dataset.slot = slot;
        const label = el("div", "twr-slot-name");
        const d = details[options[0].move];
        if (judged(d)) {
          const dot = el("span", "twr-risk");
          dot.style.background = riskColour(riskOf(d));
          label.appendChild(dot);
        }
        label.append(el("strong", "", slot), ` ${slotName(slot)}`);
        if (judged(d)) label.appendChild(el("span", "dim", ` · ${describe("", d).replace(/^: /, "")}`));
        item.appendChild(label);
        const buttons = el("div", "twr-row");
        for (const { rotation, move } of options) {
          const b = el("button", "twr-turn");
          b.type = "button";
          b.dataset.move = move;
          b.setAttribute("aria-label", `pick ${slot} (${slotName(slot)}) turned r${rotation}`);
          b.title = `${move}: turned ${rotation} quarter${rotation === 1 ? "" : "s"} clockwise`;
          if (held) b.appendChild(faceIcon(held.face, turned(held.visible_pattern, rotation), 28));
          b.appendChild(el("span", "", `r${rotation}`));
          b.addEventListener("click", () => pick(slot, move));
          buttons.appendChild(b);
        }
        item.appendChild(buttons);
        list.appendChild(item);
      }
      moves.appendChild(list);
      if (pass) {
        const b = el("button", "primary", "Pass (tile to the bottom of the stack)");
        b.type = "button";
        b.dataset.move = "pass";
        b.addEventListener("click", () => ctx.sendMove("pass"));
        moves.appendChild(b);
      }
    }

    const table = el("table", "twr-stacks");
    const head = el("tr");
    for (const h of ["player", "face", "stack", "top tile"]) head.appendChild(el("th", "", h));
    table.appendChild(head);
    (view.stack_sizes || []).forEach((size, p) => {
      const row = el("tr", p === current && !msg.over ? "to-move" : "");
      row.dataset.player = String(p);
      const skip = (view.skip_next || [])[p] ? " (skips a turn)" : "";
      row.appendChild(el("td", "", `${ctx.seatLabel(p)}${p === ctx.seat ? " (you)" : ""}${skip}`));
      const face = el("td", "");
      const sw = el("span", `swatch ${faceOfSeat(p)}`);
      face.append(sw, faceOfSeat(p));
      row.appendChild(face);
      row.appendChild(el("td", "num", `${size} tile${size === 1 ? "" : "s"}`));
      row.appendChild(topTileCell(view, p, current));
      table.appendChild(row);
    });
    players.replaceChildren(table);
    const placed = (view.placements || []).length;
    facts.replaceChildren(
      el("div", "", `${placed} tile${placed === 1 ? "" : "s"} placed, height ${Number(view.height_mm || 0).toFixed(1)} mm, `
        + `${view.floors || 0} floor${view.floors === 1 ? "" : "s"} (floor ${view.open_floor} open)`),
      el("div", "help", "the 3D view: drag to turn, wheel or pinch to zoom, right-drag to pan; "
        + "'whole tower' (w) or 'follow the top' (t) hands the camera back"),
    );
    if (sceneError) facts.appendChild(el("div", "help", `no 3D view: ${sceneError.message}`));
  }

  return {
    update(stateMsg) {
      if (msg && msg.view.tile_in_hand) handTile = msg.view.tile_in_hand.tile;
      if (!msg || stateMsg.moves !== msg.moves) { selected = null; lastClick = null; hovered = null; }
      // a state other than the one the release playing leads to (a replay sought elsewhere)
      if (anim && stateMsg.moves !== anim.move + 1) { anim = null; root.dataset.animating = "0"; }
      msg = stateMsg;
      drawPanel();
      if (!anim) drawScene();
      root.dataset.moves = String(stateMsg.moves);
    },
    trajectory(trajMsg) {
      if (msg && msg.view.tile_in_hand) handTile = msg.view.tile_in_hand.tile;
      if (scene) play(trajMsg.trajectory, trajMsg.frame_box, trajMsg.move);
    },
    // Where the camera is going (the eased camera ends there): for tests.
    framing() {
      if (!scene) return null;
      return { following: scene.view() !== "free", view: scene.view(), fov: scene.camera.fov,
               aspect: scene.camera.aspect, box: JSON.parse(lastBox || "null"), ...scene.goal() };
    },
  };
}
