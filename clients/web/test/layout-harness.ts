/**
 * A page for the phone layout test (phone-layout.mjs): the table page's own drawing code
 * (src/table/render.ts) fed with made-up snapshots of a full table on seventh street — every
 * seat in the hand with seven cards, a bet, tags and a long name — so the densest felt a
 * profile can deal (7, 8 or 9 seats) is measured without playing to it.
 *
 * esbuild bundles it for the browser; window.drawTable(n) draws an n-seat table.
 */

import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";

import {
  ActionKind,
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

function drawTable(seats: number, viewer = 1): void {
  const now = Date.now();
  const snapshot = create(TableSnapshotSchema, {
    table: "tables/qg-layout",
    status: TableStatus.PLAYING,
    handNumber: 42n,
    handInProgress: true,
    street: Street.SEVENTH,
    viewerSeat: viewer,
    turnSeat: viewer,
    buttonSeat: 3,
    bringInSeat: 4,
    streetBet: 40n,
    potTotal: 1000n + 40n * BigInt(seats),
    pots: [create(PotSchema, { amount: 800n }), create(PotSchema, { amount: 200n })],
    serverTime: timestampFromMs(now),
    turnDeadline: timestampFromMs(now + 20_000),
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
        inHand: true,
        allIn: number === 2,
        betThisStreet: 40n,
        downCardCount: 3,
        downCards: me ? ["As", "Ks", "Qh"] : [],
        upCards: UP.slice(i % 9, (i % 9) + 4),
      });
    }),
    legalActions: [
      create(LegalActionSchema, { kind: ActionKind.FOLD }),
      create(LegalActionSchema, { kind: ActionKind.CALL, minAmount: 40n, maxAmount: 40n }),
      create(LegalActionSchema, { kind: ActionKind.RAISE, minAmount: 80n, maxAmount: 80n }),
    ],
  });
  document.getElementById("sign-in")?.setAttribute("hidden", "");
  document.getElementById("table-view")?.removeAttribute("hidden");
  renderTable(snapshot, now + 20_000);
  renderActions(snapshot, now + 20_000, () => undefined);
}

(window as unknown as { drawTable: typeof drawTable }).drawTable = drawTable;
