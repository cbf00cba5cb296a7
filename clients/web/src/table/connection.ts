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
 */

import { Code, ConnectError, SessionEnded, createTableClient, errorReason } from "../index.js";
import type { ActionKind, Event as TableEvent, RefreshingToken, TableClient, TableSnapshot } from "../index.js";
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
}

export class TableConnection {
  private readonly client: TableClient;
  private readonly stopper = new AbortController();

  constructor(
    engineUrl: string,
    private readonly session: RefreshingToken,
    readonly table: string,
  ) {
    // Connect over fetch; "grpc-web" works the same (the engine serves both on one port).
    this.client = createTableClient(engineUrl, session.source, { protocol: "connect" });
  }

  /** Watch until the seat is gone or stop() is called; drops are retried with a back-off. */
  async watch(handlers: ConnectionHandlers): Promise<Ended> {
    let delayMs = 500;
    for (;;) {
      try {
        const stream = this.client.watchTable({ table: this.table }, { signal: this.stopper.signal });
        let first = true;
        for await (const message of stream) {
          if (first) {
            handlers.onLink("connected");
            first = false;
            delayMs = 500;
          }
          if (message.snapshot !== undefined) handlers.onSnapshot(message.snapshot, message.events);
        }
        return { kind: "left" };
      } catch (error) {
        if (this.stopper.signal.aborted) return { kind: "stopped" };
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
