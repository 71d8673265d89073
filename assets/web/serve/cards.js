// The card game's renderer for the play page (interface: the comment at the top of client.js).
// It draws one seat's view (pisa3d/games/cards/views.py): the hand, the three votes with what each
// voting card means, the face-down placements and their reveal, the discard, the trick, the score
// sheet and the other hands as backs. Every action is a click on a card or a button; the move sent
// is always one of the state's `legal` notations ('vote T1 R0', 'done', 'discard R5', 'play R5').

import { el } from "../dom.js";

const SUITS = { R: "red", Y: "yellow", G: "green", B: "blue" };
const SUIT_ORDER = ["R", "Y", "G", "B"];
const ROUND_TITLES = { trump: "trump", tricks: "tricks", order: "order" };

const suitOf = (card) => card[0];
const valueOf = (card) => parseInt(card.slice(1), 10);
const cardName = (card) => `${SUITS[suitOf(card)]} ${valueOf(card)}`;

// What winning a voting card means for the round, in words (as the terminal says it).
function meaning(option) {
  if (option === "most") return "most tricks score best";
  if (option === "fewest") return "fewest tricks score best";
  if (option === "high") return "high order: 13 beats 0";
  if (option === "low") return "low order: 0 beats 13";
  const index = parseInt(option.slice(1), 10) - 1;
  const main = SUIT_ORDER[index];
  const under = SUIT_ORDER[(index + 1) % 4];
  return `main trump ${SUITS[main]}, undertrump ${SUITS[under]}`;
}

function contractText(contract) {
  if (!contract || !contract.trump) return "";
  const order = contract.order === "high" ? "13 beats 0" : "0 beats 13";
  return `trumps ${contract.main} (main), ${contract.under} (under) \u00b7 ${contract.tricks} tricks score best \u00b7 ${order}`;
}

// A card face; a button when `onPick` is given (a legal move), else a plain picture.
function cardFace(card, onPick, extra) {
  const attrs = { class: `pcard suit-${suitOf(card)}${extra ? ` ${extra}` : ""}`, "data-card": card,
                  "aria-label": cardName(card), title: cardName(card) };
  const inner = [el("span", { class: "v", text: String(valueOf(card)) }), el("span", { class: "s", text: suitOf(card) })];
  if (!onPick) return el("span", attrs, ...inner);
  return el("button", { ...attrs, type: "button", onclick: onPick }, ...inner);
}

const cardBack = () => el("span", { class: "pcard back", "aria-hidden": "true" });

// The trick taken last in this round, from the message alone (a replay shows any position without
// the ones before it): its cards are the history's last, and its winner leads the trick under way.
function trickJustTaken(msg) {
  const view = msg.view;
  if (view.phase !== "play") return null;
  const won = (msg.events || []).find((e) => e.kind === "trick_won");
  if (won) return won.data;
  const history = view.trick_history || [];
  if (!history.length || view.leader === null || view.leader === undefined) return null;
  return { trick: history.length, player: view.leader, cards: history[history.length - 1][1] };
}

// The legal notations of this state, grouped the way a person chooses them.
function groupLegal(legal) {
  const votes = {}; // option -> {card: notation}
  const plays = {};
  const discards = {};
  let done = null;
  for (const notation of legal || []) {
    const words = notation.split(/\s+/);
    if (words[0] === "vote") (votes[words[1]] = votes[words[1]] || {})[words[2]] = notation;
    else if (words[0] === "play") plays[words[1]] = notation;
    else if (words[0] === "discard") discards[words[1]] = notation;
    else if (words[0] === "done") done = notation;
  }
  return { votes, plays, discards, done };
}

