/**
 * The browser's deck check (src/table/fairness.ts) against the published test vector
 * (docs/fairness.md §5, tests/conformance/fairness_vector.json), and checks that must fail.
 *
 *   tsc -p tsconfig.test.json --outDir build/x && node --test build/x/test/fairness.test.js
 *
 * (tests/clients/test_web_fairness.py runs it.)
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { CANONICAL_DECK, commitmentOf, deriveDeck, drawBelow, verifyHand } from "../src/table/fairness.js";

interface Vector {
  dealer_seed: string;
  client_seed: string;
  nonce: number;
  commitment: string;
  deck: string[];
}

/** The vector from the repository's tests/conformance, found from wherever this file runs. */
function loadVector(): Vector {
  let dir = new URL(".", import.meta.url);
  for (let up = 0; up < 8; up++) {
    try {
      return JSON.parse(readFileSync(new URL("tests/conformance/fairness_vector.json", dir), "utf8")) as Vector;
    } catch {
      dir = new URL("..", dir);
    }
  }
  throw new Error("tests/conformance/fairness_vector.json not found");
}
const vector = loadVector();

test("the canonical order is rank major, suits c d h s", () => {
  assert.equal(CANONICAL_DECK.length, 52);
  assert.deepEqual(CANONICAL_DECK.slice(0, 5), ["2c", "2d", "2h", "2s", "3c"]);
  assert.equal(CANONICAL_DECK[51], "As");
});

test("the commitment of the vector's seed", async () => {
  assert.equal(await commitmentOf(vector.dealer_seed), vector.commitment);
  assert.equal(vector.commitment, "9cf49eeaaa45bd96bd47cf2cfeaeb0df96b82897144c8db521cc1330cc495761");
});

test("the vector's deck, all 52 cards", async () => {
  const deck = await deriveDeck(vector.dealer_seed, vector.client_seed, vector.nonce);
  assert.deepEqual(deck.slice(0, 8), ["5h", "5s", "9d", "As", "Kh", "7s", "4c", "Ks"]);
  assert.deepEqual(deck, vector.deck);
});

test("verifyHand accepts the vector with every card at its position", async () => {
  const dealt = vector.deck.map((card, deckIndex) => ({ card, deckIndex }));
  const verdict = await verifyHand({
    commitment: vector.commitment,
    dealerSeed: vector.dealer_seed,
    clientSeed: vector.client_seed,
    nonce: vector.nonce,
    dealt,
  });
  assert.equal(verdict.ok, true, verdict.problems.join("; "));
  assert.equal(verdict.commitmentOk, true);
  assert.equal(verdict.deckOk, true);
  assert.equal(verdict.cards.length, 52);
  assert.ok(!("deck" in verdict), "the derived deck is never handed to the page");
});

test("a wrong seed, client seed, nonce or card fails", async () => {
  const dealt = [0, 1, 2, 7, 14].map((deckIndex) => ({ card: vector.deck[deckIndex] ?? "", deckIndex }));
  const good = {
    commitment: vector.commitment,
    dealerSeed: vector.dealer_seed,
    clientSeed: vector.client_seed,
    nonce: vector.nonce,
    dealt,
  };
  assert.equal((await verifyHand(good)).ok, true);

  const otherSeed = await verifyHand({ ...good, dealerSeed: "0".repeat(63) + "b" });
  assert.equal(otherSeed.ok, false);
  assert.equal(otherSeed.commitmentOk, false);

  const otherClient = await verifyHand({ ...good, clientSeed: "bob" });
  assert.equal(otherClient.ok, false);
  assert.equal(otherClient.commitmentOk, true);
  assert.ok(otherClient.cards.some((c) => !c.ok));

  const otherNonce = await verifyHand({ ...good, nonce: 1 });
  assert.equal(otherNonce.ok, false);
  assert.ok(otherNonce.cards.some((c) => !c.ok));

  const moved = await verifyHand({ ...good, dealt: [{ card: "5h", deckIndex: 1 }] });
  assert.equal(moved.ok, false);
  assert.deepEqual(moved.problems, ["5h is not at deck position 1"]);

  const malformed = await verifyHand({ ...good, dealerSeed: "not-a-seed" });
  assert.equal(malformed.ok, false);
  assert.equal(malformed.deckOk, false);
});

test("every derived deck is a permutation; draws cross HMAC blocks", async () => {
  // 52 draws need at least 52 uint32 values: 7 blocks of 8, so draws cross blocks.
  for (let nonce = 0; nonce < 20; nonce++) {
    const deck = await deriveDeck(vector.dealer_seed, "perm-check", nonce);
    assert.equal(new Set(deck).size, 52);
    assert.deepEqual([...deck].sort(), [...CANONICAL_DECK].sort());
  }
});

test("Lemire's draw discards a biased x and reads the next (a forced stream)", async () => {
  const stream = (values: number[]) => {
    let read = 0;
    return {
      next: async () => {
        const value = values[read++];
        if (value === undefined) throw new Error("stream exhausted");
        return value;
      },
      read: () => read,
    };
  };
  // 2^32 mod 52 = 48: x = 0 and x = 2^31 give m mod 2^32 = 0 < 48, discarded; then
  // 2^31 + 2^20 gives 26.
  const forced = stream([0, 2 ** 31, 2 ** 31 + 2 ** 20]);
  assert.equal(await drawBelow(forced.next, 52), 26);
  assert.equal(forced.read(), 3);
  // Nothing discarded: floor(x / 2^32 · n).
  const plain = stream([0xffffffff]);
  assert.equal(await drawBelow(plain.next, 52), 51);
  assert.equal(plain.read(), 1);
  // n = 1 never discards and is always 0.
  assert.equal(await drawBelow(stream([0]).next, 1), 0);
});
