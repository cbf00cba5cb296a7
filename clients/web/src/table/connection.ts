/**
 * The player's connection to his table on the engine: one WatchTable stream (Connect protocol
 * over fetch), watched again after a drop, and Act with a fresh action id per action he means.
 *
 * WatchTable sends a full snapshot first, then one message per change with its events and the
 * new snapshot; a page simply renders every snapshot. There is no resume: after a drop the
 * next stream starts from a fresh snapshot.
 *
 * Tokens: the lobby's access tokens live minutes. The engine checks a token when a call
 * starts: the stream outlives its token, and each Act carries the session's current one
 * (renewed ahead of its expiry). A call refused TOKEN_EXPIRED anyway (a laptop that slept)
 * renews the token and is made again: Act with the same action id, WatchTable from a fresh
 * snapshot. The seat is never at stake.
 *
 * Moves: a table moves between engine nodes (ops move it or drain its node, its node stops
 * cleanly, or another node takes it over). A stream the table's node ends itself then ends
 * UNAVAILABLE / TABLE_MOVED with the new node's web URL in the ErrorInfo metadata; the
 * connection opens the table again there at once (no lobby call) and tells the page (onMoved).
 * His seat moves with the table.
 *
 * A node that dies says nothing: its stream breaks (a network error, UNAVAILABLE without
 * TABLE_MOVED, connection refused at every retry), and another node takes its tables over
 * once its lease has run out (docs/operations.md). After LOCATE_AFTER such failures in a row,
 * and at every retry after that (still with the back-off), the connection asks the lobby where
 * the table is served now (`locate`: GET /tables/{id} for a quick table, the tournament entry
 * for a tournament seat); when that names another web URL it watches the table there at once
 * and tells the page (onMoved, `via` "lobby"), else it keeps backing off. Acts go to the node
 * the table is watched at.
 */

import { Code, ConnectError, SessionEnded, createTableClient, errorReason, tableMoved } from "../index.js";
import type {
  ActionKind,
  Event as TableEvent,
  RefreshingToken,
  TableClient,
  TableMoved,
  TableSnapshot,
} from "../index.js";
import { randomToken } from "./format.js";

/** Why watching stopped for good. */
export type Ended =
  | { kind: "left" } // the stream ended: his seat freed (he left) or the table closed
  | { kind: "not_seated" } // no seat (any more) at this table, or no such table
  | { kind: "replaced" } // the table was opened in another tab or window
  | { kind: "session_ended" } // his session ended (signed out elsewhere, password changed)
  | { kind: "stopped" }; // stop() was called

export interface ConnectionHandlers {
  /** Every snapshot, with the events of the change that led to it (none in a stream's first). */
  onSnapshot(snapshot: TableSnapshot, events: readonly TableEvent[]): void;
  /** The stream dropped and is being watched again (`retrying`), or is back (`connected`). */
  onLink(state: "connected" | "retrying", detail?: string): void;
  /**
   * The table moved to another engine node: it is being watched there now. `via`: "engine"
   * when the old node said so (TABLE_MOVED), "lobby" when the old node stopped answering and
   * the lobby named the new one (`node` is then empty).
   */
  onMoved?(moved: TableMoved, via: "engine" | "lobby"): void;
}

/**
 * Where the lobby says the table is served now (the lobby's `engine_grpc_web` and
 * `engine_grpc`, `node` empty), or undefined when it cannot say (the seat is elsewhere now, or
 * the lobby cannot be reached). Asked only after the table's node stopped answering.
 */
export type LocateTable = () => Promise<TableMoved | undefined>;

export interface ConnectionOptions {
  /** Asks the lobby where the table is now (see LocateTable); without it, only retries. */
  locate?: LocateTable;
  /** The TableService client of an engine node's web URL (tests give a fake). */
  clientFor?: (engineUrl: string) => TableClient;
}

/** How many moves in a row (with no message between them) are followed at once: a table that
 * keeps moving is a fault, and the back-off then applies as to any failure. */
const MAX_FOLLOWS = 5;
/** After this many failures in a row that are neither a move nor a refusal, each retry first
 * asks the lobby where the table is (one failure is a blip: the node may be back at once). */
export const LOCATE_AFTER = 2;
/** The back-off between retries: from FIRST_DELAY_MS, doubling up to MAX_DELAY_MS. */
export const FIRST_DELAY_MS = 500;
export const MAX_DELAY_MS = 5000;

export class TableConnection {
  private client: TableClient;
  private readonly stopper = new AbortController();
  private readonly locate: LocateTable | undefined;
  private readonly makeClient: (engineUrl: string) => TableClient;
  /** The engine node's web URL the table is watched at (another after a move). */
  engineUrl: string;

