// What the lobby, the invitation page and the play page share: the JSON calls to this server, the
// person's name and the seat links kept in this browser, and a link with a copy button.

import { el } from "../dom.js";

const NAME_KEY = "pisa3d.name";
const MY_SEATS_KEY = "pisa3d.mySeats";
export const NAME_MAX = 24;

// The server refuses a POST without this Content-Type (a cross-site form cannot send it).
export async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const answer = await fetch(path, init);
  let data = null;
  try { data = await answer.json(); } catch (e) { /* an empty or non-JSON answer */ }
  if (!answer.ok) {
    const error = new Error((data && data.error) || `${method} ${path}: HTTP ${answer.status}`);
    error.status = answer.status;
    throw error;
  }
  return data;
}

export function storedName() {
  try { return localStorage.getItem(NAME_KEY) || ""; } catch (e) { return ""; }
}

export function saveName(name) {
  try { localStorage.setItem(NAME_KEY, name); } catch (e) { /* private mode: asked again next time */ }
}

// The server's rule (1-24 characters after trimming, no control characters), checked here
// first so a person learns it before anything is sent; the server has the last word.
export function nameProblem(name) {
  if (!name) return "a name needs at least one character";
  if ([...name].length > NAME_MAX) return `a name has at most ${NAME_MAX} characters`;
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) return "a name cannot hold control characters";
  return "";
}

export function mySeats() {
  try { return JSON.parse(localStorage.getItem(MY_SEATS_KEY) || "{}") || {}; } catch (e) { return {}; }
}

// A seat's token is secret and the server never lists it: its link is kept here, so "play"
// stays one click away in the lobby.
export function rememberSeat(matchId, seat, url) {
  const all = mySeats();
  const kept = (all[matchId] || []).filter((s) => s.seat !== seat);
  kept.push({ seat, url });
  kept.sort((a, b) => a.seat - b.seat);
  all[matchId] = kept;
  try { localStorage.setItem(MY_SEATS_KEY, JSON.stringify(all)); } catch (e) { /* private mode */ }
}

export const absolute = (url) => new URL(url, location.origin).href;

export async function copyText(text, button) {
  let ok = false;
  try {
    await navigator.clipboard.writeText(text);
    ok = true;
  } catch (e) {
    // Plain http on a LAN address is not a secure context: no clipboard API there.
    const area = el("textarea", { class: "offscreen" });
    area.value = text;
    document.body.append(area);
    area.select();
    try { ok = document.execCommand("copy"); } catch (e2) { ok = false; }
    area.remove();
  }
  const label = button.textContent;
  button.textContent = ok ? "Copied" : "Select and copy";
  setTimeout(() => { button.textContent = label; }, 1500);
}

// A read-only field holding the absolute link, selected on focus, and its copy button.
export function linkField(label, url) {
  const full = absolute(url);
  const input = el("input", { type: "text", readonly: true, class: "url mono", "aria-label": label, size: 36 });
  input.value = full;
  input.addEventListener("focus", () => input.select());
  const copy = el("button", { type: "button", text: "Copy", "aria-label": `copy ${label}` });
  copy.addEventListener("click", () => copyText(full, copy));
  return el("div", { class: "field link-field" }, input, copy);
}

// Joins an open seat under `name`; keeps the name and the seat's link; the answer's url.
export async function join(matchId, name) {
  const seat = await api("POST", `/api/matches/${encodeURIComponent(matchId)}/join`, { name });
  saveName(name);
  rememberSeat(seat.match_id || matchId, seat.seat, seat.url);
  return seat.url;
}

// The small "your name" form: prefilled with the name this browser last used; onSubmit(name)
// may return a promise, whose rejection is shown under the field.
export function nameForm({ id, label, submit, cancel, onSubmit, onCancel }) {
  const input = el("input", { type: "text", id: `${id}-input`, maxlength: String(NAME_MAX), autocomplete: "nickname",
                              spellcheck: "false", required: true });
  input.value = storedName();
  const error = el("div", { class: "form-error", role: "alert" });
  const go = el("button", { type: "submit", class: "primary", text: submit });
  const stop = cancel ? el("button", { type: "button", text: cancel, onclick: () => onCancel() }) : null;
  const form = el("form", { id, class: "name-form", autocomplete: "off" },
    el("label", { for: input.id, text: label }), el("div", { class: "field" }, input, go, stop), error);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const name = input.value.trim();
    const problem = nameProblem(name);
    error.textContent = problem;
    if (problem) { input.focus(); return; }
    go.disabled = true;
    try {
      await onSubmit(name);
    } catch (e) {
      error.textContent = e.message;
      input.focus();
    } finally {
      go.disabled = false;
    }
  });
  return { form, input, setError: (text) => { error.textContent = text; } };
}
