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
  assert.equal(third.potAfter, 3);
  assert.deepEqual(replay.showdown, []);
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
