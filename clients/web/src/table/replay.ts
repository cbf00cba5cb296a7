/**
 * One hand replayed street by street, from its PHH text (GET /hands/{id}/phh, already
 * redacted by the lobby for the player: "??" for every card he may not see).
 *
 * The PHH action list deals each street in one group of `d dh pN CARDS` lines, then its
 * betting (`pN pb` bring-in, `pN cbr TO` complete/bet/raise to TO, `pN cc` check or call,
 * `pN f` fold), and at the end the showdown (`pN sm CARDS`, or `pN sm` for a muck). A
 * comment-only line `# pN cc (bring-in's last turn)` is a check. A community card (short
 * deck) is `d db CARD`. PHH player pN is the N-th entry of `seats` (see
 * engine_server/game/phh.py).
 *
 * A bet nobody called (everyone else folded, or was all in for less) goes back to its player
 * when the street's betting ends, as the engine gives it back: it is not in the pot.
 *
 * Pure functions (no DOM): the page draws the result (history.ts).
 */

const STREET_NAMES = ["Third street", "Fourth street", "Fifth street", "Sixth street", "Seventh street"];

/** A card as the replay knows it: "Ah", or undefined for a card he may not see (a back). */
export type ReplayCard = string | undefined;

export interface ReplayAction {
  seat: number;
  /** fold, check, call, bring_in, complete, bet, raise, show, muck. */
  kind: string;
  /** Bring-in, call: what he put in; complete, bet, raise: the total he made it. */
  amount?: number;
  cards?: string[];
  timeout?: boolean;
  allIn?: boolean;
}

export interface ReplayDeal {
  seat: number;
  /** In dealing order; `up` says which ones everyone saw. */
  cards: { card: ReplayCard; up: boolean }[];
}

export interface ReplayStreet {
  name: string;
  deals: ReplayDeal[];
  /** Cards dealt face up to everyone (short deck, when the stub cannot give each his own). */
  community: string[];
  actions: ReplayAction[];
  /** The part of a bet nobody called, given back to its player when the betting ended. */
  returned?: { seat: number; amount: number };
  /** The pot when the street's betting is over (antes and every called bet so far). */
  potAfter: number;
}

export interface Replay {
  /** PHH players in dealing order: table seat and name. */
  players: { seat: number; name: string; startStack: number; finalStack: number | undefined }[];
  antes: number;
  streets: ReplayStreet[];
  /** The showdown: shows and mucks (empty when nobody had to show). */
  showdown: ReplayAction[];
}

/** A TOML value as PHH writes it: strings, numbers, booleans and arrays of them. */
type Value = string | number | boolean | Value[];

/** The top-level `key = value` fields of a PHH document (inline tables are skipped). */
export function parsePhhFields(text: string): Map<string, Value> {
  const fields = new Map<string, Value>();
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(lines[i] ?? "");
    if (match === null) continue;
    const key = match[1] ?? "";
    let raw = (match[2] ?? "").trim();
    if (raw.startsWith("[") && !balanced(raw)) {
      while (i + 1 < lines.length && !balanced(raw)) raw += `\n${lines[++i] ?? ""}`;
    }
    const value = parseValue(raw);
    if (value !== undefined) fields.set(key, value);
  }
  return fields;
}

function balanced(raw: string): boolean {
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (quoted) {
      if (c === "\\") i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === "[") depth++;
    else if (c === "]") depth--;
  }
  return depth === 0;
}

function parseValue(raw: string): Value | undefined {
  if (raw.includes("{")) return undefined; // inline tables (_pots, _rules): not needed here
  // TOML's basic strings, numbers, booleans and arrays are JSON but for trailing commas.
  const json = raw.replace(/,(\s*\])/g, "$1");
  try {
    return JSON.parse(json) as Value;
  } catch {
    return undefined;
  }
}

function numbers(value: Value | undefined): number[] {
  return Array.isArray(value) ? value.map((v) => Number(v)) : [];
}

function cardsOf(text: string): ReplayCard[] {
  const cards: ReplayCard[] = [];
  for (let i = 0; i + 1 < text.length; i += 2) {
    const card = text.slice(i, i + 2);
    cards.push(card === "??" ? undefined : card);
  }
  return cards;
}

/**
 * The hand street by street. `finalStacks` (by table seat) comes from the hand's record
 * (GET /hands/{id}); `names` too, as a fallback for PHH documents without `players`.
 */
