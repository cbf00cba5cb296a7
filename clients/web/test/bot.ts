/**
 * A table bot on @stud/client, for the smoke test against a real engine (tests/clients/
 * test_web.py): it watches one table over Connect or gRPC-Web and, on its turn, checks, calls or
 * folds — what a browser page does, minus the page.
 *
 *   node build/test/bot.js BASE_URL TABLE_ID connect|grpc-web [HANDS] [DEADLINE_SECONDS]
 *
 * with the player token in STUD_TOKEN. It prints the same lines as the Android example
 * (SNAPSHOT, EVENT, ACT, REFUSED, DONE) and exits 0 once the table started hand HANDS + 1 (or
 * closed), 3 on its deadline, 2 on a bad command line, 1 when the stream failed.
 */

import { ActionKind, ConnectError, createTableClient, errorReason, Street, tableName, TableStatus } from "../src/index.js";
import type { LegalAction, Protocol, TableSnapshot } from "../src/index.js";

/** The order in which the bot picks among the legal actions: passive first, fold last. */
const PREFERENCE: ActionKind[] = [
  ActionKind.CHECK,
  ActionKind.CALL,
  ActionKind.BRING_IN,
  ActionKind.COMPLETE,
  ActionKind.FOLD,
];

function choose(legal: LegalAction[]): LegalAction | undefined {
  for (const kind of PREFERENCE) {
    const found = legal.find((action) => action.kind === kind);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The proto name of an action kind ("ACTION_KIND_CALL"), as the other clients print it. */
function kindName(kind: ActionKind): string {
  return `ACTION_KIND_${ActionKind[kind]}`;
}

/** "actionTaken" -> "ACTION_TAKEN": the oneof case as protobuf's other languages name it. */
function caseName(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter}`).toUpperCase();
}

function describe(snapshot: TableSnapshot): string {
  const seats = snapshot.seats
    .map((seat) => {
      const cards = [...seat.downCards, ...seat.upCards].join("");
      return `${seat.number}:${seat.playerId}:${seat.stack}` + (cards.length === 0 ? "" : `:${cards}`);
    })
    .join(",");
  const legal = snapshot.legalActions.map((action) => ActionKind[action.kind]).join(",");
  return (
    `table=${snapshot.table} status=TABLE_STATUS_${TableStatus[snapshot.status]} ` +
    `viewer=${snapshot.viewerSeat} hand=${snapshot.handNumber} street=STREET_${Street[snapshot.street]} ` +
    `turn=${snapshot.turnSeat} pot=${snapshot.potTotal} seats=${seats} legal=${legal}`
  );
}

async function main(argv: string[]): Promise<number> {
  const [baseUrl, tableId, protocol, handsArg, deadlineArg] = argv;
  const token = process.env["STUD_TOKEN"];
  if (baseUrl === undefined || tableId === undefined || (protocol !== "connect" && protocol !== "grpc-web")) {
    console.error("usage: bot.js BASE_URL TABLE_ID connect|grpc-web [HANDS] [DEADLINE_SECONDS]");
    return 2;
  }
  if (token === undefined || token === "") {
    console.error("bot: set STUD_TOKEN to the player token");
    return 2;
  }
  const hands = BigInt(handsArg ?? "1");
  const deadline = AbortSignal.timeout(1000 * Number(deadlineArg ?? "60"));
  const table = tableName(tableId);
  const client = createTableClient(baseUrl, token, { protocol: protocol satisfies Protocol });

  let messages = 0;
  let actions = 0;
  let lastSequence = -1n;
  // The change of our last accepted action: older snapshots are stale, while that change's own
  // may already hand us the next turn (a new street can open on us).
  let actedThrough = -1n;
  let code = 0;
  try {
    for await (const response of client.watchTable({ table }, { signal: deadline })) {
      messages += 1;
      if (lastSequence >= 0n && response.sequence !== lastSequence + 1n) {
        console.log(`GAP previous=${lastSequence} sequence=${response.sequence}`);
      }
      lastSequence = response.sequence;
      const snapshot = response.snapshot;
      if (snapshot === undefined) {
        console.log(`NO_SNAPSHOT sequence=${response.sequence}`);
        continue;
      }
      if (response.events.length > 0) {
        const kinds = response.events.map((event) => caseName(event.kind.case ?? "none")).join(",");
        console.log(`EVENT sequence=${response.sequence} hand=${response.events[0].handNumber} kinds=${kinds}`);
      } else {
        console.log(`SNAPSHOT sequence=${response.sequence} ${describe(snapshot)}`);
      }
      if (snapshot.handNumber > hands || snapshot.status === TableStatus.CLOSED) break;
      if (response.sequence < actedThrough) continue;
      if (snapshot.turnSeat === 0 || snapshot.turnSeat !== snapshot.viewerSeat) continue;
      const action = choose(snapshot.legalActions);
      if (action === undefined) continue;
      try {
        const answer = await client.act(
          {
            table,
            handNumber: snapshot.handNumber,
            kind: action.kind,
            actionId: crypto.randomUUID(),
            ...(action.minAmount < action.maxAmount ? { amount: action.minAmount } : {}),
          },
          { timeoutMs: 10_000 },
        );
        actions += 1;
        actedThrough = answer.sequence;
        const taken = answer.action;
        console.log(
          `ACT hand=${snapshot.handNumber} seat=${taken?.seat ?? 0} kind=${kindName(taken?.kind ?? ActionKind.UNSPECIFIED)} ` +
            `amount=${taken?.amount ?? 0n} sequence=${answer.sequence} action_id=${taken?.actionId ?? ""}`,
        );
      } catch (error) {
        // The turn may have moved on (the clock acted): the table refuses and changes nothing.
        const refusal = ConnectError.from(error);
        console.log(
          `REFUSED hand=${snapshot.handNumber} kind=${kindName(action.kind)} code=${refusal.code} reason=${errorReason(error) ?? "none"}`,
        );
      }
    }
  } catch (error) {
    if (deadline.aborted) {
      console.log(`DEADLINE messages=${messages} actions=${actions}`);
      code = 3;
    } else {
      const failure = ConnectError.from(error);
      console.log(`STREAM_FAILED code=${failure.code} reason=${errorReason(error) ?? "none"} message=${failure.rawMessage}`);
      code = 1;
    }
  }
  console.log(`DONE messages=${messages} actions=${actions} last_sequence=${lastSequence}`);
  return code;
}

process.exitCode = await main(process.argv.slice(2));
