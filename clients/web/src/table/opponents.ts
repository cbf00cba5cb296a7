/**
 * A quick table nobody joins. Matchmaking seats only players of the table's city, so a player
 * of a quiet city sits alone; this panel says so — waiting for players of his city, how many of
 * them look for a game — and offers his choice: play with bots (only where a bot service serves
 * his city and stake level, and only as many as it can send) or keep waiting (which takes a bot
 * request back).
 *
 *   GET /tables/{id}          opponents: state waiting | playing | closed,
 *                             bots available | requested | unavailable, bots_can_fill_to (the
 *                             most players bots can fill the table to: the choice offers 2 to
 *                             that), bots_fill_to (what they fill it to) (polled every 2 s
 *                             while he waits, until the table starts)
 *   POST /tables/{id}/bots    play with bots: the table filled to N players, him included
 *   DELETE /tables/{id}/bots  keep waiting: no more bots are sent
 *
 * The panel marks its state on #opponents (data-state, data-bots, data-players, data-waiting,
 * data-fill-to, data-can-fill-to) for tests and tools.
 */

import type { Lobby, Opponents, StakeLevel, TableView } from "./api.js";

/** What the panel draws of a table (the quick game's own answer gives no engine addresses). */
type ShownTable = Omit<TableView, "engine_grpc" | "engine_grpc_web">;
import { el } from "./render.js";

/** How often the lobby is asked while he waits. */
export const OPPONENTS_POLL_MS = 2000;
/** Bots fill the table to this many players unless he picks another number (or fewer can come). */
const DEFAULT_PLAYERS = 3;

function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (element === null) throw new Error(`the page has no #${id}`);
  return element as T;
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

export interface OpponentsHost {
  /** The signed-in lobby. */
  lobby(): Lobby;
  /** The stake levels (GET /stakes), for the level's name. */
  stakes(): readonly StakeLevel[];
  /** Every fresh answer of GET /tables/{id} (the seed notice reads it too). */
  onView(view: TableView): void;
  /** A refusal or failure worth showing (its message). */
  describe(error: unknown): string;
}

export class OpponentsPanel {
  private tableId: string | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Bumped by start/stop: answers of an older table are dropped. */
  private generation = 0;
  private polling = false;
  private cityNames = new Map<string, string>();
  private last: ShownTable | undefined;
  /** He chose to keep waiting (said on the panel until the state changes). */
  private keepsWaiting = false;

  constructor(private readonly host: OpponentsHost) {
    byId("play-with-bots").addEventListener("click", () => void this.askForBots());
    byId("keep-waiting").addEventListener("click", () => void this.keepWaiting());
  }

  /** Follow a table he just sat at (`first`: the quick game's own answer, drawn at once). */
  start(tableId: string, first?: Opponents, city?: string, stakeLevel?: string): void {
    this.stop();
    this.tableId = tableId;
    this.keepsWaiting = false;
    this.setError("", "poll");
    if (first !== undefined && city !== undefined && stakeLevel !== undefined) {
      this.render({ table: `tables/${tableId}`, table_id: tableId, city, stake_level: stakeLevel, opponents: first, seed_reveals: [] });
    }
    this.poll(0);
  }

  /** Stop following (he left the table, or signed out). */
  stop(): void {
    this.generation += 1;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.polling = false;
    this.tableId = undefined;
    this.last = undefined;
    byId("opponents").hidden = true;
  }

  /** The table may have changed (he is alone again, or the seed was rotated): ask now. */
  refresh(): void {
    if (this.tableId !== undefined) this.restart(0);
  }

  /** The snapshot shows him alone at the table: follow it again if the panel had stopped. */
  alone(): void {
    if (this.tableId !== undefined && !this.polling) this.restart(0);
  }

  /** One chain of polls at a time: a new one drops the answers of the one before. */
  private restart(delay: number): void {
    this.generation += 1;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.poll(delay);
  }

