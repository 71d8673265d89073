// The tower's three.js scene, shared by the replay page (replay.js) and the play page
// (serve/tower.js): the renderer, lights, table, the tile meshes (built here from each tile's
// two face patterns; a placement's ghost from the face it will show), one per tile posed from
// [x, y, z, qx, qy, qz, qw] (z up, metres), the camera following the box Python's framing rule
// gives (whole tower or its top), drawing on demand.

import { OrbitControls, THREE } from "./three.bundle.js";

// sRGB 0-255 to the linear values three.js shades with.
export const srgbToLinear = (c) => { c /= 255; return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4); };

// Tile look, as pisa3d/games/tower/presentation/meshes.py draws it for the viewer and the replay page.
const FACE_RGB = { white: [236, 228, 210], black: [38, 34, 32] };
const STROKE_RGB = { white: [160, 30, 30], black: [222, 178, 60] };
const EDGE_RGB = [176, 132, 84];
const STROKE_WIDTH = 0.18; // of the tile side
const DECAL_THICKNESS = 0.0002; // metres
// Local direction of each position (top, right, bottom, left) as seen looking at each face:
// the black face (local -z) is the white one's mirror image.
const DIRECTIONS = { white: [[0, 1], [1, 0], [0, -1], [-1, 0]], black: [[0, 1], [-1, 0], [0, -1], [1, 0]] };

// An axis-aligned box as 12 unindexed triangles, each corner with its colour (rgbOf(normal)).
function pushBox(out, centre, extents, rgbOf) {
  const [cx, cy, cz] = centre;
  const h = extents.map((e) => e / 2);
  for (let axis = 0; axis < 3; axis++) {
    for (const sign of [1, -1]) {
      const normal = [0, 0, 0];
      normal[axis] = sign;
      const u = (axis + 1) % 3, v = (axis + 2) % 3;
      const corner = (a, b) => {
        const p = [cx, cy, cz];
        p[axis] += sign * h[axis];
        p[u] += a * h[u];
        p[v] += b * h[v];
        return p;
      };
      // counter-clockwise seen from outside the box
      const quad = sign > 0 ? [[-1, -1], [1, -1], [1, 1], [-1, 1]] : [[-1, -1], [-1, 1], [1, 1], [1, -1]];
      const rgb = rgbOf(normal).map(srgbToLinear);
      for (const k of [0, 1, 2, 0, 2, 3]) {
        out.positions.push(...corner(...quad[k]));
        out.colors.push(...rgb);
      }
    }
  }
}

function toGeometry(out) {
  const g = new THREE.BufferGeometry();
  g.setAttribute("position", new THREE.Float32BufferAttribute(out.positions, 3));
  g.setAttribute("color", new THREE.Float32BufferAttribute(out.colors, 3));
  g.computeVertexNormals();
  return g;
}

// A face's strokes ("0110": top, right, bottom, left stroked or blank) as thin raised boxes on
// that face of a tile in its local frame (white at +z, black at -z, both top edges at +y).
function pushStrokes(out, face, pattern, side, thickness) {
  const z = (face === "white" ? 1 : -1) * (thickness / 2 + DECAL_THICKNESS / 2);
  const width = STROKE_WIDTH * side, length = side / 2;
  const rgb = () => STROKE_RGB[face];
  pushBox(out, [0, 0, z], [width, width, DECAL_THICKNESS], rgb);
  String(pattern).split("").forEach((bit, position) => {
    if (bit !== "1") return;
    const [dx, dy] = DIRECTIONS[face][position];
    pushBox(out, [(dx * length) / 2, (dy * length) / 2, z],
      [Math.abs(dx) * length + Math.abs(dy) * width, Math.abs(dy) * length + Math.abs(dx) * width, DECAL_THICKNESS],
      rgb);
  });
}

// A tile in its local frame (white face at +z, both faces' top edge at +y), its two faces'
// patterns drawn as thin raised strokes.
export function tileGeometry(white, black, side, thickness) {
  const out = { positions: [], colors: [] };
  pushBox(out, [0, 0, 0], [side, side, thickness],
    (n) => (n[2] > 0 ? FACE_RGB.white : n[2] < 0 ? FACE_RGB.black : EDGE_RGB));
  pushStrokes(out, "white", white, side, thickness);
  pushStrokes(out, "black", black, side, thickness);
  return toGeometry(out);
}

// A placement's ghost: the tile as it will show, in the same local frame as tileGeometry, but
// only the face that will be seen (`face`, with its strokes `pattern`) and both sides in that
// face's colour: drawn see-through, its strokes then read the same from in front and behind.
export function ghostGeometry(face, pattern, side, thickness) {
  const out = { positions: [], colors: [] };
  pushBox(out, [0, 0, 0], [side, side, thickness], (n) => (n[2] !== 0 ? FACE_RGB[face] : EDGE_RGB));
  pushStrokes(out, face, pattern, side, thickness);
  return toGeometry(out);
}