export default function cardsRenderer(container, ctx) {
  const root = el("div", { class: "cards-table" });
  container.append(root);
  let chosenOption = null; // the voting card picked before the hand card, this turn only
  let chosenAt = -1; // the move count the choice belongs to
  let msg = null;
  let sheetOpen = null; // the score sheet as the person last left it (null: not touched)

  const name = (seat) => (seat === ctx.seat ? "you" : ctx.seatLabel(seat));
  const kindOf = (seat) => {
    const info = (msg.seats || []).find((s) => s.seat === seat);
    return info && info.kind !== "human" ? info.kind : "person";
  };

  function send(notation) { ctx.sendMove(notation); }

  // --- the other seats ---------------------------------------------------------------------
  function seatPanel(view, seat) {
    const count = view.hand_sizes[seat];
    const backs = el("div", { class: "backs", "aria-label": `${count} cards in hand` });
    for (let k = 0; k < Math.min(count, 13); k++) backs.append(cardBack());
    const facts = [
      el("span", { text: `${count} card${count === 1 ? "" : "s"}` }),
      el("span", { text: `score ${view.totals[seat]}` }),
    ];
    if (view.phase === "play") facts.push(el("span", { text: `tricks ${view.tricks_won[seat]}` }));
    if (view.phase === "discard") facts.push(el("span", { text: `discarded ${view.discard_counts[seat]}/3` }));
    const placed = (view.voting.placed || []).filter(([s]) => s === seat);
    const revealed = view.revealed[seat] || [];
    return el("div", { class: `seat${view.current_player === seat ? " active" : ""}`, "data-seat": String(seat) },
      el("h3", {}, `${ctx.seatLabel(seat)} `, el("span", { class: "dim", text: kindOf(seat) }),
         view.dealer === seat ? el("span", { class: "badge", text: "dealer" }) : null,
         view.current_player === seat ? el("span", { class: "badge turn", text: "to move" }) : null),
      count === 0 && !(revealed.length && (view.phase === "vote" || view.phase === "discard")) ? null : el("div", { class: "seat-row-cards" }, backs,
        revealed.length && (view.phase === "vote" || view.phase === "discard")
          ? el("div", { class: "revealed", title: "cards placed in the votes, shown to all" },
               el("span", { class: "help", text: "placed" }), ...revealed.map((c) => cardFace(c, null, "small")))
          : null),
      el("div", { class: "facts" }, ...facts,
        placed.length ? el("span", { text: `now ${placed.length} face down by ${placed[0][1]}` }) : null));
  }

  // --- the votes ---------------------------------------------------------------------------
  function resultLine(result) {
    const byOption = {};
    for (const [seat, option, card] of result.placed) (byOption[option] = byOption[option] || []).push([seat, card]);
    return el("div", { class: "vote-result" },
      el("div", {}, el("strong", { text: `${result.voting_round} vote: ${result.winner} wins` }),
         el("span", { class: "dim", text: ` (${meaning(result.winner)}): ${result.reason}` })),
      el("div", { class: "piles" }, ...Object.entries(byOption).map(([option, cards]) =>
        el("span", { class: `pile${option === result.winner ? " won" : ""}` }, el("span", { class: "opt", text: option }),
           ...cards.map(([seat, card]) => el("span", { class: "who" }, cardFace(card, null, "small"), ctx.seatLabel(seat)))))));
  }

  function votePanel(view, groups, myTurn) {
    const voting = view.voting;
    const panel = el("section", { class: "panel phase", "aria-label": "voting" });
    const number = ["trump", "tricks", "order"].indexOf(voting.round) + 1;
    panel.append(el("h2", { text: `Vote ${number} of 3: ${ROUND_TITLES[voting.round] || voting.round}` }));
    for (const result of voting.results || []) panel.append(resultLine(result));
    const options = Object.keys(groups.votes);
    if (options.length === 1) chosenOption = options[0]; // the turn's first card fixed it
    else if (!options.includes(chosenOption)) chosenOption = null;
    // My own face-down cards, in placing order, sit by their option.
    const own = [...view.my_vote_cards];
    const byOption = {};
    for (const [seat, option] of voting.placed) {
      (byOption[option] = byOption[option] || []).push([seat, seat === view.seat ? own.shift() : null]);
    }
    const row = el("div", { class: "vote-options", role: "group", "aria-label": "voting cards" });
    for (const option of voting.options) {
      const pile = (byOption[option] || []).map(([seat, card]) =>
        el("span", { class: "who" }, card ? cardFace(card, null, "small") : cardBack(), ctx.seatLabel(seat)));
      const body = [el("span", { class: "opt", text: option }), el("span", { class: "means", text: meaning(option) }),
                    el("span", { class: "pile" }, ...pile)];
      const canPick = myTurn && options.length > 1 && options.includes(option);
      if (canPick) {
        row.append(el("button", {
          type: "button", class: `vote-card choose${chosenOption === option ? " chosen" : ""}`, "data-option": option,
          "aria-pressed": chosenOption === option ? "true" : "false",
          onclick: () => { chosenOption = option; chosenAt = msg.moves; draw(); },
        }, ...body));
      } else {
        row.append(el("div", { class: `vote-card${chosenOption === option && myTurn ? " chosen" : ""}`, "data-option": option }, ...body));
      }
    }
    panel.append(row);
    let hint;
    if (!myTurn) hint = `${name(view.current_player)} is voting: cards go face down; only their number is shown.`;
    else if (!chosenOption) hint = "Your vote: pick a voting card above, then 1 to 3 cards of your hand to put face down by it.";
    else if (groups.done) hint = `Add a card by ${chosenOption} (3 at most), or end your vote.`;
    else hint = `Now click a card of your hand to put face down by ${chosenOption}.`;
    panel.append(el("p", { class: myTurn ? "hint mine" : "hint", text: hint }));
    if (groups.done) {
      const cards = voting.turn ? voting.turn.cards : 0;
      panel.append(el("button", { type: "button", class: "primary move", "data-move": groups.done,
                                  onclick: () => send(groups.done) },
                      `End my vote (${cards} card${cards === 1 ? "" : "s"} by ${chosenOption})`));
    }
    const total = [...(view.revealed[view.seat] || []), ...view.my_vote_cards].reduce((sum, c) => sum + valueOf(c), 0);
    const yours = view.seat === null ? "" : ` (yours: ${total})`;
    panel.append(el("p", { class: "help",
      text: `Highest total wins (tie: more cards, then higher cards, then the earlier first card). ` +
            `Voting points: the smaller a player's total placed over the three votes${yours}, the more ` +
            `(smallest ${view.num_players}, largest 1).` }));
    return panel;
  }

  // --- the discard -------------------------------------------------------------------------
  function discardPanel(view, groups, myTurn) {
    const panel = el("section", { class: "panel phase", "aria-label": "discard" });
    panel.append(el("h2", { text: "Discard" }));
    for (const result of view.voting.results || []) panel.append(resultLine(result));
    const left = 3 - view.my_discards.length;
    panel.append(el("p", { class: myTurn ? "hint mine" : "hint",
      text: myTurn ? `Pick ${left} more of your placed cards to leave the game (in secret); the others go back to your hand for the tricks.`
                   : `${name(view.current_player)} is discarding 3 placed cards in secret.` }));
    const cards = el("div", { class: "hand-row", role: "group", "aria-label": "your placed cards" });
    for (const card of view.my_placed) {
      const notation = groups.discards[card];
      cards.append(cardFace(card, notation && myTurn ? () => send(notation) : null, notation ? "move" : ""));
      if (notation) cards.lastChild.dataset.move = notation;
    }
    if (view.seat !== null) panel.append(el("div", { class: "help", text: "Your placed cards:" }), cards);
    if (view.my_discards.length) {
      panel.append(el("div", { class: "help", text: "Discarded:" }),
                   el("div", { class: "hand-row" }, ...view.my_discards.map((c) => cardFace(c, null, "gone"))));
    }
    return panel;
  }

  // --- the trick ---------------------------------------------------------------------------
  function playPanel(view, myTurn) {
    const panel = el("section", { class: "panel phase", "aria-label": "trick" });
    const number = view.trick_history.length + 1;
    // Those still to play this trick hold the most cards: one per trick left, this one included.
    panel.append(el("h2", { text: `Trick ${number} of ${view.trick_history.length + Math.max(...view.hand_sizes)}` }));
    const slots = el("div", { class: "trick", "aria-label": "the trick on the table" });
    const played = Object.fromEntries(view.trick.map(([seat, card]) => [seat, card]));
    const n = view.num_players;
    for (let k = 0; k < n; k++) {
      const seat = (view.leader + k) % n;
      const card = played[seat];
      slots.append(el("div", { class: `slot${view.current_player === seat ? " active" : ""}`, "data-seat": String(seat) },
        card ? cardFace(card, null) : el("span", { class: "pcard empty" }),
        el("span", { class: "help", text: `${name(seat)}${k === 0 ? " (leads)" : ""}` })));
    }
    panel.append(slots);
    const led = view.trick.length ? SUITS[suitOf(view.trick[0][1])] : null;
    let hint;
    if (myTurn) hint = led ? `Your card: follow ${led} if you can.` : "You lead: play any card.";
    else hint = `${name(view.current_player)} to play.`;
    panel.append(el("p", { class: myTurn ? "hint mine" : "hint", text: hint }));
    const lastTrick = trickJustTaken(msg);
    if (lastTrick && lastTrick.trick === view.trick_history.length) {
      panel.append(el("div", { class: "last-trick" },
        el("span", { class: "help", text: `trick ${lastTrick.trick} went to ${name(lastTrick.player)}: ` }),
        ...lastTrick.cards.map((c) => cardFace(c, null, "small"))));
    }
    return panel;
  }

  // --- the score sheet ---------------------------------------------------------------------
  function scoreSheet(view) {
    const n = view.num_players;
    const head = el("tr", {}, el("th", { text: "Round" }), el("th", { text: "Contract" }),
      ...Array.from({ length: n }, (_, s) => el("th", { text: s === view.seat ? `${ctx.seatLabel(s)} (you)` : ctx.seatLabel(s) })));
    const rows = view.round_log.map((entry) => el("tr", {}, el("td", { text: String(entry.round) }),
      el("td", { text: `${entry.contract.trump} ${entry.contract.tricks} ${entry.contract.order}` }),
      ...entry.voting_points.map((v, s) => el("td", { text: `${v}+${entry.play_points[s]}` }))));
    if (view.phase !== "over" && view.voting_points.length) {
      rows.push(el("tr", { class: "dim" }, el("td", { text: String(view.round) }),
        el("td", { text: view.contract.trump ? `${view.contract.trump} ${view.contract.tricks} ${view.contract.order}` : "" }),
        ...view.voting_points.map((v) => el("td", { text: `${v}+?` }))));
    }
    const best = Math.max(...view.totals);
    rows.push(el("tr", { class: "total" }, el("th", { text: "Total" }), el("td"),
      ...view.totals.map((t) => el("td", { class: t === best ? "best" : "", text: String(t) }))));
    // Open once a round is scored; after that the person's own choice holds across redraws.
    const open = sheetOpen === null ? view.phase === "over" || view.round_log.length > 0 : sheetOpen;
    const box = el("details", { class: "panel sheet-box", open },
      el("summary", { text: "Score sheet (voting + play points)" }),
      el("div", { class: "sheet-scroll" }, el("table", { class: "sheet" }, el("thead", {}, head), el("tbody", {}, ...rows))),
      el("p", { class: "help", text: `Play points: players ranked by tricks as voted; ${2 * n} for the best, 2 for the worst, ties share.` }));
    box.querySelector("summary").addEventListener("click", () => { sheetOpen = !box.open; });
    return box;
  }

  // --- the whole table ---------------------------------------------------------------------
  function draw() {
    if (!msg) return;
    // A spectator's (public) view has no private part: draw it as a seat holding nothing.
    const view = { seat: null, hand: [], my_vote_cards: [], my_placed: [], my_discards: [], ...msg.view };
    const seat = ctx.seat;
    const watching = seat === null || seat === undefined || view.seat === null;
    const myTurn = !watching && !msg.over && msg.to_move === seat && (msg.legal || []).length > 0;
    const groups = groupLegal(myTurn ? msg.legal : []);
    if (chosenAt !== msg.moves && Object.keys(groups.votes).length > 1) chosenOption = null;

    const head = el("div", { class: "cards-head" },
      el("strong", { text: `Round ${view.round} of ${view.rounds}` }),
      el("span", { text: view.phase === "over" ? "game over" : `${view.phase}${view.phase === "vote" ? ` on ${view.voting.round}` : ""}` }),
      el("span", { class: "dim", text: `dealer: ${name(view.dealer)}` }));
    const contract = contractText(view.contract);
    if (contract) head.append(el("span", { class: "contract", text: contract }));

    const others = el("div", { class: "seats" });
    const n = view.num_players;
    const start = watching ? 0 : seat + 1;
    for (let k = 0; k < n; k++) {
      const s = (start + k) % n;
      if (watching || s !== seat) others.append(seatPanel(view, s));
    }

    let phase = null;
    if (view.phase === "vote") phase = votePanel(view, groups, myTurn);
    else if (view.phase === "discard") phase = discardPanel(view, groups, myTurn);
    else if (view.phase === "play") phase = playPanel(view, myTurn);

    let hand = null;
    if (!watching && view.phase !== "over") {
      const row = el("div", { class: "hand-row", role: "group", "aria-label": "your hand" });
      for (const card of view.hand) {
        let notation = null;
        if (view.phase === "play") notation = groups.plays[card];
        else if (view.phase === "vote" && chosenOption) notation = (groups.votes[chosenOption] || {})[card];
        const face = cardFace(card, notation ? () => send(notation) : null, notation ? "move" : myTurn && view.phase === "play" ? "cannot" : "");
        if (notation) face.dataset.move = notation;
        row.append(face);
      }
      hand = el("section", { class: `panel my-hand${myTurn ? " active" : ""}`, "aria-label": "your hand" },
        el("h3", {}, `Your hand (${view.hand.length}) \u00b7 score ${view.totals[seat]}`,
           view.phase === "play" ? ` \u00b7 tricks ${view.tricks_won[seat]}` : "",
           view.dealer === seat ? el("span", { class: "badge", text: "dealer" }) : null),
        view.hand.length ? row : el("p", { class: "help", text: "(empty)" }));
    }

    // Keep the keyboard where it was: the same move (or option) button gets the focus back.
    const focused = document.activeElement && root.contains(document.activeElement)
      ? document.activeElement.dataset.move || document.activeElement.dataset.option || document.activeElement.dataset.card : null;
    root.replaceChildren(...[head, others, phase, hand, scoreSheet(view)].filter(Boolean));
    const first = root.querySelector("button.move, button.choose");
    if (focused) {
      const again = root.querySelector(`button[data-move="${focused}"], button[data-option="${focused}"], button[data-card="${focused}"]`)
        || first;
      if (again) again.focus({ preventScroll: true });
    } else if (myTurn && first && (!document.activeElement || document.activeElement === document.body)) {
      first.focus({ preventScroll: true }); // the keyboard starts where the choice is
    }
  }

  return {
    update(stateMsg) {
      msg = stateMsg;
      root.dataset.moves = String(stateMsg.moves);
      draw();
    },
  };
}