  private poll(delay: number): void {
    const generation = this.generation;
    const tableId = this.tableId;
    if (tableId === undefined) return;
    this.polling = true;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.host
        .lobby()
        .table(tableId)
        .then((view) => {
          if (generation !== this.generation) return;
          // A failed poll's words go once the lobby answers again; a refused choice's stay.
          const error = byId("opponents-error");
          if (error.dataset["source"] === "poll") this.setError("", "poll");
          this.show(view);
        })
        .catch((error: unknown) => {
          if (generation !== this.generation) return;
          this.setError(this.host.describe(error), "poll");
          this.poll(OPPONENTS_POLL_MS * 2);
        });
    }, delay);
  }

  /** A fresh answer: drawn, handed on, and followed while he waits. */
  private show(view: TableView): void {
    this.render(view);
    this.host.onView(view);
    if (view.opponents.state === "waiting") {
      this.poll(OPPONENTS_POLL_MS);
    } else {
      this.polling = false;
    }
  }

  private setError(text: string, source: "poll" | "choice"): void {
    const box = byId("opponents-error");
    box.textContent = text;
    box.dataset["source"] = source;
  }

  private async cityName(city: string): Promise<string> {
    if (this.cityNames.size === 0) {
      try {
        for (const c of await this.host.lobby().cities()) this.cityNames.set(c.id, c.name);
      } catch {
        // The id is a fine name too.
      }
    }
    return this.cityNames.get(city) ?? city;
  }

  private render(view: ShownTable): void {
    this.last = view;
    const { opponents } = view;
    const box = byId("opponents");
    box.dataset["state"] = opponents.state;
    box.dataset["bots"] = opponents.bots;
    box.dataset["players"] = String(opponents.players);
    box.dataset["waiting"] = String(opponents.waiting);
    if (opponents.bots_fill_to === null || opponents.bots_fill_to === undefined) delete box.dataset["fillTo"];
    else box.dataset["fillTo"] = String(opponents.bots_fill_to);
    if (opponents.bots_can_fill_to === null || opponents.bots_can_fill_to === undefined) delete box.dataset["canFillTo"];
    else box.dataset["canFillTo"] = String(opponents.bots_can_fill_to);
    if (opponents.state !== "waiting") {
      box.hidden = true;
      this.keepsWaiting = false;
      return;
    }
    box.hidden = false;
    const level = this.host.stakes().find((s) => s.id === view.stake_level);
    const levelName = level?.name ?? view.stake_level;
    // The city's name comes from GET /cities once; its id stands in until then.
    // data-city-named: the words name the city as GET /cities does (tests wait for it).
    void this.cityName(view.city).then((name) => {
      if (this.last !== view) return;
      this.renderWords(view, name, levelName);
      box.dataset["cityNamed"] = "true";
    });
    box.dataset["cityNamed"] = String(this.cityNames.has(view.city));
    this.renderWords(view, this.cityNames.get(view.city) ?? view.city, levelName);
  }

  private renderWords(view: ShownTable, city: string, levelName: string): void {
    const { opponents } = view;
    byId("opponents-title").textContent = `Waiting for players of ${city}`;
    byId("opponents-waiting").textContent =
      opponents.waiting === 0
        ? `Nobody else of ${city} is looking for a game at ${levelName} now.`
        : `${plural(opponents.waiting, "other player", "other players")} of ${city} ${opponents.waiting === 1 ? "is" : "are"} ` +
          `looking for a game at ${levelName}: they sit in here as soon as they are matched.`;
    const bots = byId("opponents-bots");
    const choose = byId("bots-choice");
    const play = byId<HTMLButtonElement>("play-with-bots");
    const keep = byId<HTMLButtonElement>("keep-waiting");
    // The most players bots can fill the table to now: what the bot services can still send.
    const most = opponents.bots_can_fill_to ?? null;
    if (opponents.bots === "requested") {
      // Only bots that can come are said to be on their way: the lobby's bots_fill_to is
      // what they fill the table to, fewer than asked where no more can come.
      const fillTo = opponents.bots_fill_to ?? opponents.players;
      bots.textContent =
        fillTo > opponents.players
          ? `Bots are on their way: the table fills to ${plural(fillTo, "player", "players")}.`
          : `No bots can come to ${city} at this level now: keep waiting for people, or leave the table.`;
      choose.hidden = true;
      play.hidden = true;
      keep.hidden = false;
      keep.textContent = "Keep waiting instead";
      this.keepsWaiting = false;
    } else if (opponents.bots === "available" && most !== null) {
      bots.textContent = this.keepsWaiting
        ? `You keep waiting for players of ${city}. Bots can still come if you change your mind.`
        : `Bots play in ${city} at this level (up to ${plural(most - opponents.players, "bot", "bots")} can join you): play with them now, or keep waiting for people.`;
      this.fillChoices(most);
      choose.hidden = false;
      play.hidden = false;
      keep.hidden = this.keepsWaiting;
      keep.textContent = "Keep waiting";
    } else {
      bots.textContent = `No bots play in ${city} at this level now: keep waiting, or leave the table.`;
      choose.hidden = true;
      play.hidden = true;
      keep.hidden = true;
    }
  }

  /** The "fill to N players" choice, from 2 to `most`: the bots that can come, not the seats. */
  private fillChoices(most: number): void {
    const select = byId<HTMLSelectElement>("bots-players");
    if (select.options.length === most - 1) return;
    const chosen = Number(select.value) || DEFAULT_PLAYERS;
    const options: HTMLOptionElement[] = [];
    for (let players = 2; players <= most; players += 1) {
      const option = el("option", "", `${players} players`);
      option.title = `${plural(players - 1, "bot", "bots")} and you`;
      option.value = String(players);
      options.push(option);
    }
    select.replaceChildren(...options);
    select.value = String(Math.min(most, Math.max(2, chosen)));
  }

  private async askForBots(): Promise<void> {
    await this.choose((lobby, tableId) => lobby.askForBots(tableId, Number(byId<HTMLSelectElement>("bots-players").value) || DEFAULT_PLAYERS), false);
  }

  private async keepWaiting(): Promise<void> {
    await this.choose((lobby, tableId) => lobby.keepWaiting(tableId), true);
  }

  private async choose(call: (lobby: Lobby, tableId: string) => Promise<TableView>, keepsWaiting: boolean): Promise<void> {
    const tableId = this.tableId;
    if (tableId === undefined) return;
    const buttons = [byId<HTMLButtonElement>("play-with-bots"), byId<HTMLButtonElement>("keep-waiting")];
    for (const button of buttons) button.disabled = true;
    this.setError("", "choice");
    try {
      const view = await call(this.host.lobby(), tableId);
      if (this.tableId !== tableId) return;
      this.keepsWaiting = keepsWaiting;
      // The answer is the table now: the next poll starts from it.
      this.generation += 1;
      if (this.timer !== undefined) clearTimeout(this.timer);
      this.timer = undefined;
      this.show(view);
    } catch (error) {
      this.setError(this.host.describe(error), "choice");
      this.refresh();
    } finally {
      for (const button of buttons) button.disabled = false;
    }
  }
}
