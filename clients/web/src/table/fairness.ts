/**
 * The deck check of docs/fairness.md §4, done by the player's own browser with WebCrypto: from the
 * revealed dealer seed, his client seed and the hand's nonce, derive the deck again and check
 * that the commitment shown before the hand is SHA-256 of the seed and that every card he was
 * dealt sits where the deck says.
 *
 *   block(r) = HMAC-SHA256(key = the dealer seed's 64 ASCII hex characters,
 *                          message = "{client_seed}:{nonce}:{r}"),  r = 0, 1, 2, ...
 *   the stream block(0) ‖ block(1) ‖ ... is read as big-endian uint32 values;
 *   draw(n): Lemire's method, discarding x when (x·n) mod 2^32 < 2^32 mod n;
 *   deck: for k = 0..51 take the card at draw(52 − k) out of "2c 2d 2h 2s 3c ... As".
 *
 * No DOM: it runs in browsers and in Node (globalThis.crypto.subtle), where
 * test/fairness.test.ts checks it against the published test vector.
 */

const RANKS = "23456789TJQKA";
const SUITS = "cdhs";
const TWO_32 = 4294967296;

/** The canonical order: 2c 2d 2h 2s 3c ... As (rank major, suits c d h s). */
export const CANONICAL_DECK: readonly string[] = [...RANKS].flatMap((rank) => [...SUITS].map((suit) => rank + suit));

const SEED = /^[0-9a-f]{64}$/;
const CLIENT_SEED = /^[A-Za-z0-9_-]{1,64}$/;

function hex(bytes: ArrayBuffer): string {
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** SHA-256 of the seed's 64 ASCII hex characters, lowercase hex: the commitment. */
export async function commitmentOf(dealerSeed: string): Promise<string> {
  return hex(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(dealerSeed)));
}

/** The HMAC-SHA256 byte stream of one hand, read four bytes at a time. */
class Stream {
  private block = new DataView(new ArrayBuffer(0));
  private offset = 0;
  private round = 0;

  private constructor(
    private readonly key: CryptoKey,
    private readonly prefix: string,
  ) {}

  static async open(dealerSeed: string, clientSeed: string, nonce: number | bigint): Promise<Stream> {
    const key = await crypto.subtle.importKey(
      "raw",
      new TextEncoder().encode(dealerSeed),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    return new Stream(key, `${clientSeed}:${nonce}:`);
  }

  /** The next big-endian unsigned 32-bit integer (a block holds 8; then the next block). */
  async next(): Promise<number> {
    if (this.offset + 4 > this.block.byteLength) {
      const message = new TextEncoder().encode(`${this.prefix}${this.round}`);
      this.block = new DataView(await crypto.subtle.sign("HMAC", this.key, message));
      this.round += 1;
      this.offset = 0;
    }
    const value = this.block.getUint32(this.offset, false);
    this.offset += 4;
    return value;
  }

  below(n: number): Promise<number> {
    return drawBelow(() => this.next(), n);
  }
}

/**
 * An unbiased number below n (1 ≤ n ≤ 52) from a stream of uint32 values, by Lemire's method:
 * m = x·n; x is discarded while m mod 2^32 < 2^32 mod n; else m >> 32. x·n < 2^38 is exact in
 * a double, so plain arithmetic does.
 */
export async function drawBelow(next: () => Promise<number>, n: number): Promise<number> {
  const threshold = TWO_32 % n;
  for (;;) {
    const m = (await next()) * n;
    if (m % TWO_32 >= threshold) return Math.floor(m / TWO_32);
  }
}

/** The deck of one hand, index 0 first. Throws on a malformed seed, client seed or nonce. */
export async function deriveDeck(dealerSeed: string, clientSeed: string, nonce: number | bigint): Promise<string[]> {
  if (!SEED.test(dealerSeed)) throw new Error("the dealer seed is not 64 lowercase hex characters");
  if (!CLIENT_SEED.test(clientSeed)) throw new Error("the client seed is not 1-64 characters of [A-Za-z0-9_-]");
  if (BigInt(nonce) < 0n) throw new Error("the nonce is negative");
  const stream = await Stream.open(dealerSeed, clientSeed, nonce);
  const remaining = [...CANONICAL_DECK];
  const deck: string[] = [];
  for (let k = 0; k < 52; k++) {
    const index = await stream.below(52 - k);
    deck.push(...remaining.splice(index, 1));
  }
  return deck;
}

/** A card the player was dealt, and where the hand's record says it came from. */
export interface DealtCard {
  card: string;
  deckIndex: number;
}

export interface FairnessInput {
  /** The commitment shown before the hand. */
  commitment: string;
  dealerSeed: string;
  clientSeed: string;
  nonce: number | bigint;
  /** The cards to check (his own, as the hand history gives them). */
  dealt: readonly DealtCard[];
}

export interface CardVerdict extends DealtCard {
  /** The card the derived deck has at deckIndex. */
  deckCard: string;
  ok: boolean;
}

export interface FairnessVerdict {
  /** SHA-256(dealer seed) equals the commitment. */
  commitmentOk: boolean;
  /** The deck could be derived and is a permutation of the 52 cards. */
  deckOk: boolean;
  /** Each dealt card, checked against the deck. */
  cards: CardVerdict[];
  /** All of the above, and at least one card checked. */
  ok: boolean;
  /** What is wrong, in words (empty when ok). */
  problems: string[];
}

/**
 * The whole check of one hand. The derived deck itself is not returned: it holds every
 * player's down cards (folded ones too), which the page must never show.
 */
export async function verifyHand(input: FairnessInput): Promise<FairnessVerdict> {
  const problems: string[] = [];
  const commitmentOk = SEED.test(input.dealerSeed) && (await commitmentOf(input.dealerSeed)) === input.commitment;
  if (!commitmentOk) problems.push("SHA-256 of the dealer seed is not the commitment");
  let deck: string[] = [];
  try {
    deck = await deriveDeck(input.dealerSeed, input.clientSeed, input.nonce);
  } catch (error) {
    problems.push(error instanceof Error ? error.message : String(error));
  }
  const deckOk = deck.length === 52 && new Set(deck).size === 52 && deck.every((c) => CANONICAL_DECK.includes(c));
  if (!deckOk && deck.length > 0) problems.push("the derived deck is not a permutation of the 52 cards");
  const cards = input.dealt.map((dealt) => {
    const deckCard = deck[dealt.deckIndex] ?? "";
    return { ...dealt, deckCard, ok: deckCard === dealt.card };
  });
  for (const card of cards) {
    if (!card.ok) problems.push(`${card.card} is not at deck position ${card.deckIndex}`);
  }
  if (cards.length === 0) problems.push("no dealt card to check");
  return { commitmentOk, deckOk, cards, ok: problems.length === 0, problems };
}
