/**
 * Drawing the player's seat view (a TableSnapshot) into the page. Every snapshot is drawn in
 * full: the snapshot is the whole truth, and events are only used for the table log.
 *
 * What a player may see is decided by the engine: his own down cards arrive in his seat's
 * `downCards`; other seats only say how many they hold (`downCardCount`), drawn as backs.
 */

import { timestampMs } from "@bufbuild/protobuf/wkt";

import { ActionKind, PotShare, SeatStatus } from "../index.js";
import type { Event as TableEvent, HandResult, LegalAction, Seat, TableSnapshot } from "../index.js";
import { cardElement, dealtOrder } from "./cards.js";
import {
  actionHasAmount,
  actionLabel,
  actionVerb,
  categoryName,
  chips,
  statusName,
  streetName,
} from "./format.js";

/** Shorthand for making an element with a class and text. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className = "",
  text?: string,
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (className) element.className = className;
  if (text !== undefined) element.textContent = text;
  return element;
}

function byId(id: string): HTMLElement {
  const element = document.getElementById(id);
  if (element === null) throw new Error(`the page has no #${id}`);
  return element;
}

/** A seat's display name, by seat number (seats that left show as "Seat n"). */
export function seatName(snapshot: TableSnapshot, seat: number): string {
  return snapshot.seats.find((s) => s.number === seat)?.displayName || `Seat ${seat}`;
}

/**
 * The local time (Date.now() scale) at which the turn's clock runs out. The engine's deadline
 * is compared with its own server_time, not the device's clock, which may be off.
 */
export function localDeadline(snapshot: TableSnapshot, receivedAt: number): number | undefined {
  if (snapshot.turnDeadline === undefined || snapshot.serverTime === undefined) return undefined;
  return receivedAt + (timestampMs(snapshot.turnDeadline) - timestampMs(snapshot.serverTime));
}

/** Where seat `number` sits on the oval: the viewer at the bottom, the others clockwise. */
function seatPosition(number: number, viewer: number, seats: number): { left: number; top: number } {
  const offset = (number - (viewer || 1) + seats) % seats;
  const angle = Math.PI / 2 + (offset * 2 * Math.PI) / seats;
  return { left: 50 + 38 * Math.cos(angle), top: 50 + 36 * Math.sin(angle) };
}

/**
 * Where each seat goes on a phone (table.css, narrow screens): a grid of two columns, seats in
 * the same clockwise order as on the oval — up the left side from the viewer's left, then down
 * the right side — then the pot row, and the viewer's own seat across the bottom. Every seat
 * has a cell of its own, so plates, cards and bets never overlap, for 2 to 9 seats.
 */
export function phoneCells(
  snapshot: Pick<TableSnapshot, "seats" | "viewerSeat">,
  total: number,
): { seats: Map<number, { col: number; row: number }>; centerRow: number } {
  const viewer = snapshot.viewerSeat;
  const others = snapshot.seats
    .filter((s) => s.number !== viewer)
    .map((s) => ({ number: s.number, offset: (s.number - (viewer || 1) + total) % total || total }))
    .sort((a, b) => a.offset - b.offset);
  const left = Math.ceil(others.length / 2);
  const rows = Math.max(left, 1);
  const seats = new Map<number, { col: number; row: number }>();
  others.forEach((seat, i) => {
    seats.set(seat.number, i < left ? { col: 1, row: rows - i } : { col: 2, row: 1 + (i - left) });
  });
  const centerRow = rows + 1;
  if (snapshot.seats.some((s) => s.number === viewer)) seats.set(viewer, { col: 1, row: centerRow + 1 });
  return { seats, centerRow };
}

function seatTags(snapshot: TableSnapshot, seat: Seat): string[] {
  const tags: string[] = [];
  if (seat.number === snapshot.buttonSeat) tags.push("dealer");
  if (seat.number === snapshot.bringInSeat && snapshot.handInProgress) tags.push("bring-in");
  if (seat.folded) tags.push("folded");
  if (seat.allIn) tags.push("all in");
  if (seat.allInProtected) tags.push("protected");
  if (seat.status === SeatStatus.SITTING_OUT) tags.push("sitting out");
  if (seat.status === SeatStatus.LEAVING) tags.push("leaving");
  if (!seat.connected) tags.push("away");
  return tags;
}