// A frame `width` wide around a tile's edges, a little thicker than the tile (a ghost's safety
// colour, kept off the face so the strokes keep their own colours).
export function rimGeometry(side, thickness, width) {
  const out = { positions: [], colors: [] };
  const white = () => [255, 255, 255];
  const depth = thickness * 1.6, reach = (side + width) / 2, long = side + 2 * width;
  pushBox(out, [0, reach, 0], [long, width, depth], white);
  pushBox(out, [0, -reach, 0], [long, width, depth], white);
  pushBox(out, [reach, 0, 0], [width, side, depth], white);
  pushBox(out, [-reach, 0, 0], [width, side, depth], white);
  return toGeometry(out);
}

// The scene in `stage`. geometryOf(k) gives tile k's geometry (null: a plain box).
export function create(stage, options) {
  const extents = options.tileExtents || [0.06, 0.06, 0.004];
  const side = Math.max(...extents);
  const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(window.devicePixelRatio || 1);
  stage.appendChild(renderer.domElement);
  const world = new THREE.Scene();
  world.background = new THREE.Color(0x2b3038);
  const camera = new THREE.PerspectiveCamera(40, 1, 0.005, 20);
  camera.up.set(0, 0, 1); // the game's z points up
  world.add(new THREE.HemisphereLight(0xffffff, 0x404050, 1.6));
  const sun = new THREE.DirectionalLight(0xffffff, 1.6);
  sun.position.set(0.4, -0.6, 1.0);
  world.add(sun);
  const table = new THREE.Mesh(
    new THREE.BoxGeometry(side * 8, side * 8, 0.01),
    new THREE.MeshStandardMaterial({ color: 0x7a5a3a, roughness: 0.9 })
  );
  table.position.set(0, 0, -0.005);
  world.add(table);

  const fallback = new THREE.BoxGeometry(...extents);
  const colored = new THREE.MeshStandardMaterial({ vertexColors: true, roughness: 0.7, flatShading: true });
  const plain = new THREE.MeshStandardMaterial({ color: 0xd8c09a, roughness: 0.7 });
  // The tile just placed glows faintly, so a glance shows what the last move did.
  const marked = new THREE.MeshStandardMaterial({ vertexColors: true, roughness: 0.7, flatShading: true,
    emissive: 0x5a3c00 });
  let markedTile = -1;
  let geometryOf = options.geometryOf || (() => null);
  const tileMeshes = [];
  const tileMesh = (k) => {
    while (tileMeshes.length <= k) {
      const geometry = geometryOf(tileMeshes.length);
      const mesh = geometry ? new THREE.Mesh(geometry, colored) : new THREE.Mesh(fallback, plain);
      mesh.visible = false;
      world.add(mesh);
      tileMeshes.push(mesh);
    }
    return tileMeshes[k];
  };
  // Tile k shows the geometry geometryOf(k) gives now (a live game learns tile ids as it goes).
  const refreshTile = (k) => {
    const geometry = geometryOf(k);
    const mesh = tileMesh(k);
    mesh.geometry = geometry || fallback;
    mesh.material = geometry ? (k === markedTile ? marked : colored) : plain;
  };
  // Mark tile k (-1: none); takes effect at the tile's next refreshTile.
  const mark = (k) => { markedTile = k; };
  const pose = (frame) => {
    frame.forEach((p, k) => {
      const m = tileMesh(k);
      m.visible = true;
      m.position.set(p[0], p[1], p[2]);
      m.quaternion.set(p[3], p[4], p[5], p[6]);
    });
    for (let k = frame.length; k < tileMeshes.length; k++) tileMeshes[k].visible = false;
  };

  const controls = new OrbitControls(camera, renderer.domElement);
  // The camera framing a box [lo, hi]: its bounding sphere fits the 40 degree view (or the
  // narrower width of a tall, thin view), seen from the south-east (`look`: the direction
  // from the box to the camera).
  const framingOf = (lo, hi, look = [0.8, -1.1, 0.5]) => {
    const centre = lo.map((v, a) => (v + hi[a]) / 2);
    const radius = Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]) / 2;
    const half = (camera.fov / 2) * Math.PI / 180;
    const narrowest = Math.min(half, Math.atan(Math.tan(half) * Math.min(1, camera.aspect)));
    const dist = (radius / Math.sin(narrowest)) * 1.05;
    const norm = Math.hypot(...look);
    return { target: centre, position: centre.map((v, a) => v + (look[a] / norm) * dist) };
  };
  let placing = false; // the camera moved by the page, not by a person
  const place = (f) => {
    placing = true;
    controls.target.set(...f.target);
    camera.position.set(...f.position);
    controls.update();
    placing = false;
  };
  const frameBox = (lo, hi) => place(framingOf(lo, hi));

  // --- following the box the page is given (Python's one framing rule, pisa3d.games.tower.presentation.framing)
  // in one of two views: "tower", the whole box, or "top", its top floors from higher up and
  // closer (where the next tile goes); the camera eases to each new box. Turning, zooming or
  // panning by hand makes the view "free" until a view is chosen again (buttons, keys t / w,
  // or a double click for the whole tower).
  const TOP_DEPTH = 1.6; // tile sides of the box's top that the top view frames
  let box = null, view = "tower", easing = null;
  const viewListeners = [];
  const goal = () => {
    const [lo, hi] = box;
    if (view !== "top") return framingOf(lo, hi);
    return framingOf([lo[0], lo[1], Math.max(lo[2], hi[2] - TOP_DEPTH * side)], hi, [0.55, -0.75, 1.1]);
  };
  // The ease heads for `easeGoal`, which a resize may move mid-way (a thinner view needs the
  // camera further): so the camera always ends where the rule frames the box in the final view.
  // `data-easing` tells tests (and anyone waiting for a still picture) that it is under way.
  let easeGoal = null;
  const endEase = () => { easing = null; delete stage.dataset.easing; };
  const easeTo = (to, instant) => {
    if (instant) { endEase(); place(to); render(); return; }
    const from = { target: controls.target.toArray(), position: camera.position.toArray() };
    const began = performance.now();
    easeGoal = to;
    const step = () => {
      if (easing !== step) return;
      const t = Math.min(1, (performance.now() - began) / 400);
      const s = t * t * (3 - 2 * t);
      place({ target: from.target.map((v, a) => v + (easeGoal.target[a] - v) * s),
              position: from.position.map((v, a) => v + (easeGoal.position[a] - v) * s) });
      renderer.render(world, camera);
      if (t < 1) requestAnimationFrame(step); else endEase();
    };
    easing = step;
    stage.dataset.easing = "1";
    requestAnimationFrame(step);
  };
  // Frame [lo, hi] in the current view (instant for the first box, eased after).
  const follow = (lo, hi) => {
    const first = box === null;
    box = [lo, hi];
    if (view !== "free") easeTo(goal(), first);
  };
  const setView = (name) => {
    view = name;
    buttons.forEach((b) => {
      b.setAttribute("aria-pressed", String(b.dataset.view === name));
      b.style.outline = b.dataset.view === name ? "2px solid #e0a040" : ""; // the view in force
    });
    stage.dataset.view = name;
    if (name !== "free" && box) easeTo(goal(), false);
    viewListeners.forEach((fn) => fn(name));
  };
  // Only a camera a person moved is theirs: a click (a press without a drag, such as picking a
  // placement's ghost) leaves the view as it was.
  let handling = false;
  controls.addEventListener("start", () => { handling = true; });
  controls.addEventListener("end", () => { handling = false; });
  controls.addEventListener("change", () => {
    if (!handling || placing) return;
    endEase();
    if (view !== "free") setView("free");
  });
  renderer.domElement.addEventListener("dblclick", () => setView("tower"));
  const bar = document.createElement("div");
  bar.className = "pisa-views";
  bar.style.cssText = "position:absolute;left:8px;top:8px;z-index:3;display:flex;gap:4px;font-size:12px";
  const buttons = [["tower", "whole tower", "w"], ["top", "follow the top", "t"]].map(([name, label, key]) => {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = label;
    b.style.cssText = "font-size:12px;padding:3px 7px;white-space:nowrap";
    b.dataset.view = name;
    b.title = `${label} (key ${key}); drag to turn, wheel or pinch to zoom, right-drag to pan`;
    b.addEventListener("click", () => setView(name));
    bar.appendChild(b);
    return b;
  });
  stage.appendChild(bar);
  document.addEventListener("keydown", (e) => {
    const tag = e.target && e.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === "t") setView("top");
    else if (e.key === "w") setView("tower");
  });
  // Draw in an animation frame: a canvas drawn before the page's first layout can stay blank.
  let pending = false;
  const render = () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => { pending = false; renderer.render(world, camera); });
  };
  const resize = () => {
    const w = stage.clientWidth || 640, h = stage.clientHeight || 480;
    renderer.setSize(w, h, false);
    camera.aspect = w / h;
    camera.updateProjectionMatrix();
    if (box && view !== "free") {
      if (easing) easeGoal = goal(); // a thinner view needs the camera further: the ease heads there
      else place(goal());
    }
  };
  resize();
  // Follow the stage's real size: it settles only after the rest of the page is filled.
  if (window.ResizeObserver) new ResizeObserver(() => { resize(); render(); }).observe(stage);
  else window.addEventListener("resize", () => { resize(); render(); });
  controls.addEventListener("change", render);
  setView("tower");
  if (options.frameBox) follow(options.frameBox[0], options.frameBox[1]);

  return {
    THREE, world, camera, controls, renderer, render, pose, frameBox, framingOf, place, refreshTile, mark,
    follow, setView, view: () => view, goal: () => (box ? goal() : null),
    onView(fn) { viewListeners.push(fn); },
    setGeometryOf(fn) { geometryOf = fn; },
    tileCount() { return tileMeshes.length; },
  };
}
