// The tower of a study trial, drawn by the game's own scene (../tower_scene.js: the same tiles,
// faces, table and camera framing as the play and replay pages). One scene serves every trial (a
// page may hold only a few WebGL contexts): each trial poses its tiles in it. The new tile, at its
// release pose, glows and wears an orange rim. The camera either turns slowly round the trial's
// frame box ("orbit", one turn per orbit_seconds) or stays where the game's framing puts it
// ("fixed"); the person cannot move it, so everyone sees the same.

import { create, rimGeometry, tileGeometry } from "../tower_scene.js";

const LOOK = [0.8, -1.1, 0.5]; // the game's own view direction (tower_scene.js framingOf)
const RIM_WIDTH = 0.06; // of the tile side
const FRAME_MS = 33; // an orbit is drawn at about 30 frames a second: a software renderer keeps up

// The compass of "which way?" (N = +y, E = +x, as the study's labels count them): four letters on the
// table round the tower, always facing the camera, so they read from every side of an orbit.
function compassLetters(THREE, side, world) {
  const letters = {};
  for (const letter of ["N", "E", "S", "W"]) {
    const canvas = document.createElement("canvas");
    canvas.width = canvas.height = 64;
    const g = canvas.getContext("2d");
    g.fillStyle = "rgba(20, 22, 26, 0.75)";
    g.beginPath();
    g.arc(32, 32, 30, 0, 2 * Math.PI);
    g.fill();
    g.fillStyle = "#ffd27a";
    g.font = "bold 40px sans-serif";
    g.textAlign = "center";
    g.textBaseline = "middle";
    g.fillText(letter, 32, 34);
    const sprite = new THREE.Sprite(new THREE.SpriteMaterial({ map: new THREE.CanvasTexture(canvas) }));
    sprite.scale.set(0.45 * side, 0.45 * side, 1);
    world.add(sprite);
    letters[letter] = sprite;
  }
  return letters;
}

// Put the letters just outside the frame box's footprint; the box grown to hold them.
function placeCompass(letters, lo, hi, side) {
  const cx = (lo[0] + hi[0]) / 2, cy = (lo[1] + hi[1]) / 2;
  const rx = (hi[0] - lo[0]) / 2 + 0.5 * side, ry = (hi[1] - lo[1]) / 2 + 0.5 * side;
  const z = lo[2] + 0.25 * side;
  letters.N.position.set(cx, cy + ry, z);
  letters.S.position.set(cx, cy - ry, z);
  letters.E.position.set(cx + rx, cy, z);
  letters.W.position.set(cx - rx, cy, z);
  const pad = 0.25 * side;
  return [[cx - rx - pad, cy - ry - pad, lo[2]], [cx + rx + pad, cy + ry + pad, hi[2]]];
}

export class TowerView {
  constructor(tile, settings) {
    this.extents = (tile && tile.extents) || [0.06, 0.06, 0.004];
    this.settings = settings;
    this.stage = document.createElement("div");
    this.stage.className = "tower-stage";
    this.stage.dataset.testid = "tower";
    this.scene = null;
    this.geometries = [];
    this.turning = null;
  }

  // Put the stage into `parent` (each trial's page is new: the stage, with its canvas, moves along).
  attach(parent) {
    parent.appendChild(this.stage);
    if (this.scene) return;
    this.scene = create(this.stage, { tileExtents: this.extents });
    this.scene.setView("free"); // the page places the camera; no framing buttons or keys
    this.scene.controls.enabled = false;
    const side = Math.max(...this.extents), thickness = Math.min(...this.extents);
    const { THREE } = this.scene;
    this.rim = new THREE.Mesh(rimGeometry(side, thickness, RIM_WIDTH * side),
      new THREE.MeshBasicMaterial({ color: 0xff9a1a }));
    this.scene.world.add(this.rim);
    if (this.settings.ask_direction) this.compass = compassLetters(THREE, side, this.scene.world);
    // a fixed view is framed again when the stage changes size (a phone turned); an orbit frames every step
    if (window.ResizeObserver) {
      new ResizeObserver(() => {
        if (this.box && !this.turning) requestAnimationFrame(() => this.look(LOOK));
      }).observe(this.stage);
    }
  }

  // Draw a trial's scene: {tiles: [{pose, white, black}], new_tile, frame: [lo, hi]}.
  show(scene) {
    this.stop();
    const side = Math.max(...this.extents), thickness = Math.min(...this.extents);
    this.geometries.forEach((g) => g && g.dispose());
    this.geometries = scene.tiles.map((t) => tileGeometry(t.white || "0000", t.black || "0000", side, thickness));
    const s = this.scene;
    s.setGeometryOf((k) => this.geometries[k] || null);
    s.mark(scene.new_tile);
    s.pose(scene.tiles.map((t) => t.pose));
    scene.tiles.forEach((_, k) => s.refreshTile(k));
    const p = scene.tiles[scene.new_tile].pose;
    this.rim.position.set(p[0], p[1], p[2]);
    this.rim.quaternion.set(p[3], p[4], p[5], p[6]);
    let [lo, hi] = scene.frame;
    if (this.compass) [lo, hi] = placeCompass(this.compass, lo, hi, side);
    // the table under the tower is part of the picture: frame from the table up
    this.box = [lo, [hi[0], hi[1], Math.max(hi[2], lo[2] + side)]];
    this.stage.dataset.trialShown = String(Date.now());
    if (this.settings.view === "orbit") this.orbit();
    else this.look(LOOK);
  }

  look(direction) {
    this.scene.place(this.scene.framingOf(this.box[0], this.box[1], direction));
    this.scene.renderer.render(this.scene.world, this.scene.camera);
  }

  // Turn round the box: the view direction keeps the game's height and distance, its bearing turns.
  orbit() {
    const seconds = Math.max(1, Number(this.settings.orbit_seconds) || 6);
    const start = Math.atan2(LOOK[1], LOOK[0]), flat = Math.hypot(LOOK[0], LOOK[1]);
    const began = performance.now();
    let last = -Infinity;
    const step = (now) => {
      if (this.turning !== step) return;
      if (now - last >= FRAME_MS) {
        last = now;
        const angle = start + ((now - began) / 1000 / seconds) * 2 * Math.PI;
        this.look([flat * Math.cos(angle), flat * Math.sin(angle), LOOK[2]]);
      }
      requestAnimationFrame(step);
    };
    this.turning = step;
    this.look(LOOK);
    requestAnimationFrame(step);
  }

  stop() {
    this.turning = null;
  }
}