function seatElement(snapshot: TableSnapshot, seat: Seat, deadline: number | undefined): HTMLElement {
  const me = seat.number === snapshot.viewerSeat;
  const turn = seat.number === snapshot.turnSeat && snapshot.handInProgress;
  const box = el("div", "seat");
  box.classList.toggle("me", me);
  box.classList.toggle("turn", turn);
  box.classList.toggle("folded", seat.folded);
  box.classList.toggle("out", !seat.inHand && snapshot.handInProgress);
  box.dataset["seat"] = String(seat.number);
  box.dataset["player"] = seat.playerId;

  // Between hands the seats hold no cards; the hands shown at the last showdown stay on the
  // felt until the next deal, as they would on a real table.
  const result = snapshot.handInProgress ? undefined : snapshot.lastHand;
  const shownAtShowdown = result?.shown.find((shown) => shown.seat === seat.number)?.cards ?? [];
  const won = (result?.pots ?? []).flatMap((pot) => pot.awards).filter((award) => award.seat === seat.number);
  const cards = el("div", "cards");
  const shown = seat.shownCards.length > 0 ? seat.shownCards : shownAtShowdown;
  if (shown.length > 0) {
    cards.append(...shown.map((card) => cardElement(card)));
    cards.classList.add("shown");
  } else {
    // Folded cards are never shown (docs/rules.md §2.12), not even his own once he has folded them.
    const down = seat.folded ? [] : seat.downCards;
    cards.append(...dealtOrder(down, Math.max(seat.downCardCount, seat.downCards.length), seat.upCards));
  }
  box.append(cards);
  box.classList.toggle("winner", won.length > 0);

  const plate = el("div", "plate");
  plate.append(el("span", "name", seat.displayName || seat.playerId), el("span", "stack", chips(seat.stack)));
  box.append(plate);

  // Under the plate: one line of tags and the bet (or, between hands, what he won), then the
  // turn's clock. On the oval this keeps the same room whatever it holds (table.css), so the
  // cards and plates stay where they are as the turn moves round and hands end.
  const below = el("div", "below");
  const marks = el("div", "marks");
  for (const tag of seatTags(snapshot, seat)) marks.append(el("span", `tag tag-${tag.replace(/\s+/g, "-")}`, tag));
  if (seat.betThisStreet > 0n) marks.append(el("span", "bet", chips(seat.betThisStreet)));
  if (won.length > 0) {
    const total = won.reduce((sum, award) => sum + award.amount, 0n);
    marks.append(el("span", "won", `wins ${chips(total)}`));
  }
  if (marks.childElementCount > 0) below.append(marks);
  if (turn && deadline !== undefined) below.append(clockElement(deadline, actionSeconds(snapshot)));
  box.append(below);
  return box;
}

function actionSeconds(snapshot: TableSnapshot): number {
  return snapshot.settings?.rules?.actionSeconds ?? 0;
}

/** A countdown bar; {@link tickClocks} keeps it moving. */
export function clockElement(deadline: number, totalSeconds: number): HTMLElement {
  const clock = el("div", "clock");
  clock.dataset["deadline"] = String(deadline);
  clock.dataset["total"] = String(Math.max(1, totalSeconds) * 1000);
  clock.append(el("div", "fill"), el("span", "seconds"));
  tickClock(clock, Date.now());
  return clock;
}

function tickClock(clock: HTMLElement, now: number): void {
  const remaining = Math.max(0, Number(clock.dataset["deadline"]) - now);
  const total = Number(clock.dataset["total"]);
  const fill = clock.querySelector<HTMLElement>(".fill");
  const seconds = clock.querySelector<HTMLElement>(".seconds");
  if (fill !== null) fill.style.width = `${Math.min(100, (100 * remaining) / total)}%`;
  if (seconds !== null) seconds.textContent = `${Math.ceil(remaining / 1000)} s`;
  clock.classList.toggle("urgent", remaining < 5000);
}

/** Move every countdown on the page (called a few times a second). */
export function tickClocks(): void {
  const now = Date.now();
  for (const clock of document.querySelectorAll<HTMLElement>(".clock[data-deadline]")) tickClock(clock, now);
}