  constructor(
    engineUrl: string,
    private readonly session: RefreshingToken,
    readonly table: string,
    options: ConnectionOptions = {},
  ) {
    this.locate = options.locate;
    // Connect over fetch; "grpc-web" works the same (the engine serves both on one port).
    this.makeClient =
      options.clientFor ?? ((url: string) => createTableClient(url, this.session.source, { protocol: "connect" }));
    this.engineUrl = engineUrl;
    this.client = this.makeClient(engineUrl);
  }

  /** Watch and act at the node at `engineUrl` from now on. */
  private switchTo(engineUrl: string): void {
    this.engineUrl = engineUrl;
    this.client = this.makeClient(engineUrl);
  }

  /** Where the lobby says the table is now, if it names another node than the current one. */
  private async elsewhere(): Promise<TableMoved | undefined> {
    if (this.locate === undefined) return undefined;
    try {
      const found = await this.locate();
      return found !== undefined && found.webUrl !== "" && found.webUrl !== this.engineUrl ? found : undefined;
    } catch {
      return undefined; // the lobby cannot say now: ask again at the next retry
    }
  }

  /** Watch until the seat is gone or stop() is called; drops are retried with a back-off. */
  async watch(handlers: ConnectionHandlers): Promise<Ended> {
    let delayMs = FIRST_DELAY_MS;
    let follows = 0;
    /** Failures in a row that were neither a move nor a refusal (the node not answering). */
    let failures = 0;
    for (;;) {
      try {
        const stream = this.client.watchTable({ table: this.table }, { signal: this.stopper.signal });
        let first = true;
        for await (const message of stream) {
          if (first) {
            handlers.onLink("connected");
            first = false;
            delayMs = FIRST_DELAY_MS;
            follows = 0;
            failures = 0;
          }
          if (message.snapshot !== undefined) handlers.onSnapshot(message.snapshot, message.events);
        }
        return { kind: "left" };
      } catch (error) {
        if (this.stopper.signal.aborted) return { kind: "stopped" };
        const moved = tableMoved(error);
        if (moved !== undefined && moved.webUrl !== "" && moved.webUrl !== this.engineUrl && follows < MAX_FOLLOWS) {
          // Served by another node now: watch it there at once, from a fresh snapshot.
          follows += 1;
          this.switchTo(moved.webUrl);
          handlers.onMoved?.(moved, "engine");
          continue;
        }
        const reason = errorReason(error);
        if (reason === "NOT_SEATED" || reason === "TABLE_NOT_FOUND") return { kind: "not_seated" };
        if (reason === "WATCH_REPLACED") return { kind: "replaced" };
        if (error instanceof SessionEnded || this.session.isEnded) return { kind: "session_ended" };
        if (reason === "TOKEN_EXPIRED") {
          // Watch again at once with a renewed token (the seat waits for him meanwhile).
          try {
            await this.session.renew();
            continue;
          } catch (renewal) {
            if (renewal instanceof SessionEnded) return { kind: "session_ended" };
          }
        } else if (ConnectError.from(error).code === Code.Unauthenticated) return { kind: "not_seated" };
        handlers.onLink("retrying", ConnectError.from(error).rawMessage);
        failures += 1;
        if (failures >= LOCATE_AFTER) {
          // The node may have died (it says nothing then): another may serve the table now.
          const found = await this.elsewhere();
          if (this.stopper.signal.aborted) return { kind: "stopped" };
          if (found !== undefined) {
            this.switchTo(found.webUrl);
            handlers.onMoved?.(found, "lobby");
            follows += 1;
            // Watched there at once, unless the lobby keeps naming nodes that fail too.
            if (follows <= MAX_FOLLOWS) continue;
          }
        }
        await sleep(delayMs, this.stopper.signal);
        delayMs = Math.min(delayMs * 2, MAX_DELAY_MS);
      }
    }
  }

  /**
   * Take one action in hand `handNumber` (from the snapshot the player decided on). The action
   * id makes a retry of the same click harmless. Throws the engine's refusal (see errorReason:
   * NOT_YOUR_TURN, STALE_HAND, ILLEGAL_ACTION, ...).
   */
  async act(handNumber: bigint, kind: ActionKind, amount?: bigint): Promise<void> {
    const request = {
      table: this.table,
      handNumber,
      kind,
      actionId: randomToken(16),
      ...(amount === undefined ? {} : { amount }),
    };
    const sentWith = this.session.accessToken;
    try {
      await this.client.act(request);
    } catch (error) {
      if (errorReason(error) !== "TOKEN_EXPIRED") throw error;
      // Renewed, and the same act again: its action id makes that safe.
      await this.session.renew(sentWith);
      await this.client.act(request);
    }
  }

  stop(): void {
    this.stopper.abort();
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
