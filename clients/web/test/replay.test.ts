/** The street-by-street replay of a redacted PHH history (src/table/replay.ts). */

import assert from "node:assert/strict";
import { test } from "node:test";

import { replayFromPhh } from "../src/table/replay.js";

// engine_server/game/phh.py's example, redacted for seat 5 (bob): ann's down cards are "??".
const FOLDED = `variant = "F7S"
ante_trimming_status = true
antes = [1, 1]
bring_in = 1
small_bet = 2
big_bet = 4
starting_stacks = [100, 100]
actions = [
  "d dh p1 ????7c",
  "d dh p2 QsJs4h",
  "p2 pb",
  "p1 f",
]
hand = 7
seats = [3, 5]
seat_count = 7
players = ["ann", "bob"]
finishing_stacks = [99, 101]
_pots = [{amount = 2, eligible = [2], winners = [2], awards = [0, 2]}]
`;

test("a hand folded to the bring-in", () => {
  const replay = replayFromPhh(FOLDED, new Map([[3, 99], [5, 101]]));
  assert.deepEqual(
    replay.players.map((p) => [p.seat, p.name, p.startStack, p.finalStack]),
    [[3, "ann", 100, 99], [5, "bob", 100, 101]],
  );
  assert.equal(replay.streets.length, 1);
  const third = replay.streets[0]!;
  assert.equal(third.name, "Third street");
  assert.deepEqual(third.deals[0], {
    seat: 3,
    cards: [{ card: undefined, up: false }, { card: undefined, up: false }, { card: "7c", up: true }],
  });
  assert.deepEqual(third.deals[1]?.cards.map((c) => c.card), ["Qs", "Js", "4h"]);
  assert.deepEqual(third.actions, [
    { seat: 5, kind: "bring_in", amount: 1 },
    { seat: 3, kind: "fold" },
  ]);
  // Nobody called the bring-in: it goes back to bob, and the pot is the antes (as _pots says).
  assert.deepEqual(third.returned, { seat: 5, amount: 1 });
  assert.equal(third.potAfter, 2);
  assert.deepEqual(third.community, []);
  assert.deepEqual(replay.showdown, []);
});

// Three players: cat's raise on fourth street is called by nobody (ann folds, bob is all in
// for less), so what bob could not match goes back to her; the pots hold the rest.
const UNCALLED_RAISE = `antes = [1, 1, 1]
bring_in = 1
starting_stacks = [100, 6, 100]
actions = [
  "d dh p1 ????7c",
  "d dh p2 ????4h",
  "d dh p3 ????Kd",
  "p2 pb",
  "p3 cc",
  "p1 cc",
  "d dh p1 8c",
  "d dh p2 9d",
  "d dh p3 Td",
  "p3 cbr 4",
  "p1 cc",
  "p2 cc",
  "p3 cbr 8",
  "p1 f",
]
seats = [1, 2, 3]
players = ["ann", "bob", "cat"]
`;

test("a bet nobody could call goes back, and is not in the pot", () => {
  const replay = replayFromPhh(UNCALLED_RAISE);
  const [third, fourth] = replay.streets;
  assert.equal(third!.potAfter, 6);
  assert.equal(third!.returned, undefined);
  // bob calls all in for his last 4; cat raises to 8, ann folds: 4 of cat's 8 are uncalled.
  assert.deepEqual(fourth!.actions.map((a) => [a.seat, a.kind, a.amount, a.allIn ?? false]), [
    [3, "bet", 4, false], [1, "call", 4, false], [2, "call", 4, true], [3, "raise", 8, false], [1, "fold", undefined, false],
  ]);
  assert.deepEqual(fourth!.returned, { seat: 3, amount: 4 });
  assert.equal(fourth!.potAfter, 6 + 4 + 4 + 4);
});

// Eight players on seventh street in a short deck: one community card instead of a card each.
const COMMUNITY = `antes = [1, 1]
bring_in = 1
starting_stacks = [100, 100]
actions = [
  "d dh p1 ????7c",
  "d dh p2 AhAd4h",
  "p1 pb",
  "p2 cc",
  "d dh p1 8c",
  "d dh p2 9d",
  "p2 cc",
  "p1 cc",
  "d dh p1 2s",
  "d dh p2 3s",
  "p2 cc",
  "p1 cc",
  "d dh p1 5s",
  "d dh p2 6s",
  "p2 cc",
  "p1 cc",
  "d db Ks",
  "p2 cbr 4",
  "p1 cc",
]
seats = [4, 7]
players = ["ann", "bob"]
`;

test("a community card opens seventh street", () => {
  const replay = replayFromPhh(COMMUNITY);
  assert.deepEqual(replay.streets.map((s) => s.name), [
    "Third street", "Fourth street", "Fifth street", "Sixth street", "Seventh street",
  ]);
  const seventh = replay.streets[4]!;
  assert.deepEqual(seventh.deals, []);
  assert.deepEqual(seventh.community, ["Ks"]);
  assert.deepEqual(seventh.actions, [
    { seat: 7, kind: "bet", amount: 4 },
    { seat: 4, kind: "call", amount: 4 },
  ]);
  assert.equal(replay.streets[3]!.actions.length, 2);
  assert.equal(seventh.potAfter, 2 + 2 + 8);
});

const SHOWDOWN = `antes = [1, 1]
bring_in = 1
starting_stacks = [100, 100]
actions = [
  "d dh p1 AhAd7c",
  "d dh p2 ????4h",
  "p2 pb",
  "p1 cbr 2",
  "p2 cbr 4",
  "p1 cc",
  "d dh p1 8c",
  "d dh p2 9d",
  "p1 cc",
  "p2 cbr 2 # timeout",
  "p1 cc",
  "d dh p1 2s",
  "d dh p2 3s",
  "p1 cc",
  "p2 cc",
  "d dh p1 5s",
  "d dh p2 6s",
  "p1 cc",
  "p2 cc",
  "d dh p1 Ks",
  "d dh p2 ??",
  "p1 cc",
  "p2 cc",
  "p2 sm QsJs4h9d3s6sTs",
  "p1 sm AhAd7c8c2s5sKs",
]
seats = [2, 6]
players = ["ann", "bob"]
`;

test("a hand to the showdown: streets, bets and pots", () => {
  const replay = replayFromPhh(SHOWDOWN);
  assert.deepEqual(replay.streets.map((s) => s.name), [
    "Third street", "Fourth street", "Fifth street", "Sixth street", "Seventh street",
  ]);
  const [third, fourth, , , seventh] = replay.streets;
  assert.deepEqual(third!.actions.map((a) => [a.seat, a.kind, a.amount]), [
    [6, "bring_in", 1], [2, "complete", 2], [6, "raise", 4], [2, "call", 2],
  ]);
  assert.equal(third!.potAfter, 10);
  assert.deepEqual(fourth!.deals.map((d) => d.cards), [[{ card: "8c", up: true }], [{ card: "9d", up: true }]]);
  assert.deepEqual(fourth!.actions, [
    { seat: 2, kind: "check" },
    { seat: 6, kind: "bet", amount: 2, timeout: true },
    { seat: 2, kind: "call", amount: 2 },
  ]);
  assert.equal(fourth!.potAfter, 14);
  assert.deepEqual(seventh!.deals, [
    { seat: 2, cards: [{ card: "Ks", up: false }] },
    { seat: 6, cards: [{ card: undefined, up: false }] },
  ]);
  assert.equal(seventh!.potAfter, 14);
  assert.deepEqual(replay.showdown.map((a) => [a.seat, a.kind, a.cards?.length]), [[6, "show", 7], [2, "show", 7]]);
});
