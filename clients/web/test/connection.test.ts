/**
 * The table connection (src/table/connection.ts) when its engine node stops answering: fake
 * TableService clients per web URL and a fake lobby lookup, so the retry and lookup order is
 * seen without a network. The real thing (a node killed, Chromium) is in
 * tests/clients/test_web_dead_node.py.
 */

import assert from "node:assert/strict";
import { test } from "node:test";

import { create } from "@bufbuild/protobuf";

import {
  Code,
  ConnectError,
  ErrorInfoSchema,
  RefreshingToken,
  TableSnapshotSchema,
  WatchTableResponseSchema,
} from "../src/index.js";
import type { ActRequest, TableClient, TableMoved, WatchTableResponse } from "../src/index.js";
import { LOCATE_AFTER, TableConnection } from "../src/table/connection.js";

const A = "http://node-a";
const B = "http://node-b";

/** What the fake nodes saw and did: each watch and act by URL, in order. */
interface Seen {
  watches: string[];
  acts: string[];
}

/** A stream that fails at once with `error`. */
async function* failing(error: unknown): AsyncIterable<WatchTableResponse> {
  yield* [];
  throw error;
}

/** A stream with one snapshot of hand `hand`, then its end (the seat freed). */
async function* oneSnapshot(hand: bigint): AsyncIterable<WatchTableResponse> {
  yield create(WatchTableResponseSchema, { snapshot: create(TableSnapshotSchema, { table: "tables/t1", handNumber: hand }) });
}

/** Fake clients: `streams(url, attempt)` gives the url's attempt-th stream (from 1). */
function fakeNodes(seen: Seen, streams: (url: string, attempt: number) => AsyncIterable<WatchTableResponse>) {
  return (url: string): TableClient => {
    const client = {
      watchTable: () => {
        seen.watches.push(url);
        return streams(url, seen.watches.filter((w) => w === url).length);
      },
      act: async (_request: ActRequest) => {
        seen.acts.push(url);
        return {};
      },
    };
    return client as unknown as TableClient;
  };
}

function session(): RefreshingToken {
  const state = { accessToken: "token", refreshToken: "refresh", renewAt: Date.now() + 600_000 };
  return new RefreshingToken(state as never, async () => {
    throw new Error("no renewal in these tests");
  });
}

/** UNAVAILABLE with no ErrorInfo: what a dead node's broken stream or refused connection gives. */
const DEAD = new ConnectError("fetch failed: connection refused", Code.Unavailable);

test("a node that stops answering: after LOCATE_AFTER failures the lobby is asked, and the table watched where it names", async () => {
  const seen: Seen = { watches: [], acts: [] };
  const lookups: string[] = [];
  let answers = 0;
  const moves: [TableMoved, string][] = [];
  const links: string[] = [];
  const connection = new TableConnection(A, session(), "tables/t1", {
    clientFor: fakeNodes(seen, (url) => (url === A ? failing(DEAD) : oneSnapshot(7n))),
    locate: async () => {
      lookups.push(`after ${seen.watches.length} watches`);
      answers += 1;
      // The takeover is not done at the first lookup: the lobby still names the dead node.
      return { node: "", webUrl: answers === 1 ? A : B, grpcAddress: answers === 1 ? "a:1" : "b:1" };
    },
  });
  const hands: bigint[] = [];
  const ended = await connection.watch({
    onSnapshot: (snapshot) => hands.push(snapshot.handNumber),
    onLink: (state) => links.push(state),
    onMoved: (moved, via) => moves.push([moved, via]),
  });
  assert.equal(LOCATE_AFTER, 2);
  // Asked only once two watches in a row had failed, then at every retry until it named B.
  assert.deepEqual(lookups, ["after 2 watches", "after 3 watches"]);
  assert.deepEqual(seen.watches, [A, A, A, B]);
  assert.deepEqual(moves, [[{ node: "", webUrl: B, grpcAddress: "b:1" }, "lobby"]]);
  assert.deepEqual(hands, [7n]);
  assert.deepEqual(links, ["retrying", "retrying", "retrying", "connected"]);
  assert.equal(connection.engineUrl, B);
  assert.deepEqual(ended, { kind: "left" });
  // Acts go to the node the table is watched at now.
  await connection.act(7n, 1);
  assert.deepEqual(seen.acts, [B]);
});

test("one failure is a blip: watched again at the same node, the lobby not asked", async () => {
  const seen: Seen = { watches: [], acts: [] };
  let lookups = 0;
  const connection = new TableConnection(A, session(), "tables/t1", {
    clientFor: fakeNodes(seen, (_url, attempt) => (attempt === 1 ? failing(DEAD) : oneSnapshot(3n))),
    locate: async () => {
      lookups += 1;
      return { node: "", webUrl: B, grpcAddress: "b:1" };
    },
  });
  const ended = await connection.watch({ onSnapshot: () => undefined, onLink: () => undefined });
  assert.deepEqual(ended, { kind: "left" });
  assert.deepEqual(seen.watches, [A, A]);
  assert.equal(lookups, 0);
  assert.equal(connection.engineUrl, A);
});

test("a refusal ends watching without asking the lobby", async () => {
  const seen: Seen = { watches: [], acts: [] };
  let lookups = 0;
  const refused = new ConnectError("not seated", Code.FailedPrecondition, undefined, [
    { desc: ErrorInfoSchema, value: { reason: "NOT_SEATED", domain: "stud.v1", metadata: {} } },
  ]);
  const connection = new TableConnection(A, session(), "tables/t1", {
    clientFor: fakeNodes(seen, () => failing(refused)),
    locate: async () => {
      lookups += 1;
      return undefined;
    },
  });
  const ended = await connection.watch({ onSnapshot: () => undefined, onLink: () => undefined });
  assert.deepEqual(ended, { kind: "not_seated" });
  assert.equal(lookups, 0);
});

test("while the lobby names the same node or cannot say, the connection keeps backing off there", async () => {
  const seen: Seen = { watches: [], acts: [] };
  const said: (TableMoved | undefined)[] = [{ node: "", webUrl: A, grpcAddress: "a:1" }, undefined];
  let lookups = 0;
  const moves: string[] = [];
  const connection = new TableConnection(A, session(), "tables/t1", {
    // A is back at the fourth watch (a restart): nothing moved.
    clientFor: fakeNodes(seen, (_url, attempt) => (attempt < 4 ? failing(DEAD) : oneSnapshot(9n))),
    locate: async () => {
      lookups += 1;
      if (lookups === 2) throw new Error("the lobby cannot be reached");
      return said[lookups - 1];
    },
  });
  const ended = await connection.watch({
    onSnapshot: () => undefined,
    onLink: () => undefined,
    onMoved: (moved) => moves.push(moved.webUrl),
  });
  assert.deepEqual(ended, { kind: "left" });
  assert.deepEqual(seen.watches, [A, A, A, A]);
  assert.equal(lookups, 2);
  assert.deepEqual(moves, []);
});
