// The renderer of a game without a module of its own: the legal moves as buttons, the view as
// text (interface: the comment at the top of client.js).

import { el } from "../dom.js";

export default function fallbackRenderer(container, ctx) {
  const moves = el("div", "fallback-moves");
  const view = el("pre", "mono fallback-view");
  container.append(el("p", "help", `This game (${ctx.game}) has no table of its own yet: its legal moves are the buttons.`),
    moves, el("details", {}, el("summary", {}, "the view as data"), view));
  return {
    update(msg) {
      moves.replaceChildren(...(msg.legal || []).map((notation) => el("button",
        { type: "button", class: "move", "data-move": notation, text: notation, onclick: () => ctx.sendMove(notation) })));
      view.textContent = JSON.stringify(msg.view);
    },
  };
}
