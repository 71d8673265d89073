// The "Will it fall?" study page: consent, instructions, practice (each answer followed by what the
// tower did), the trials, and the end (the debrief). A jsPsych timeline of the study's own plugins
// (plugins.js), fed by a backend: the study server's HTTP API (online.js) or the one-file offline
// page's own store (offline.js). The page resumes where the participant left off: the backend's
// session lists the trials already answered, which are skipped. "Withdraw" is always in the bar.

import { initJsPsych } from "../jspsych.bundle.js";
import { PagePlugin, TowerTrialPlugin } from "./plugins.js";
import { TowerView } from "./view.js";

// Markdown as the study shows it: plain paragraphs, "#" lines as headings, "- " lines as a list,
// **bold** and __marks__ dropped. Always as text, never as HTML: a study's texts cannot script the page.
const plain = (line) => line.replace(/\*\*|__/g, "").trim();

export function paragraphs(markdown, container) {
  for (const block of String(markdown || "").split(/\n\s*\n/)) {
    const lines = block.split("\n").map((line) => line.trim()).filter(Boolean);
    if (!lines.length) continue;
    if (lines.every((line) => /^[-*]\s+/.test(line))) {
      const list = document.createElement("ul");
      for (const line of lines) {
        const item = document.createElement("li");
        item.textContent = plain(line.replace(/^[-*]\s+/, ""));
        list.appendChild(item);
      }
      container.appendChild(list);
      continue;
    }
    const heading = /^#{1,6}\s+/.test(lines[0]);
    const node = document.createElement(heading ? "h2" : "p");
    node.textContent = plain(lines.join(" ").replace(/^#{1,6}\s+/, ""));
    container.appendChild(node);
  }
}

function text(container, ...lines) {
  lines.forEach((line, k) => {
    const node = document.createElement(k === 0 ? "h2" : "p");
    node.textContent = line;
    container.appendChild(node);
  });
}

function para(container, line) {
  const node = document.createElement("p");
  node.textContent = line;
  container.appendChild(node);
}

function consentStep(session, backend, state) {
  return {
    type: PagePlugin,
    name: "consent",
    render: (box) => paragraphs(session.consent_md, box),
    buttons: ["I agree", "I do not agree"],
    action: async (choice) => {
      if (choice === 0) await backend.consent();
      else { await backend.withdraw(); state.ended = "declined"; }
    },
    on_finish: () => { if (state.ended) state.jsPsych.abortExperiment(); },
  };
}

function towerStep(trial, k, total, session, backend, view) {
  return {
    type: TowerTrialPlugin,
    trial,
    position: `${trial.kind === "practice" ? "Practice tower" : "Tower"} ${k + 1} of ${total}`,
    settings: session.settings,
    show: (container, scene) => { view.attach(container); view.show(scene); },
    hide: () => view.stop(),
    save: (answer) => backend.respond(answer),
  };
}

function feedbackStep(jsPsych) {
  return {
    type: PagePlugin,
    name: "feedback",
    render: (box) => {
      const last = jsPsych.data.get().last(1).values()[0] || {};
      const fell = last.feedback && last.feedback.fell;
      text(box, fell ? "It fell." : "It stood.",
        `When the new tile was let go, the tower ${fell ? "fell" : "stood"}. You answered ${last.rating}.`);
      box.dataset.fell = String(Boolean(fell));
    },
  };
}

function endStep(backend) {
  return {
    type: PagePlugin,
    name: "end",
    buttons: [],
    render: async (box) => {
      const done = await backend.finish();
      text(box, "Thank you!", "Your answers are saved.");
      if (done.saved_as) para(box, `They were saved to the file ${done.saved_as} (your downloads); ` +
        "send it to the people who run the study.");
      if (done.debrief) debrief(box, done.debrief);
      const row = document.createElement("div");
      row.className = "study-buttons";
      const offer = (label, act) => {
        const button = document.createElement("button");
        button.type = "button";
        button.className = "study-btn";
        button.textContent = label;
        button.addEventListener("click", act);
        row.appendChild(button);
      };
      if (backend.saveAgain) offer("Save the file again", () => backend.saveAgain());
      if (backend.nextPerson) offer("Next participant", () => backend.nextPerson());
      if (row.childElementCount) box.appendChild(row);
    },
  };
}

function debrief(box, rows) {
  const scored = rows.filter((r) => r.kind !== "practice");
  const fell = scored.filter((r) => r.fell).length;
  para(box, `Of the ${scored.length} towers, ${fell} fell and ${scored.length - fell} stood. ` +
    "Here is each one with your answer:");
  const table = document.createElement("table");
  table.className = "debrief";
  table.innerHTML = "<thead><tr><th>tower</th><th>you said</th><th>it</th></tr></thead>";
  const body = document.createElement("tbody");
  scored.forEach((r, k) => {
    const tr = document.createElement("tr");
    for (const value of [String(k + 1), String(r.rating), r.fell ? "fell" : "stood"]) {
      const td = document.createElement("td");
      td.textContent = value;
      tr.appendChild(td);
    }
    body.appendChild(tr);
  });
  table.appendChild(body);
  box.appendChild(table);
}

// The timeline for what is left of the session.
function timeline(session, backend, state, view) {
  const answered = new Set(session.answered);
  const steps = [];
  if (!session.consented) steps.push(consentStep(session, backend, state));
  const left = session.trials.filter((t) => !answered.has(t.trial));
  if (left.length) {
    steps.push({ type: PagePlugin, name: "instructions", buttons: ["Start"],
      render: (box) => paragraphs(session.instructions_md, box) });
  }
  let told = !left.some((t) => t.kind === "practice");
  session.trials.forEach((trial, k) => {
    if (answered.has(trial.trial)) return;
    if (trial.kind !== "practice" && !told) {
      told = true;
      steps.push({ type: PagePlugin, name: "practice-over", buttons: ["Go on"],
        render: (box) => text(box, "The practice is over.", "From now on you will not be told what the tower did.") });
    }
    steps.push(towerStep(trial, k, session.trials.length, session, backend, view));
    if (trial.kind === "practice") steps.push(feedbackStep(state.jsPsych));
  });
  steps.push(endStep(backend));
  return steps;
}

function withdrawButton(backend, state) {
  const button = document.getElementById("withdraw");
  if (!button) return;
  button.hidden = false;
  button.addEventListener("click", async () => {
    if (!window.confirm("Withdraw from the study? Your answers so far will be deleted.")) return;
    try {
      state.note = ((await backend.withdraw()) || {}).note;
    } catch (error) {
      window.alert(`The withdrawal did not go through: ${error.message}`);
      return;
    }
    state.ended = "withdrawn";
    button.hidden = true;
    state.jsPsych.abortExperiment();
  });
}

function ending(root, state) {
  const page = document.createElement("section");
  page.className = "study-page";
  page.dataset.page = state.ended;
  const box = document.createElement("div");
  box.className = "study-text";
  if (state.ended === "declined") text(box, "You did not take part.", "Nothing was kept. You can close this page.");
  else text(box, "You have withdrawn.", state.note || "Your answers were deleted. You can close this page.");
  page.appendChild(box);
  root.replaceChildren(page);
}

// Runs the study in `root` on `backend` (session, consent, respond, finish, withdraw).
export async function startStudy(root, backend) {
  const session = await backend.session();
  const state = { ended: null, jsPsych: null };
  const view = new TowerView(session.tile, session.settings);
  root.replaceChildren();
  state.jsPsych = initJsPsych({ display_element: root });
  withdrawButton(backend, state);
  document.body.dataset.participant = session.participant;
  await state.jsPsych.run(timeline(session, backend, state, view));
  view.stop();
  if (state.ended) ending(state.jsPsych.getDisplayElement(), state);
}

// Says on the page why it cannot run (no server, a refused request).
export function failed(root, error) {
  console.error(error);
  const box = document.createElement("div");
  box.className = "study-page study-text";
  text(box, "The study could not start.", error.message, "Reload the page to try again.");
  root.replaceChildren(box);
}
