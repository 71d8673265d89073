// The study's two jsPsych plugins: a page of text with buttons (consent, instructions, feedback,
// the end) and the 3D tower trial ("Will it fall?" on the study's scale, optionally which way).
// Both work by keyboard alone (1-7 answer, arrows say which way, Enter or Space moves on) and by
// touch (large buttons). A key held down from the page before never acts on the next one.

import { ParameterType } from "../jspsych.bundle.js";

const MOVE_ON = ["Enter", " "];
const KEY_DELAY_MS = 250; // a page's keys wake after this: a double press does not skip a page
const ARROWS = { ArrowUp: "N", ArrowRight: "E", ArrowDown: "S", ArrowLeft: "W" };
const DIRECTION_NAMES = { N: "north", E: "east", S: "south", W: "west" };

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

// Keys for one page: `handler(event)` from KEY_DELAY_MS on, never for a repeat; returns the remover.
function listenKeys(handler) {
  const since = performance.now() + KEY_DELAY_MS;
  const listener = (e) => {
    if (e.repeat || performance.now() < since || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.target && e.target.tagName === "BUTTON" && MOVE_ON.includes(e.key)) return; // the button's own click
    handler(e);
  };
  document.addEventListener("keydown", listener);
  return () => document.removeEventListener("keydown", listener);
}

// Runs `action` (a promise) while the page says so; on failure shows why and lets the person retry.
async function attempt(status, controls, action) {
  controls.forEach((c) => { c.disabled = true; });
  status.textContent = "Saving…";
  try {
    const result = await action();
    status.textContent = "";
    return { ok: true, result };
  } catch (error) {
    status.textContent = `${error.message} Try again.`;
    controls.forEach((c) => { c.disabled = false; });
    return { ok: false };
  }
}

export class PagePlugin {
  static info = {
    name: "pisa-page",
    version: "1.0.0",
    parameters: {
      // render(container): fills the page (may return a promise: the page waits for it)
      render: { type: ParameterType.FUNCTION },
      buttons: { type: ParameterType.STRING, array: true, default: ["Continue"] },
      // action(choice): a promise run before the page ends (a failure keeps the page, says why)
      action: { type: ParameterType.FUNCTION, default: null },
      name: { type: ParameterType.STRING, default: "page" },
    },
    data: { choice: { type: ParameterType.INT } },
  };

  constructor(jsPsych) {
    this.jsPsych = jsPsych;
  }

  trial(display, trial) {
    const page = el("section", "study-page");
    page.dataset.page = trial.name;
    const body = el("div", "study-text");
    const row = el("div", "study-buttons");
    const status = el("p", "study-status");
    status.setAttribute("role", "status");
    const keys = el("p", "study-keys", trial.buttons.length ? `Enter or Space: “${trial.buttons[0]}”` : "");
    page.append(body, row, keys, status);
    display.replaceChildren(page);
    const buttons = trial.buttons.map((label, k) => {
      const b = el("button", k === 0 ? "study-btn primary" : "study-btn", label);
      b.type = "button";
      b.dataset.choice = String(k);
      b.addEventListener("click", () => choose(k));
      row.appendChild(b);
      return b;
    });
    let stopKeys = () => {};
    let done = false;
    const choose = async (k) => {
      if (done) return;
      if (trial.action) {
        const outcome = await attempt(status, buttons, () => trial.action(k));
        if (!outcome.ok) return;
      }
      done = true;
      stopKeys();
      this.jsPsych.finishTrial({ choice: k });
    };
    Promise.resolve(trial.render(body)).then(() => {
      if (buttons.length) stopKeys = listenKeys((e) => { if (MOVE_ON.includes(e.key)) { e.preventDefault(); choose(0); } });
    }, (error) => { status.textContent = `${error.message}`; });
  }
}

// The rating buttons: 1..7, the scale's labels under their numbers.
function ratingRow(settings, onPick) {
  const [low, high] = settings.scale;
  const row = el("div", "rating-row");
  row.setAttribute("role", "group");
  row.setAttribute("aria-label", "your rating");
  const buttons = [];
  for (let r = low; r <= high; r++) {
    const cell = el("div", "rating-cell");
    const b = el("button", "rating", String(r));
    b.type = "button";
    b.dataset.rating = String(r);
    b.setAttribute("aria-pressed", "false");
    b.addEventListener("click", () => onPick(r));
    cell.appendChild(b);
    const label = (settings.scale_labels || {})[String(r)];
    if (label) cell.appendChild(el("span", "rating-label", label));
    row.appendChild(cell);
    buttons.push(b);
  }
  return { row, buttons };
}

