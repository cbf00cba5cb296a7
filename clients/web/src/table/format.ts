/**
 * Words and numbers for the table page: chip amounts, streets, actions, hand categories.
 * Pure functions (no DOM), so they are easy to reuse and to test.
 */

import { ActionKind, HandCategory, Street, TableStatus } from "../index.js";

/** Chips as the page shows them: "1,250". Amounts are int64 (bigint) on the wire. */
export function chips(amount: bigint | number): string {
  return amount.toLocaleString("en-US");
}

const STREETS: Record<Street, string> = {
  [Street.UNSPECIFIED]: "Between hands",
  [Street.THIRD]: "Third street",
  [Street.FOURTH]: "Fourth street",
  [Street.FIFTH]: "Fifth street",
  [Street.SIXTH]: "Sixth street",
  [Street.SEVENTH]: "Seventh street",
  [Street.SHOWDOWN]: "Showdown",
};

export function streetName(street: Street): string {
  return STREETS[street] ?? "";
}

const STATUSES: Record<TableStatus, string> = {
  [TableStatus.UNSPECIFIED]: "",
  [TableStatus.WAITING]: "Waiting for players",
  [TableStatus.PLAYING]: "Playing",
  [TableStatus.PAUSING]: "Pausing after this hand",
  [TableStatus.PAUSED]: "Paused",
  [TableStatus.CLOSING]: "Closing after this hand",
  [TableStatus.CLOSED]: "Closed",
};

export function statusName(status: TableStatus): string {
  return STATUSES[status] ?? "";
}

/** The verb of an action, for buttons ("Call") and the log ("calls"). */
const ACTIONS: Record<ActionKind, [button: string, log: string]> = {
  [ActionKind.UNSPECIFIED]: ["?", "?"],
  [ActionKind.FOLD]: ["Fold", "folds"],
  [ActionKind.CHECK]: ["Check", "checks"],
  [ActionKind.CALL]: ["Call", "calls"],
  [ActionKind.BET]: ["Bet", "bets"],
  [ActionKind.RAISE]: ["Raise to", "raises to"],
  [ActionKind.COMPLETE]: ["Complete to", "completes to"],
  [ActionKind.BRING_IN]: ["Bring in", "brings in"],
  [ActionKind.SHOW]: ["Show", "shows"],
  [ActionKind.MUCK]: ["Muck", "mucks"],
};

export function actionLabel(kind: ActionKind): string {
  return ACTIONS[kind]?.[0] ?? String(kind);
}

export function actionVerb(kind: ActionKind): string {
  return ACTIONS[kind]?.[1] ?? String(kind);
}

/** Whether an action carries an amount worth printing ("call 4", but "fold"). */
export function actionHasAmount(kind: ActionKind): boolean {
  return (
    kind === ActionKind.CALL ||
    kind === ActionKind.BET ||
    kind === ActionKind.RAISE ||
    kind === ActionKind.COMPLETE ||
    kind === ActionKind.BRING_IN
  );
}

const CATEGORIES: Record<HandCategory, string> = {
  [HandCategory.UNSPECIFIED]: "",
  [HandCategory.HIGH_CARD]: "High card",
  [HandCategory.ONE_PAIR]: "One pair",
  [HandCategory.TWO_PAIR]: "Two pair",
  [HandCategory.THREE_OF_A_KIND]: "Three of a kind",
  [HandCategory.STRAIGHT]: "Straight",
  [HandCategory.FLUSH]: "Flush",
  [HandCategory.FULL_HOUSE]: "Full house",
  [HandCategory.FOUR_OF_A_KIND]: "Four of a kind",
  [HandCategory.STRAIGHT_FLUSH]: "Straight flush",
};

export function categoryName(category: HandCategory): string {
  return CATEGORIES[category] ?? "";
}

/** Random bytes from the browser's CSPRNG, base64url without padding: [A-Za-z0-9_-]. */
export function randomToken(bytes: number): string {
  const buffer = new Uint8Array(bytes);
  crypto.getRandomValues(buffer);
  let binary = "";
  for (const byte of buffer) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
