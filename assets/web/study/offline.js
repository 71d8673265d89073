// The study as one offline page (`pisa3d study export DIR --out page.html`): no server, so this
// page keeps the session itself. It holds the trials, the texts and the practice trials' outcomes
// (for their feedback), and no other label. A participant id and the order of the main and catch
// trials are drawn from the browser's cryptographic generator; the events, the same lines the
// server writes (start, consent, response, finish), are kept in this browser (localStorage, so a
// reload resumes) and, at the end, saved as a JSON file the person sends to the researchers.

import { failed, startStudy } from "./study.js";

const FORMAT = "pisa3d-study-responses/1";
const RT_MAX = 3600000;

const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
const now = () => new Date().toISOString();

function randomBelow(n) {
  const word = new Uint32Array(1);
  const limit = Math.floor(0x100000000 / n) * n; // no modulo bias
  do crypto.getRandomValues(word); while (word[0] >= limit);
  return word[0] % n;
}

// Practice first in the build's order, then the main and catch trials shuffled (Fisher-Yates).
function drawOrder(trials) {
  const practice = trials.filter((t) => t.kind === "practice").map((t) => t.trial);
  const rest = trials.filter((t) => t.kind !== "practice").map((t) => t.trial);
  for (let k = rest.length - 1; k > 0; k--) {
    const j = randomBelow(k + 1);
    [rest[k], rest[j]] = [rest[j], rest[k]];
  }
  return practice.concat(rest);
}

function refuse(status, message) {
  const error = new Error(message);
  error.status = status;
  return error;
}

export function offlineBackend(data, storage = window.localStorage) {
  const key = `pisa3d-study-offline:${data.study_id}`;
  const byId = Object.fromEntries(data.trials.map((t) => [t.trial, t]));
  let state = JSON.parse(storage.getItem(key) || "null");
  const keep = () => storage.setItem(key, JSON.stringify(state));
  const add = (event) => { state.events.push({ ...event, time: now() }); keep(); };
  const answered = () => new Set(state.events.filter((e) => e.event === "response").map((e) => e.trial));
  const fileName = () => `pisa3d-study-${data.study_id}-${state.participant}.json`;
  const download = () => {
    const file = { format: FORMAT, study_id: data.study_id, study_hash: data.hash, participant: state.participant,
      observer: null, events: state.events };
    const link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([JSON.stringify(file, null, 1)], { type: "application/json" }));
    link.download = fileName();
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 60000);
  };
  return {
    async session() {
      if (!state) {
        const id = new Uint8Array(8);
        crypto.getRandomValues(id);
        state = { participant: `p-${hex(id)}`, order: drawOrder(data.trials), events: [] };
        add({ event: "start", participant: state.participant, observer: null, study_hash: data.hash,
          texts_sha256: data.texts_sha256, offline: true });
      }
      const done = answered();
      return { participant: state.participant, study_id: data.study_id,
        consented: state.events.some((e) => e.event === "consent"),
        finished: state.events.some((e) => e.event === "finish"),
        consent_md: data.consent_md, instructions_md: data.instructions_md, settings: data.settings, tile: data.tile,
        trials: state.order.map((id) => byId[id]), answered: state.order.filter((id) => done.has(id)) };
    },
    async consent() {
      if (!state.events.some((e) => e.event === "consent")) add({ event: "consent" });
      return { consented: true };
    },
    async respond(answer) {
      const trial = byId[answer.trial];
      if (!trial) throw refuse(404, `no trial ${answer.trial}`);
      if (answered().has(answer.trial)) return { saved: true, feedback: null };
      const order = state.order.indexOf(answer.trial);
      add({ event: "response", trial: answer.trial, kind: trial.kind, rating: answer.rating,
        direction: answer.direction ?? null, rt_ms: Math.min(RT_MAX, answer.rt_ms), order });
      const fell = data.practice_fell[answer.trial];
      return { saved: true, feedback: trial.kind === "practice" ? { fell: Boolean(fell) } : null };
    },
    async finish() {
      if (!state.events.some((e) => e.event === "finish")) add({ event: "finish" });
      download();
      return { done: true, debrief: null, saved_as: fileName() };
    },
    async withdraw() {
      const saved = state && state.events.some((e) => e.event === "finish");
      storage.removeItem(key);
      state = null;
      if (saved) return { note: "This page's copy of your answers was deleted. Delete the file it saved too, " +
        "or tell the people who run the study that you have withdrawn." };
      return {};
    },
    saveAgain: download,
    // a testing room's laptop: the next person starts afresh (this one's file is saved already)
    nextPerson() {
      if (!window.confirm("Start the study afresh for the next participant?")) return;
      storage.removeItem(key);
      window.location.reload();
    },
  };
}

// The offline page's entry (assets/web/loader.js).
export function start(data) {
  const root = document.getElementById("study");
  startStudy(root, offlineBackend(data)).catch((error) => failed(root, error));
}
