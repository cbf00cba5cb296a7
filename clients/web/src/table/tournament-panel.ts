/**
 * The tournament panel of the table page: what a tournament player follows between hands —
 * level and stakes, the time (or hands) to the next level and its stakes, players left of the
 * entrants, average stack, prize pool and places paid, the hand-for-hand hold, how many
 * railbirds watch — all from the stream (TableSnapshot.tournament, .watchers), never from the
 * lobby. His own bust and final place (PlayerBusted, TournamentPlaced) are shown here too.
 */

import type { Event as TableEvent, Stakes, TableSnapshot } from "../index.js";
import { chips } from "./format.js";
import { ordinal } from "./tournaments.js";

function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (element === null) throw new Error(`the page has no #${id}`);
  return element as T;
}

function ms(time: { seconds: bigint; nanos: number }): number {
  return Number(time.seconds) * 1000 + Math.floor(time.nanos / 1e6);
}

function stakesText(stakes: Stakes | undefined): string {
  if (stakes === undefined) return "";
  const ante = stakes.ante > 0n ? `ante ${chips(stakes.ante)} · ` : "";
  return `${ante}bring-in ${chips(stakes.bringIn)} · ${chips(stakes.smallBet)}/${chips(stakes.bigBet)}`;
}

/** "4:05": minutes and seconds left. */
export function countdown(msLeft: number): string {
  const seconds = Math.max(0, Math.ceil(msLeft / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

export class TournamentPanel {
  /** When the next level starts, on this device's clock (minutes levels). */
  private nextLevelAt: number | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;

  /** A tournament table opened (or not: the panel stays hidden). */
  start(isTournament: boolean): void {
    this.stop();
    const panel = byId("tournament-panel");
    panel.hidden = !isTournament;
    byId("tp-result").hidden = true;
    byId("tp-result").textContent = "";
    delete panel.dataset["result"];
    if (isTournament) this.timer = setInterval(() => this.tick(), 500);
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.nextLevelAt = undefined;
  }

  /** Every snapshot of a tournament table, with its events. */
  update(snapshot: TableSnapshot, events: readonly TableEvent[], playerId: string): void {
    const panel = byId("tournament-panel");
    const state = snapshot.tournament;
    if (state === undefined) return;
    panel.hidden = false;
    const info = state.info;
    const level = info?.level ?? state.level;
    panel.dataset["level"] = String(level);
    byId("tp-level").textContent = String(level);
    byId("tp-stakes").textContent = stakesText(info?.stakes ?? snapshot.settings?.stakes);
    // The next level: by the clock (compared with the server's, not the device's) or by hands.
    this.nextLevelAt = undefined;
    let next = "";
    if (info?.nextLevelTime !== undefined && snapshot.serverTime !== undefined) {
      this.nextLevelAt = Date.now() + (ms(info.nextLevelTime) - ms(snapshot.serverTime));
    } else if (info !== undefined && info.handsToNextLevel > 0) {
      next = info.handsToNextLevel === 1 ? "after 1 hand" : `after ${info.handsToNextLevel} hands`;
    } else if (info !== undefined) {
      next = info.nextStakes === undefined ? "last level" : "";
    }
    byId("tp-next").textContent = next;
    byId("tp-next-stakes").textContent = info?.nextStakes === undefined ? "" : stakesText(info.nextStakes);
    if (state.nextLevel > 0) {
      byId("tp-next").textContent = `level ${state.nextLevel} from the next hand`;
      byId("tp-next-stakes").textContent = stakesText(state.nextStakes);
    }
    byId("tp-players").textContent =
      info === undefined ? "" : `${info.playersLeft} of ${info.entrants}`;
    panel.dataset["playersLeft"] = String(info?.playersLeft ?? "");
    byId("tp-average").textContent = info === undefined ? "" : chips(info.averageStack);
    byId("tp-pool").textContent =
      info === undefined ? "" : `${chips(info.prizePool)}${info.placesPaid > 0 ? ` · ${info.placesPaid} paid` : ""}`;
    byId("tp-watchers").textContent = String(snapshot.watchers);
    panel.dataset["watchers"] = String(snapshot.watchers);
    const held = state.handHeld || Boolean(info?.handForHand);
    byId("tp-hold").hidden = !held;
    byId("tp-hold").textContent = state.handHeld
      ? "Hand-for-hand: the next hand waits until every table has finished its hand."
      : "Hand-for-hand: every table starts its next hand together.";
    panel.dataset["handHeld"] = String(state.handHeld);
    this.tick();

    for (const event of events) {
      const kind = event.kind;
      if (kind.case === "playerBusted" && kind.value.playerId === playerId) {
        this.result("busted", "You are out of the tournament. Your place and prize follow when the hand's results are in.");
      } else if (kind.case === "tournamentPlaced" && kind.value.playerId === playerId) {
        const place = kind.value.place;
        const prize = kind.value.prize;
        this.result(
          place === 1 ? "won" : "placed",
          place === 1
            ? `You won the tournament! Prize: ${chips(prize)}.`
            : `You finished ${ordinal(place)}${prize > 0n ? ` and won ${chips(prize)}` : ""}.`,
        );
      }
    }
  }

  /** His end, as the lobby recorded it (his stream ended before the engine told it). */
  result(kind: "busted" | "placed" | "won", text: string): void {
    const box = byId("tp-result");
    box.hidden = false;
    box.textContent = text;
    byId("tournament-panel").dataset["result"] = kind;
  }

  private tick(): void {
    if (this.nextLevelAt === undefined) return;
    byId("tp-next").textContent = `in ${countdown(this.nextLevelAt - Date.now())}`;
  }
}