/** The felt: seats around the oval, the pots and the hand in the middle, and the header. */
export function renderTable(snapshot: TableSnapshot, deadline: number | undefined): void {
  const view = byId("table-view");
  const me = snapshot.seats.find((s) => s.number === snapshot.viewerSeat);
  const last = snapshot.lastHand;
  // State for tests and tools (the page's own drawing does not read it back).
  Object.assign(view.dataset, {
    table: snapshot.table,
    status: String(snapshot.status),
    handNumber: String(snapshot.handNumber),
    handInProgress: String(snapshot.handInProgress),
    viewerSeat: String(snapshot.viewerSeat),
    turnSeat: String(snapshot.turnSeat),
    inHand: String(Boolean(me?.inHand) && snapshot.handInProgress),
    lastHand: last === undefined ? "" : String(last.handNumber),
  });

  const stakes = snapshot.settings?.stakes;
  byId("table-name").textContent = snapshot.table.replace(/^tables\//, "Table ");
  byId("table-stakes").textContent =
    stakes === undefined
      ? ""
      : `${snapshot.settings?.profile ?? ""} · ${chips(stakes.smallBet)}/${chips(stakes.bigBet)}, ante ${chips(stakes.ante)}, bring-in ${chips(stakes.bringIn)}`;
  byId("table-status").textContent = statusName(snapshot.status);

  const total = Math.max(snapshot.settings?.rules?.maxPlayers ?? 0, ...snapshot.seats.map((s) => s.number), 2);
  const seats = byId("seats");
  const cells = phoneCells(snapshot, total);
  seats.replaceChildren(
    ...snapshot.seats.map((seat) => {
      const box = seatElement(snapshot, seat, deadline);
      const { left, top } = seatPosition(seat.number, snapshot.viewerSeat, total);
      box.style.left = `${left}%`;
      box.style.top = `${top}%`;
      const cell = cells.seats.get(seat.number);
      if (cell !== undefined) {
        box.style.setProperty("--col", String(cell.col));
        box.style.setProperty("--row", String(cell.row));
      }
      return box;
    }),
  );
  byId("felt").style.setProperty("--center-row", String(cells.centerRow));
  byId("felt").dataset["seats"] = String(snapshot.seats.length);

  byId("hand-info").textContent =
    snapshot.handNumber > 0n
      ? `Hand #${snapshot.handNumber}${snapshot.handInProgress ? ` · ${streetName(snapshot.street)}` : " · between hands"}`
      : "No hand yet";
  renderPots(snapshot);
  renderResult(snapshot, last);

  renderFairness(snapshot);
}

/**
 * The pot, said in full: "Pot 5" is every chip of the hand (pot_total); under it what it is made
 * of — the main pot and side pots collected so far, and the bets in front of the players on this
 * street, which join the pots when the street's betting ends.
 */
function renderPots(snapshot: TableSnapshot): void {
  const total = byId("pot-total");
  const parts = byId("pots");
  if (!snapshot.handInProgress) {
    total.textContent = "";
    parts.replaceChildren();
    return;
  }
  total.textContent = `Pot ${chips(snapshot.potTotal)}`;
  total.title = "Every chip put in this hand: antes, bring-in and bets";
  const collected = snapshot.pots.reduce((sum, pot) => sum + pot.amount, 0n);
  const bets = snapshot.potTotal - collected;
  const items: HTMLElement[] = snapshot.pots.map((pot, index) => {
    const name = index === 0 ? "main pot" : snapshot.pots.length > 2 ? `side pot ${index}:` : "side pot";
    const item = el("span", "pot", `${name} ${chips(pot.amount)}`);
    item.dataset["pot"] = String(index);
    item.title = index === 0 ? "Collected from earlier betting (antes included)" : "Only for players who put in more than an all-in player";
    return item;
  });
  if (bets > 0n) {
    const item = el("span", "pot bets", `bets this street ${chips(bets)}`);
    item.title = "Chips in front of the players, not yet gathered into the pot";
    item.dataset["pot"] = "bets";
    items.push(item);
  }
  const joined: (HTMLElement | Text)[] = [document.createTextNode("= ")];
  items.forEach((item, i) => {
    if (i > 0) joined.push(document.createTextNode(" + "));
    joined.push(item);
  });
  parts.replaceChildren(...joined);
}

/** The seed pair dealing this table (docs/fairness.md §3): what the player can check later. */
function renderFairness(snapshot: TableSnapshot): void {
  const seed = snapshot.seed;
  const box = byId("fairness");
  if (seed === undefined) {
    box.replaceChildren();
    return;
  }
  const code = (text: string, title: string): HTMLElement => {
    const element = el("code", "", text);
    element.title = title;
    return element;
  };
  // snapshot.nonce is the running hand's, or the last one's between hands (none before the
  // pair deals its first hand: the next hand's nonce is then hands_dealt, 0).
  const dealt = snapshot.handInProgress || seed.handsDealt > 0n;
  const nonce = snapshot.handInProgress
    ? `this hand's nonce ${snapshot.nonce}`
    : dealt
      ? `last hand's nonce ${snapshot.nonce}`
      : `no hand dealt from it yet (the first is nonce ${seed.handsDealt})`;
  Object.assign(box.dataset, {
    nonce: dealt ? String(snapshot.nonce) : "",
    handsDealt: String(seed.handsDealt),
    handInProgress: String(snapshot.handInProgress),
    commitment: seed.commitment,
  });
  box.replaceChildren(
    document.createTextNode("Dealer seed commitment "),
    code(`${seed.commitment.slice(0, 16)}…`, seed.commitment),
    document.createTextNode(", your client seed "),
    code(seed.clientSeed, "chosen by this browser"),
    document.createTextNode(
      `, ${nonce}. The dealer seed is revealed when it is rotated or the table closes: then every hand it dealt can be checked, and recomputed by anyone.`,
    ),
  );
}

/** The last finished hand: who won which pot, and the hands shown. */
function renderResult(snapshot: TableSnapshot, result: HandResult | undefined): void {
  const box = byId("last-hand");
  if (result === undefined && snapshot.handNumber > 0n && box.dataset["table"] === snapshot.table) {
    // A node that has just taken the table on (moved, or taken over) knows no last hand: the
    // one shown is still the table's last.
    return;
  }
  if (result === undefined) {
    box.replaceChildren(el("h3", "", "Last hand"), el("p", "muted", "No hand has finished yet."));
    delete box.dataset["handNumber"];
    return;
  }
  box.dataset["handNumber"] = String(result.handNumber);
  box.dataset["table"] = snapshot.table;
  const how = result.cancelled ? "cancelled: every chip went back" : result.wonByFold ? "won uncontested" : "showdown";
  const parts: HTMLElement[] = [el("h3", "", `Hand #${result.handNumber} result`), el("p", "muted", how)];

  const winners = el("ul", "winners");
  result.pots.forEach((pot, index) => {
    const label = result.pots.length > 1 ? (index === 0 ? "Main pot" : `Side pot ${index}`) : "Pot";
    for (const award of pot.awards) {
      const share = award.share === PotShare.HIGH ? " (high)" : award.share === PotShare.LOW ? " (low)" : "";
      const item = el("li", "winner");
      item.append(
        el("strong", "", seatName(snapshot, award.seat)),
        document.createTextNode(` wins ${chips(award.amount)}${share} — ${label} ${chips(pot.amount)}`),
      );
      item.dataset["seat"] = String(award.seat);
      winners.append(item);
    }
  });
  parts.push(winners);

  for (const shown of result.shown) {
    const line = el("div", "shown-hand");
    const cards = el("div", "cards small");
    cards.append(...shown.cards.map((card) => cardElement(card)));
    const category = shown.high === undefined ? "" : categoryName(shown.high.category);
    const title = el("div", "shown-title");
    title.append(el("span", "name", seatName(snapshot, shown.seat)), el("span", "category muted", category));
    line.append(title, cards);
    parts.push(line);
  }
  if (result.rake > 0n) parts.push(el("p", "muted", `Rake ${chips(result.rake)}`));
  box.replaceChildren(...parts);
}

/** One line of the table log for an event, or undefined for events not worth a line. */
export function describeEvent(snapshot: TableSnapshot, event: TableEvent): string | undefined {
  const kind = event.kind;
  const name = (seat: number): string => seatName(snapshot, seat);
  switch (kind.case) {
    case "handStarted":
      return `Hand #${kind.value.handNumber} starts`;
    case "bringInPosted":
      return `${name(kind.value.seat)} brings in ${chips(kind.value.amount)}`;
    case "streetStarted":
      return `${streetName(kind.value.street)}`;
    case "actionTaken": {
      const a = kind.value;
      const amount = actionHasAmount(a.kind) ? ` ${chips(a.amount)}` : "";
      return `${name(a.seat)} ${actionVerb(a.kind)}${amount}${a.allIn ? " (all in)" : ""}${a.timedOut ? " — clock ran out" : ""}`;
    }
    case "potAwarded":
      return (kind.value.pot?.awards ?? []).map((w) => `${name(w.seat)} wins ${chips(w.amount)}`).join("; ");
    case "turnExtended":
      // The server was stalled while his clock ran: he gets that time back.
      return `${name(kind.value.seat)} gets ${(Number(kind.value.addedMs) / 1000).toFixed(1)} s back on the clock (the server paused)`;
    case "handCancelled":
      return `Hand #${event.handNumber} cancelled (${kind.value.reason || "by ops"}): every chip went back`;
    case "handSettled": {
      // Ended by its stored actions before the engine stopped: told once it served again.
      const wins = (kind.value.result?.pots ?? [])
        .flatMap((pot) => pot.awards)
        .map((w) => `${name(w.seat)} wins ${chips(w.amount)}`);
      return `Hand #${event.handNumber} settled after an ${kind.value.reason || "engine restart"}${wins.length > 0 ? `: ${wins.join("; ")}` : ""}`;
    }
    case "playerJoined":
      return `${kind.value.seat?.displayName || name(kind.value.seat?.number ?? 0)} sits down`;
    case "playerLeft":
      return `${kind.value.displayName} leaves with ${chips(kind.value.finalStack)}`;
    case "chipsAdded":
      return `${name(kind.value.seat)} adds ${chips(kind.value.amount)}`;
    case "tableStatusChanged":
      return `Table: ${statusName(kind.value.status)}`;
    case "seedRotated": {
      const dealt = kind.value.revealed?.handsDealt ?? 0n;
      return dealt > 0n
        ? `Seed pair rotated: the dealer seed of the last ${dealt === 1n ? "hand" : `${dealt} hands`} is revealed`
        : "Seed pair rotated before it dealt a hand";
    }
    default:
      return undefined;
  }
}

/** What the viewer has to pay to call: the street's bet minus what he has in front of him. */
export function toCall(snapshot: TableSnapshot): bigint {
  const me = snapshot.seats.find((s) => s.number === snapshot.viewerSeat);
  return me === undefined ? 0n : snapshot.streetBet - me.betThisStreet;
}

/** One button (with an amount field where the size is the player's choice) per legal action. */
export function renderActions(
  snapshot: TableSnapshot,
  deadline: number | undefined,
  onAct: (kind: ActionKind, amount: bigint | undefined) => void,
): void {
  const bar = byId("actions");
  const myTurn =
    snapshot.handInProgress && snapshot.turnSeat === snapshot.viewerSeat && snapshot.legalActions.length > 0;
  bar.dataset["myTurn"] = String(myTurn);
  if (!myTurn) {
    const waiting = snapshot.handInProgress
      ? snapshot.turnSeat > 0
        ? `Waiting for ${seatName(snapshot, snapshot.turnSeat)}…`
        : ""
      : "Waiting for the next hand…";
    bar.replaceChildren(el("p", "muted", waiting));
    return;
  }
  const banner = el("div", "turn-banner");
  banner.append(el("strong", "", "Your turn"));
  const owed = toCall(snapshot);
  if (owed > 0n) banner.append(el("span", "muted", ` · ${chips(owed)} to call`));
  if (deadline !== undefined) banner.append(clockElement(deadline, actionSeconds(snapshot)));
  const buttons = el("div", "buttons");
  for (const action of snapshot.legalActions) buttons.append(...actionControls(action, onAct));
  bar.replaceChildren(banner, buttons);
}

function actionButton(action: LegalAction, amount: bigint | undefined, label: string): HTMLButtonElement {
  const button = el("button", `action action-${ActionKind[action.kind].toLowerCase()}`, label);
  button.type = "button";
  button.dataset["kind"] = ActionKind[action.kind];
  if (amount !== undefined) button.dataset["amount"] = String(amount);
  return button;
}

function actionControls(
  action: LegalAction,
  onAct: (kind: ActionKind, amount: bigint | undefined) => void,
): HTMLElement[] {
  const label = actionLabel(action.kind);
  const sized = actionHasAmount(action.kind);
  // One legal size: Act takes no amount. A few discrete sizes: one button each.
  if (action.minAmount === action.maxAmount) {
    const button = actionButton(action, undefined, sized ? `${label} ${chips(action.minAmount)}` : label);
    if (action.allIn) button.textContent += " (all in)";
    button.addEventListener("click", () => onAct(action.kind, undefined));
    return [button];
  }
  if (action.amounts.length > 0) {
    return action.amounts.map((amount) => {
      const button = actionButton(action, amount, `${label} ${chips(amount)}`);
      button.addEventListener("click", () => onAct(action.kind, amount));
      return button;
    });
  }
  // A range (pot limit, no limit, a bring-in's choice): the player types the total.
  const group = el("span", "sized");
  const input = el("input", "amount");
  input.type = "number";
  input.min = String(action.minAmount);
  input.max = String(action.maxAmount);
  input.step = "1";
  input.value = String(action.minAmount);
  input.setAttribute("aria-label", `${label} amount`);
  const button = actionButton(action, action.minAmount, label);
  button.addEventListener("click", () => {
    const value = BigInt(Math.round(Number(input.value) || 0));
    const amount = value < action.minAmount ? action.minAmount : value > action.maxAmount ? action.maxAmount : value;
    onAct(action.kind, amount);
  });
  group.append(button, input);
  return [group];
}