export function replayFromPhh(text: string, finalStacks: ReadonlyMap<number, number> = new Map()): Replay {
  const fields = parsePhhFields(text);
  const seats = numbers(fields.get("seats"));
  const starts = numbers(fields.get("starting_stacks"));
  const antes = numbers(fields.get("antes"));
  const names = fields.get("players");
  const bringIn = Number(fields.get("bring_in") ?? 0);
  const actions = fields.get("actions");
  const seatOf = (player: string): number => seats[Number(player.slice(1)) - 1] ?? 0;

  const players = seats.map((seat, i) => ({
    seat,
    name: Array.isArray(names) ? String(names[i] ?? `Seat ${seat}`) : `Seat ${seat}`,
    startStack: starts[i] ?? 0,
    finalStack: finalStacks.get(seat),
  }));
  const stacks = new Map(players.map((p, i) => [p.seat, p.startStack - (antes[i] ?? 0)]));
  // What each seat has put in this hand, antes included (folded seats' chips stay in).
  const contributed = new Map(players.map((p, i) => [p.seat, antes[i] ?? 0]));
  let pot = antes.reduce((sum, a) => sum + a, 0);

  const streets: ReplayStreet[] = [];
  const showdown: ReplayAction[] = [];
  let street: ReplayStreet | undefined;
  let dealing = false;
  let level = 0; // the street's bet
  let put = new Map<number, number>(); // what each seat put in on this street

  const closeStreet = (): void => {
    if (street !== undefined) {
      for (const amount of put.values()) pot += amount;
      // When the betting ends, whoever put in more than anyone else gets the difference back:
      // nobody could call it (engine_server/game/hand.py, _return_uncalled).
      const ranked = [...contributed].sort((a, b) => b[1] - a[1]);
      const [top, second] = ranked;
      const excess = top === undefined ? 0 : top[1] - (second?.[1] ?? 0);
      if (top !== undefined && excess > 0) {
        const [seat] = top;
        contributed.set(seat, top[1] - excess);
        stacks.set(seat, (stacks.get(seat) ?? 0) + excess);
        pot -= excess;
        street.returned = { seat, amount: excess };
      }
      street.potAfter = pot;
    }
    put = new Map();
    level = 0;
  };
  const openStreet = (): void => {
    closeStreet();
    street = {
      name: STREET_NAMES[streets.length] ?? `Street ${streets.length + 3}`,
      deals: [],
      community: [],
      actions: [],
      potAfter: pot,
    };
    streets.push(street);
  };
  const putTo = (seat: number, total: number): number => {
    const before = put.get(seat) ?? 0;
    const stack = stacks.get(seat) ?? 0;
    const more = Math.min(Math.max(0, total - before), stack);
    stacks.set(seat, stack - more);
    put.set(seat, before + more);
    contributed.set(seat, (contributed.get(seat) ?? 0) + more);
    return more;
  };

  for (const entry of Array.isArray(actions) ? actions : []) {
    const raw = String(entry);
    const timeout = /#\s*timeout/.test(raw);
    // "# pN cc (bring-in's last turn)" is a check; other comment lines say nothing to replay.
    const line = (raw.startsWith("# ") && /^# p\d+ cc\b/.test(raw) ? raw.slice(2) : raw).replace(/\s*#.*$/, "").trim();
    if (line === "") continue;
    const words = line.split(/\s+/);
    if (words[0] === "d" && (words[1] === "dh" || words[1] === "db")) {
      if (!dealing) {
        openStreet();
        dealing = true;
      }
      if (words[1] === "db") {
        // A community card: the street's card for everyone (it may be the street's only deal).
        street?.community.push(...cardsOf(words[2] ?? "").filter((c): c is string => c !== undefined));
        continue;
      }
      const cards = cardsOf(words[3] ?? "");
      const third = streets.length === 1;
      const seventh = streets.length === 5;
      street?.deals.push({
        seat: seatOf(words[2] ?? ""),
        cards: cards.map((card, i) => ({ card, up: third ? i === 2 : !seventh })),
      });
      continue;
    }
    dealing = false;
    if (words[0] === "d") continue;
    const seat = seatOf(words[0] ?? "");
    const verb = words[1];
    const action: ReplayAction = { seat, kind: "?" };
    if (timeout) action.timeout = true;
    if (verb === "f") {
      action.kind = "fold";
    } else if (verb === "pb") {
      action.kind = "bring_in";
      action.amount = putTo(seat, bringIn);
      level = Math.max(level, put.get(seat) ?? 0);
    } else if (verb === "cbr") {
      const to = Number(words[2] ?? 0);
      action.kind = streets.length === 1 && level <= bringIn ? "complete" : level === 0 ? "bet" : "raise";
      putTo(seat, to);
      action.amount = put.get(seat) ?? to;
      level = Math.max(level, action.amount);
    } else if (verb === "cc") {
      const owed = level - (put.get(seat) ?? 0);
      action.kind = owed > 0 ? "call" : "check";
      if (owed > 0) action.amount = putTo(seat, level);
    } else if (verb === "sm") {
      const shown = cardsOf(words[2] ?? "").filter((c): c is string => c !== undefined);
      action.kind = shown.length > 0 ? "show" : "muck";
      if (shown.length > 0) action.cards = shown;
      showdown.push(action);
      continue;
    } else {
      continue;
    }
    if ((stacks.get(seat) ?? 0) === 0 && action.kind !== "fold" && action.kind !== "check") action.allIn = true;
    street?.actions.push(action);
  }
  closeStreet();
  return { players, antes: antes.reduce((sum, a) => sum + a, 0), streets, showdown };
}