function directionRow(onPick) {
  const row = el("div", "direction-row");
  const ask = el("span", "direction-ask", "Which way would it fall? ");
  ask.appendChild(el("span", "study-keys-inline", "(arrow keys)"));
  row.appendChild(ask);
  const buttons = Object.entries(DIRECTION_NAMES).map(([d, name]) => {
    const b = el("button", "direction", d);
    b.type = "button";
    b.title = name;
    b.dataset.direction = d;
    b.setAttribute("aria-pressed", "false");
    b.addEventListener("click", () => onPick(d));
    row.appendChild(b);
    return b;
  });
  return { row, buttons };
}

export class TowerTrialPlugin {
  static info = {
    name: "pisa-tower",
    version: "1.0.0",
    parameters: {
      trial: { type: ParameterType.OBJECT }, // {trial, kind, scene} as GET /api/session gives it
      position: { type: ParameterType.STRING, default: "" }, // "Tower 3 of 12"
      settings: { type: ParameterType.OBJECT },
      // show(container, scene) draws the trial's tower in container; hide() stops its drawing. Functions,
      // not the view itself: jsPsych deep-copies object parameters, and a three.js scene loops on itself.
      show: { type: ParameterType.FUNCTION },
      hide: { type: ParameterType.FUNCTION },
      save: { type: ParameterType.FUNCTION }, // save(answer) -> the server's answer ({feedback})
    },
    data: {
      trial: { type: ParameterType.STRING },
      rating: { type: ParameterType.INT },
      direction: { type: ParameterType.STRING },
      rt_ms: { type: ParameterType.INT },
      feedback: { type: ParameterType.OBJECT },
    },
  };

  constructor(jsPsych) {
    this.jsPsych = jsPsych;
  }

  trial(display, trial) {
    const settings = trial.settings;
    const page = el("section", "study-trial");
    page.dataset.trial = trial.trial.trial;
    page.dataset.kind = trial.trial.kind;
    const head = el("div", "trial-head");
    head.append(el("span", "trial-position", trial.position),
      el("h2", "trial-question", "Will it fall?"));
    const stageBox = el("div", "stage-box");
    const hint = el("p", "trial-hint", "The new tile has the orange rim. Choose 1–7, then Enter, Space or Next.");
    const answer = { rating: null, direction: null };
    const pick = () => {
      rating.buttons.forEach((b) => b.setAttribute("aria-pressed", String(Number(b.dataset.rating) === answer.rating)));
      if (direction) direction.buttons.forEach((b) => b.setAttribute("aria-pressed", String(b.dataset.direction === answer.direction)));
      next.disabled = !(answer.rating !== null && (!direction || answer.direction !== null));
    };
    // a choice made by click or touch hands the focus to Next, so Enter or Space then moves on
    const focusNext = () => { if (!next.disabled) next.focus(); };
    const rating = ratingRow(settings, (r) => { answer.rating = r; pick(); focusNext(); });
    const direction = settings.ask_direction ? directionRow((d) => { answer.direction = d; pick(); focusNext(); }) : null;
    const next = el("button", "study-btn primary next", "Next");
    next.type = "button";
    next.disabled = true;
    const status = el("p", "study-status");
    status.setAttribute("role", "status");
    const controls = el("div", "trial-controls");
    controls.append(rating.row, ...(direction ? [direction.row] : []), next, status);
    page.append(head, stageBox, hint, controls);
    display.replaceChildren(page);
    trial.show(stageBox, trial.trial.scene);
    const shown = performance.now();
    let stopKeys = () => {};
    const submit = async () => {
      if (next.disabled) return;
      const rt_ms = Math.min(3600000, Math.round(performance.now() - shown));
      const body = { trial: trial.trial.trial, rating: answer.rating, direction: answer.direction, rt_ms };
      const all = [...rating.buttons, ...(direction ? direction.buttons : []), next];
      const outcome = await attempt(status, all, () => trial.save(body));
      if (!outcome.ok) return;
      stopKeys();
      trial.hide();
      this.jsPsych.finishTrial({ ...body, feedback: outcome.result ? outcome.result.feedback : null });
    };
    next.addEventListener("click", submit);
    stopKeys = listenKeys((e) => {
      const [low, high] = settings.scale;
      const digit = Number(e.key);
      if (e.key.length === 1 && Number.isInteger(digit) && digit >= low && digit <= high) {
        answer.rating = digit;
        pick();
      } else if (direction && ARROWS[e.key]) {
        e.preventDefault();
        answer.direction = ARROWS[e.key];
        pick();
      } else if (MOVE_ON.includes(e.key)) {
        e.preventDefault();
        submit();
      }
    });
  }
}
