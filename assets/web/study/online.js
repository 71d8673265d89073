// The study page served by `pisa3d study serve`: its backend is the server's HTTP API
// (docs/study.md). The participant's token is kept in this browser (localStorage), so a reload,
// or coming back later, resumes the same session; a token the server no longer knows (another
// study, a withdrawal) is dropped and a new participant made.

import { failed, startStudy } from "./study.js";

const KEY = "pisa3d-study";

class RequestFailed extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

export function httpBackend(storage = window.localStorage) {
  let held = JSON.parse(storage.getItem(KEY) || "null");
  const call = async (method, path, body) => {
    const headers = { "Content-Type": "application/json" };
    if (held) headers.Authorization = `Bearer ${held.token}`;
    let answer;
    try {
      answer = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (error) {
      throw new RequestFailed(0, "The study server cannot be reached.");
    }
    const data = await answer.json().catch(() => ({}));
    if (!answer.ok) throw new RequestFailed(answer.status, data.error || `The server said ${answer.status}.`);
    return data;
  };
  const join = async () => {
    held = null;
    const created = await call("POST", "/api/participants", {});
    held = { participant: created.participant, token: created.token };
    storage.setItem(KEY, JSON.stringify(held));
  };
  return {
    async session() {
      if (held) {
        try {
          return await call("GET", "/api/session");
        } catch (error) {
          if (error.status !== 401) throw error;
        }
      }
      await join();
      return call("GET", "/api/session");
    },
    consent: () => call("POST", "/api/consent", { agree: true }),
    async respond(answer) {
      try {
        return await call("POST", "/api/responses", answer);
      } catch (error) {
        // answered already (the same session in another tab, or a retry whose first try got through)
        if (error.status === 409 && /answered already/.test(error.message)) return { saved: true, feedback: null };
        throw error;
      }
    },
    finish: () => call("POST", "/api/finish", {}),
    async withdraw() {
      await call("POST", "/api/withdraw", {});
      storage.removeItem(KEY);
      held = null;
    },
  };
}

const root = document.getElementById("study");
startStudy(root, httpBackend()).catch((error) => failed(root, error));
