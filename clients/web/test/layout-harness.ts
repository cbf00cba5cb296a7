/**
 * A page for the phone layout test (phone-layout.mjs): the table page's own drawing code
 * (src/table/render.ts) fed with made-up snapshots of a full table on seventh street — every
 * seat in the hand with seven cards, a bet, tags and a long name, the turn at any seat — or
 * just after its showdown (every hand shown, every seat winning a share), so the densest felt
 * a profile can deal (7, 8 or 9 seats) is measured without playing to it.
 *
 * esbuild bundles it for the browser; window.drawTable(n, {turn, between}) draws an n-seat
 * table with the turn at seat `turn` (the viewer's, 1, unless said), or between hands.
 */

import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";

import {
  ActionKind,
  HandResultSchema,
  LegalActionSchema,
  PotSchema,
  SeatSchema,
  SeatStatus,
  Street,
  TableSettingsSchema,
  TableSnapshotSchema,
  TableStatus,
} from "../src/index.js";
import { renderActions, renderTable } from "../src/table/render.js";

const UP = ["Ah", "Kd", "Qs", "Jc", "Th", "9d", "8s", "7c", "6h", "5d", "4s", "3c", "2h"];

interface Draw {
  /** The seat whose turn it is (the viewer's own, 1, unless said). */
  turn?: number;
  /** Just after the showdown instead: every hand shown, every seat won a share. */
  between?: boolean;
}

function drawTable(seats: number, { turn = 1, between = false }: Draw = {}): void {
  const viewer = 1;
  const now = Date.now();
  const numbers = Array.from({ length: seats }, (_, i) => i + 1);
  const pot = 1000n + 40n * BigInt(seats);
  const snapshot = create(TableSnapshotSchema, {
    table: "tables/qg-layout",
    status: TableStatus.PLAYING,
    handNumber: 42n,
    handInProgress: !between,
    street: between ? Street.UNSPECIFIED : Street.SEVENTH,
    viewerSeat: viewer,
    turnSeat: between ? 0 : turn,
    buttonSeat: 3,
    bringInSeat: 4,
    streetBet: between ? 0n : 40n,
    potTotal: between ? 0n : pot,
    pots: between ? [] : [create(PotSchema, { amount: 800n }), create(PotSchema, { amount: 200n })],
    lastHand: between
      ? create(HandResultSchema, {
          handNumber: 42n,
          pots: [{ amount: pot, eligibleSeats: numbers, awards: numbers.map((seat) => ({ seat, amount: pot / BigInt(seats) })) }],
          shown: numbers.map((seat) => ({ seat, cards: UP.slice(seat % 6, (seat % 6) + 7) })),
        })
      : undefined,
    serverTime: timestampFromMs(now),
    turnDeadline: between ? undefined : timestampFromMs(now + 20_000),
    settings: create(TableSettingsSchema, {
      profile: "layout",
      rules: { maxPlayers: seats, actionSeconds: 30 },
      stakes: { ante: 5n, bringIn: 5n, smallBet: 20n, bigBet: 40n },
    }),
    seats: Array.from({ length: seats }, (_, i) => {
      const number = i + 1;
      const me = number === viewer;
      return create(SeatSchema, {
        number,
        playerId: `p-${number}`,
        displayName: me ? "me_the_viewer" : `a_long_player_name_${number}`,
        stack: 123_456n,
        status: SeatStatus.SEATED,
        connected: number !== 5,
        inHand: !between,
        allIn: number === 2,
        betThisStreet: between ? 0n : 40n,
        downCardCount: between ? 0 : 3,
        downCards: me && !between ? ["As", "Ks", "Qh"] : [],
        upCards: between ? [] : UP.slice(i % 9, (i % 9) + 4),
      });
    }),
    legalActions:
      turn === viewer && !between
        ? [
            create(LegalActionSchema, { kind: ActionKind.FOLD }),
            create(LegalActionSchema, { kind: ActionKind.CALL, minAmount: 40n, maxAmount: 40n }),
            create(LegalActionSchema, { kind: ActionKind.RAISE, minAmount: 80n, maxAmount: 80n }),
          ]
        : [],
  });
  document.getElementById("sign-in")?.setAttribute("hidden", "");
  document.getElementById("table-view")?.removeAttribute("hidden");
  const deadline = between ? undefined : now + 20_000;
  renderTable(snapshot, deadline);
  renderActions(snapshot, deadline, () => undefined);
}

(window as unknown as { drawTable: typeof drawTable }).drawTable = drawTable;
