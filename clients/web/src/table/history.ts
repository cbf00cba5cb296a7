/**
 * "My hands": the hand history list (GET /hands), one hand replayed street by street from its
 * PHH (GET /hands/{id}/phh, which is also offered as a download), its result, and its
 * fairness check done by this browser (fairness.ts) from GET /hands/{id}/fairness.
 *
 * Every card drawn here comes from the lobby's answers for this player, which are redacted
 * for him (docs/rules.md §2.12): his own cards (never a folded hand's down cards), everyone's
 * up cards and the hands shown at the showdown; every other card is a back. The deck the fairness
 * check derives holds every player's cards, so only his own positions are ever shown.
 */

import type { HandFairness, HandSummary, HandView, Lobby } from "./api.js";
import { cardBack, cardElement } from "./cards.js";
import { verifyHand } from "./fairness.js";
import type { FairnessVerdict } from "./fairness.js";
import { chips } from "./format.js";
import { el } from "./render.js";
import { replayFromPhh } from "./replay.js";
import type { Replay, ReplayAction } from "./replay.js";

function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (element === null) throw new Error(`the page has no #${id}`);
  return element as T;
}

function when(iso: string | null | undefined): string {
  if (!iso) return "";
  const date = new Date(iso);
  return date.toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short" });
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

function signed(amount: number): string {
  return amount > 0 ? `+${chips(amount)}` : chips(amount);
}

function tableLabel(table: string): string {
  return table.replace(/^tables\//, "");
}

/** One line of the list; clicking it opens the hand. */
export function handRow(hand: HandSummary, open: (hand: HandSummary) => void): HTMLTableRowElement {
  const row = el("tr", "hand-row");
  row.dataset["handId"] = hand.hand_id;
  row.dataset["table"] = tableLabel(hand.table);
  row.dataset["handNumber"] = String(hand.hand_number);
  row.tabIndex = 0;
  const result =
    hand.state === "running"
      ? "playing"
      : hand.state === "cancelled"
        ? "cancelled"
        : signed(hand.my_result ?? 0);
  const resultCell = el("td", "num", result);
  if ((hand.my_result ?? 0) > 0) resultCell.classList.add("plus");
  if ((hand.my_result ?? 0) < 0) resultCell.classList.add("minus");
  row.append(
    el("td", "", `#${hand.hand_number}`),
    el("td", "muted", tableLabel(hand.table)),
    el("td", "muted", when(hand.started_at)),
    resultCell,
  );
  row.addEventListener("click", () => open(hand));
  row.addEventListener("keydown", (e) => {
    if (e.key === "Enter") open(hand);
  });
  return row;
}

const VERBS: Record<string, string> = {
  fold: "folds",
  check: "checks",
  call: "calls",
  bring_in: "brings in",
  complete: "completes to",
  bet: "bets",
  raise: "raises to",
  show: "shows",
  muck: "mucks",
};

function actionText(action: ReplayAction, name: string): string {
  const amount = action.amount === undefined ? "" : ` ${chips(action.amount)}`;
  return `${name} ${VERBS[action.kind] ?? action.kind}${amount}${action.allIn ? " (all in)" : ""}${action.timeout ? " — clock ran out" : ""}`;
}

/** The replay: one block per street with the cards dealt, the actions and the pot after it. */
export function renderReplay(replay: Replay, hand: HandView): void {
  const names = new Map(replay.players.map((p) => [p.seat, p.name]));
  for (const seat of hand.seats) if (seat.display_name) names.set(seat.seat, seat.display_name);
  const name = (seat: number): string => names.get(seat) ?? `Seat ${seat}`;
  const blocks: HTMLElement[] = [];
  for (const street of replay.streets) {
    const block = el("section", "street");
    block.dataset["street"] = street.name;
    block.append(el("h3", "", street.name));
    const deals = el("div", "deals");
    for (const deal of street.deals) {
      const line = el("div", "deal");
      line.dataset["seat"] = String(deal.seat);
      line.classList.toggle("me", deal.seat === hand.my_seat);
      const cards = el("div", "cards small");
      cards.append(
        ...deal.cards.map(({ card, up }) =>
          card === undefined ? cardBack() : cardElement(card, { down: !up }),
        ),
      );
      line.append(el("span", "name", name(deal.seat)), cards);
      deals.append(line);
    }
    if (street.community.length > 0) {
      const line = el("div", "deal community");
      const cards = el("div", "cards small");
      cards.append(...street.community.map((card) => cardElement(card)));
      line.append(el("span", "name", "Community card"), cards);
      deals.append(line);
    }
    const actions = el("ol", "street-actions");
    for (const action of street.actions) {
      const item = el("li", `act act-${action.kind}`, actionText(action, name(action.seat)));
      item.dataset["seat"] = String(action.seat);
      actions.append(item);
    }
    if (street.actions.length === 0) actions.append(el("li", "muted", "no betting (all in)"));
    if (street.returned !== undefined) {
      const { seat, amount } = street.returned;
      const item = el("li", "act act-returned", `${chips(amount)} not called: back to ${name(seat)}`);
      item.dataset["seat"] = String(seat);
      item.dataset["returned"] = String(amount);
      actions.append(item);
    }
    const pot = el("p", "street-pot", `Pot after ${street.name.toLowerCase()}: ${chips(street.potAfter)}`);
    pot.dataset["pot"] = String(street.potAfter);
    block.append(deals, actions, pot);
    blocks.push(block);
  }
  if (replay.showdown.length > 0) {
    const block = el("section", "street showdown");
    block.dataset["street"] = "Showdown";
    block.append(el("h3", "", "Showdown"));
    for (const action of replay.showdown) {
      const line = el("div", "deal");
      line.dataset["seat"] = String(action.seat);
      const cards = el("div", "cards small");
      cards.append(...(action.cards ?? []).map((card) => cardElement(card)));
      line.append(el("span", "name", actionText({ ...action, cards: [] }, name(action.seat))), cards);
      block.append(line);
    }
    blocks.push(block);
  }
  byId("replay").replaceChildren(...blocks);
}

interface PotRecord {
  amount?: number;
  awards?: Record<string, number>;
}

/** The result: who won which pot, and each seat's start and end. */
export function renderHandResult(hand: HandView): void {
  const box = byId("hand-result");
  const name = (seat: number): string =>
    hand.seats.find((s) => s.seat === seat)?.display_name ?? `Seat ${seat}`;
  const parts: HTMLElement[] = [el("h3", "", "Result")];
  if (hand.state === "cancelled") parts.push(el("p", "muted", `Cancelled (${hand.cancel_reason ?? ""}): every chip went back.`));
  const pots = (hand.pots ?? []) as PotRecord[];
  const list = el("ul", "winners");
  pots.forEach((pot, index) => {
    const label = pots.length > 1 ? (index === 0 ? "Main pot" : `Side pot ${index}`) : "Pot";
    for (const [seat, amount] of Object.entries(pot.awards ?? {})) {
      const item = el("li", "winner", `${name(Number(seat))} wins ${chips(amount)} — ${label} ${chips(pot.amount ?? 0)}`);
      item.dataset["seat"] = seat;
      list.append(item);
    }
  });
  if (list.children.length > 0) parts.push(list);
  if ((hand.rake ?? 0) > 0) parts.push(el("p", "muted", `Rake ${chips(hand.rake ?? 0)}`));
  const table = el("table", "rows stacks");
  const head = el("tr");
  head.append(el("th", "", "Seat"), el("th", "num", "Start"), el("th", "num", "End"), el("th", "num", "Won/lost"));
  table.append(head);
  for (const seat of hand.seats) {
    const row = el("tr");
    row.dataset["seat"] = String(seat.seat);
    row.classList.toggle("me", seat.seat === hand.my_seat);
    const net = seat.final_stack === null ? "" : signed(seat.final_stack - seat.start_stack);
    row.append(
      el("td", "", name(seat.seat)),
      el("td", "num", chips(seat.start_stack)),
      el("td", "num", seat.final_stack === null ? "" : chips(seat.final_stack)),
      el("td", "num", net),
    );
    table.append(row);
  }
  parts.push(table);
  box.replaceChildren(...parts);
}

/**
 * Check one hand in this browser; undefined until the dealer seed is revealed. The cards checked
 * are those the lobby's answer says he was dealt (`dealt`: his own that he may see, each with its
 * deck position; his down cards of a hand he folded are not among them, being never shown).
 */
export async function checkHand(fairness: HandFairness): Promise<FairnessVerdict | undefined> {
  if (!fairness.revealed || fairness.dealer_seed === null) return undefined;
  return verifyHand({
    commitment: fairness.commitment,
    dealerSeed: fairness.dealer_seed,
    clientSeed: fairness.client_seed,
    nonce: fairness.nonce,
    dealt: fairness.dealt.map((c) => ({ card: c.card, deckIndex: c.deck_index })),
  });
}

function mark(ok: boolean): HTMLElement {
  return el("span", ok ? "check-ok" : "check-bad", ok ? "✓" : "✗");
}

/** The fairness box of one hand, checked by this browser, with a check of his whole table. */
export function renderFairness(
  hand: HandView,
  fairness: HandFairness,
  verdict: FairnessVerdict | undefined,
  verifyTable: () => Promise<void>,
): void {
  const box = byId("hand-fairness");
  const code = (text: string): HTMLElement => el("code", "", text);
  const facts = el("dl", "facts");
  const fact = (term: string, value: HTMLElement | string): void => {
    facts.append(el("dt", "", term));
    const dd = el("dd");
    dd.append(value);
    facts.append(dd);
  };
  fact("Commitment (shown before the hand)", code(fairness.commitment));
  fact("Your client seed", code(fairness.client_seed));
  fact("Nonce", code(String(fairness.nonce)));
  fact("Dealer seed", fairness.dealer_seed === null ? "not revealed yet" : code(fairness.dealer_seed));
  const parts: HTMLElement[] = [el("h3", "", "Fairness, checked by this browser"), facts];
  box.dataset["handId"] = hand.hand_id;
  if (verdict === undefined) {
    box.dataset["result"] = "pending";
    parts.push(
      el(
        "p",
        "muted",
        "The dealer seed is revealed when the table closes or its seed pair is rotated; then this page recomputes the deck and checks your cards.",
      ),
    );
    box.replaceChildren(...parts);
    return;
  }
  box.dataset["result"] = verdict.ok ? "ok" : "failed";
  box.dataset["cardsChecked"] = String(verdict.cards.length);
  const checks = el("ul", "checks");
  const commitment = el("li", "check-commitment");
  commitment.append(mark(verdict.commitmentOk), document.createTextNode(" SHA-256(dealer seed) equals the commitment"));
  const deck = el("li", "check-deck");
  deck.append(
    mark(verdict.deckOk),
    document.createTextNode(" the deck derived with HMAC-SHA256 from the dealer seed, your client seed and the nonce is a full 52-card deck"),
  );
  checks.append(commitment, deck);
  for (const card of verdict.cards) {
    const item = el("li", "check-card");
    item.dataset["card"] = card.card;
    item.dataset["ok"] = String(card.ok);
    item.append(mark(card.ok), document.createTextNode(" your "));
    const cards = el("span", "cards small inline");
    cards.append(cardElement(card.card));
    item.append(cards);
    item.append(document.createTextNode(` is card ${card.deckIndex} of the deck`));
    checks.append(item);
  }
  // The down cards of a hand he folded are not in his history (docs/rules.md §2.12): nothing
  // to compare them with, so the check covers the cards he may still see, and says so.
  const folded = hand.my_cards.length - fairness.dealt.length;
  const checkedWords =
    folded === 0
      ? `all ${verdict.cards.length} of your cards match`
      : `your ${plural(verdict.cards.length, "card", "cards")} on view match`;
  const summary = el(
    "p",
    verdict.ok ? "verdict ok" : "verdict bad",
    verdict.ok ? `Verified: the commitment and ${checkedWords} the revealed seed.` : `Not verified: ${verdict.problems.join("; ")}.`,
  );
  summary.id = "fairness-verdict";
  box.dataset["foldedCards"] = String(folded);
  const lobbyCheck = fairness.check;
  const agrees =
    lobbyCheck === null
      ? undefined
      : el("p", "muted", `The lobby's own check says ${lobbyCheck.ok ? "ok" : "not ok"}${lobbyCheck.ok === verdict.ok ? " too" : ""}.`);
  const tableButton = el("button", "", "Check all my hands at this table");
  tableButton.type = "button";
  tableButton.id = "verify-table";
  tableButton.addEventListener("click", () => void verifyTable());
  const tableResult = el("div", "table-verdict");
  tableResult.id = "table-verdict";
  parts.push(summary, checks);
  if (folded > 0) {
    const unseen = el(
      "p",
      "muted folded-cards",
      `Your ${plural(folded, "folded down card is", "folded down cards are")} not checked: folded cards are never shown, not even to the player who folded them.`,
    );
    parts.push(unseen);
  }
  if (agrees !== undefined) parts.push(agrees);
  parts.push(tableButton, tableResult);
  box.replaceChildren(...parts);
}

/** Every hand of his at one table, each checked in this browser. */
export async function verifyTableHands(lobby: Lobby, table: string): Promise<void> {
  const out = byId("table-verdict");
  out.replaceChildren(el("p", "muted", "Checking…"));
  const summaries: HandSummary[] = [];
  let token = "";
  do {
    const page = await lobby.hands(token);
    summaries.push(...page.hands.filter((h) => tableLabel(h.table) === tableLabel(table)));
    token = page.next_page_token;
  } while (token !== "");
  const list = el("ul", "checks");
  let good = 0;
  let pending = 0;
  for (const summary of summaries.sort((a, b) => a.hand_number - b.hand_number)) {
    if (summary.state === "running") continue;
    // The fairness answer carries his cards: the hand itself need not be fetched.
    const fairness = await lobby.fairness(summary.hand_id);
    const verdict = await checkHand(fairness);
    const item = el("li");
    item.dataset["handId"] = summary.hand_id;
    if (verdict === undefined) {
      pending += 1;
      item.append(document.createTextNode(`Hand #${summary.hand_number}: dealer seed not revealed yet`));
    } else {
      if (verdict.ok) good += 1;
      item.dataset["ok"] = String(verdict.ok);
      item.append(
        mark(verdict.ok),
        document.createTextNode(
          ` Hand #${summary.hand_number} (nonce ${fairness.nonce}): ${verdict.cards.length} cards${verdict.ok ? "" : ` — ${verdict.problems.join("; ")}`}`,
        ),
      );
    }
    list.append(item);
  }
  const checked = list.querySelectorAll("li[data-ok]").length;
  const line = el("p", good === checked && checked > 0 ? "verdict ok" : "verdict bad", `${good} of ${checked} hands verified${pending ? `, ${pending} not revealed yet` : ""}.`);
  out.dataset["good"] = String(good);
  out.dataset["checked"] = String(checked);
  out.replaceChildren(line, list);
}

/** The PHH text as a download link (the lobby's answer needs his token, so a blob URL). */
export function offerPhh(text: string, handId: string): void {
  const link = byId<HTMLAnchorElement>("phh-download");
  const previous = link.href;
  if (previous.startsWith("blob:")) URL.revokeObjectURL(previous);
  link.href = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
  link.download = `${handId}.phh`;
}

export { replayFromPhh };
export type { Replay };
export type { FairnessVerdict };

/** A readable date for the hand header. */
export function handMeta(hand: HandView): string {
  const stakes = hand.stakes;
  const parts = [
    `${hand.profile} · ${chips(stakes["small_bet"] ?? 0)}/${chips(stakes["big_bet"] ?? 0)}, ante ${chips(stakes["ante"] ?? 0)}, bring-in ${chips(stakes["bring_in"] ?? 0)}`,
    when(hand.started_at),
    `table ${tableLabel(hand.table)}`,
  ];
  return parts.join(" · ");
}
