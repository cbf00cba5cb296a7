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
 * cleanly or dies and another takes it over). Its stream then ends UNAVAILABLE / TABLE_MOVED
 * with the new node's web URL in the ErrorInfo metadata; the connection opens the table again
 * there at once (no lobby call) and tells the page (onMoved). His seat moves with the table.
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
  /** The table moved to another engine node: it is being watched there now. */
  onMoved?(moved: TableMoved): void;
}

/** How many moves in a row (with no message between them) are followed: a table that keeps
 * moving at once is a fault, and the back-off then applies as to any failure. */
const MAX_FOLLOWS = 5;

export class TableConnection {
  private client: TableClient;
  private readonly stopper = new AbortController();
  /** The engine node's web URL the table is watched at (another after a move). */
  engineUrl: string;

  constructor(
    engineUrl: string,
    private readonly session: RefreshingToken,
    readonly table: string,
  ) {
    this.engineUrl = engineUrl;
    this.client = this.clientFor(engineUrl);
  }

  private clientFor(engineUrl: string): TableClient {
    // Connect over fetch; "grpc-web" works the same (the engine serves both on one port).
    return createTableClient(engineUrl, this.session.source, { protocol: "connect" });
  }

  /** Watch until the seat is gone or stop() is called; drops are retried with a back-off. */
  async watch(handlers: ConnectionHandlers): Promise<Ended> {
    let delayMs = 500;
    let follows = 0;
    for (;;) {
      try {
        const stream = this.client.watchTable({ table: this.table }, { signal: this.stopper.signal });
        let first = true;
        for await (const message of stream) {
          if (first) {
            handlers.onLink("connected");
            first = false;
            delayMs = 500;
            follows = 0;
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
          this.engineUrl = moved.webUrl;
          this.client = this.clientFor(moved.webUrl);
          handlers.onMoved?.(moved);
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
        await sleep(delayMs, this.stopper.signal);
        delayMs = Math.min(delayMs * 2, 5000);
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
