/**
 * The Tournaments tab of the lobby: the list (filters status, kind, city), one tournament's
 * details (structure, levels, payouts, standings, tables, results), registering and
 * unregistering (each refusal shown as the lobby words it), and my entry — when it plays, the
 * page opens its table from the entry's answer (table, engine URL).
 *
 *   list           GET /tournaments?status=&kind=&city=
 *   details        GET /tournaments/{id}
 *   my entry       GET /tournaments/{id}/entries/me (404 not_registered: no entry)
 *   register       POST /tournaments/{id}/entries with an Idempotency-Key (a retry of the same
 *                  click reuses it, so the buy-in leaves the wallet once)
 *   unregister     DELETE /tournaments/{id}/entries/me
 */

import { LobbyProblem, idempotencyKey } from "./api.js";
import type { Lobby, TournamentDetail, TournamentEntry, TournamentFilters, TournamentSummary } from "./api.js";
import { chips } from "./format.js";
import { el } from "./render.js";

/** How often the open tournament is read again while he looks at it. */
const DETAIL_POLL_MS = 3000;

const KINDS: Record<TournamentSummary["kind"], string> = { sit_and_go: "Sit & go", scheduled: "Scheduled" };
const STATUSES: Record<TournamentSummary["status"], string> = {
  registering: "Registering",
  running: "Running",
  finished: "Finished",
  cancelled: "Cancelled",
};
const ENTRY_STATUSES: Record<TournamentEntry["status"], string> = {
  registered: "You are registered: the tournament has not started yet.",
  playing: "You are playing.",
  busted: "You are out.",
  finished: "You won the tournament!",
  unregistered: "You unregistered: buy-in and fee are back in your wallet.",
};

export function ordinal(place: number): string {
  const tens = place % 100;
  if (tens >= 11 && tens <= 13) return `${place}th`;
  return `${place}${{ 1: "st", 2: "nd", 3: "rd" }[place % 10] ?? "th"}`;
}

function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (element === null) throw new Error(`the page has no #${id}`);
  return element as T;
}

function when(iso: string | null): string {
  return iso === null ? "—" : new Date(iso).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short" });
}

function row(cells: (string | HTMLElement)[], className = ""): HTMLTableRowElement {
  const tr = el("tr", className);
  for (const cell of cells) {
    const td = el("td", typeof cell === "string" && /^[\d,+−-]+$/.test(cell) ? "num" : "");
    td.append(cell);
    tr.append(td);
  }
  return tr;
}

export interface TournamentsTabHooks {
  lobby(): Lobby;
  /** His entry plays: open its table (the entry names table and engine). */
  play(tournamentId: string, entry: TournamentEntry): void;
  /** The money moved (register, unregister): show the new balance. */
  walletChanged(): void;
  describe(error: unknown): string;
}

export class TournamentsTab {
  private openId: string | undefined;
  private detailTimer: ReturnType<typeof setInterval> | undefined;
  private citiesLoaded = false;
  /** The key of the registration being sent: a second click while it is on its way reuses it. */
  private pendingKey: string | undefined;
  private entry: TournamentEntry | undefined;

  constructor(private readonly hooks: TournamentsTabHooks) {
    for (const id of ["tournament-status", "tournament-kind", "tournament-city"]) {
      byId(id).addEventListener("change", () => void this.loadList());
    }
    byId("tournament-back").addEventListener("click", () => this.showList());
    byId("tournament-register").addEventListener("click", () => void this.register());
    byId("tournament-unregister").addEventListener("click", () => void this.unregister());
    byId("tournament-play").addEventListener("click", () => {
      if (this.openId !== undefined && this.entry?.status === "playing") this.hooks.play(this.openId, this.entry);
    });
  }

  /** The tab was opened: the list (or the open tournament) read again. */
  async show(): Promise<void> {
    if (!this.citiesLoaded) await this.loadCities();
    if (this.openId !== undefined) {
      await this.open(this.openId);
      return;
    }
    this.showList();
  }

  /** Another tab was opened, or the page left the lobby: stop reading the tournament again. */
  hide(): void {
    if (this.detailTimer !== undefined) clearInterval(this.detailTimer);
    this.detailTimer = undefined;
  }

  private async loadCities(): Promise<void> {
    try {
      const cities = await this.hooks.lobby().cities();
      const select = byId<HTMLSelectElement>("tournament-city");
      select.replaceChildren(
        el("option", "", "Any city"),
        ...cities.map((city) => {
          const option = el("option", "", city.name);
          option.value = city.id;
          return option;
        }),
      );
      (select.firstElementChild as HTMLOptionElement).value = "";
      this.citiesLoaded = true;
    } catch {
      // The list works without the city filter; the next visit tries again.
    }
  }

  private showList(): void {
    this.hide();
    this.openId = undefined;
    byId("tournament-list-box").hidden = false;
    byId("tournament-view").hidden = true;
    void this.loadList();
  }

  async loadList(): Promise<void> {
    const body = byId("tournaments").querySelector("tbody");
    if (body === null) return;
    const filters: TournamentFilters = {
      status: byId<HTMLSelectElement>("tournament-status").value as NonNullable<TournamentFilters["status"]>,
      kind: byId<HTMLSelectElement>("tournament-kind").value as NonNullable<TournamentFilters["kind"]>,
      city: byId<HTMLSelectElement>("tournament-city").value,
    };
    byId("tournaments-error").textContent = "";
    try {
      const list = await this.hooks.lobby().tournaments(filters);
      body.replaceChildren(...list.map((t) => this.listRow(t)));
      byId("tournaments-empty").hidden = list.length > 0;
      byId("tournaments").dataset["loaded"] = String(list.length);
    } catch (e) {
      byId("tournaments-error").textContent = this.hooks.describe(e);
    }
  }

  private listRow(t: TournamentSummary): HTMLTableRowElement {
    const name = el("button", "link", t.name);
    name.type = "button";
    name.addEventListener("click", () => void this.open(t.id));
    const where = el("span", "muted", t.city === null ? " · open to all" : ` · ${t.city} only`);
    const title = el("span");
    title.append(name, where);
    const tr = row([
      title,
      KINDS[t.kind],
      STATUSES[t.status],
      `${chips(t.buy_in)} + ${chips(t.fee)}`,
      `${t.entries} / ${t.max_players}`,
      chips(t.prize_pool),
      t.kind === "scheduled" ? when(t.starts_at) : "when full",
    ], "tournament");
    tr.dataset["tournamentId"] = t.id;
    tr.dataset["status"] = t.status;
    tr.dataset["kind"] = t.kind;
    tr.dataset["city"] = t.city ?? "";
    tr.dataset["name"] = t.name;
    return tr;
  }

  /** One tournament: its details and my entry, read again every few seconds. */
  async open(tournamentId: string): Promise<void> {
    this.hide();
    this.openId = tournamentId;
    byId("tournament-list-box").hidden = true;
    byId("tournament-view").hidden = false;
    byId("tournament-error").textContent = "";
    await this.refresh();
    this.detailTimer = setInterval(() => void this.refresh(), DETAIL_POLL_MS);
  }

  private async refresh(): Promise<void> {
    const id = this.openId;
    if (id === undefined) return;
    try {
      const [detail, entry] = await Promise.all([this.hooks.lobby().tournament(id), this.myEntry(id)]);
      if (id !== this.openId) return;
      const before = this.entry;
      this.entry = entry;
      this.renderDetail(detail);
      this.renderEntry(detail, entry);
      // He waited here for the start (or for his seat): his table opens as soon as it has him.
      const waited = before?.status === "registered" || (before?.status === "playing" && !before.table_id);
      if (waited && entry?.status === "playing" && entry.table_id) this.hooks.play(id, entry);
    } catch (e) {
      byId("tournament-error").textContent = this.hooks.describe(e);
    }
  }

  private async myEntry(tournamentId: string): Promise<TournamentEntry | undefined> {
    try {
      return await this.hooks.lobby().myEntry(tournamentId);
    } catch (e) {
      if (e instanceof LobbyProblem && e.code === "not_registered") return undefined;
      throw e;
    }
  }

  private renderDetail(t: TournamentDetail): void {
    const view = byId("tournament-view");
    view.dataset["tournamentId"] = t.id;
    view.dataset["status"] = t.status;
    view.dataset["entries"] = String(t.entries);
    byId("tournament-title").textContent = t.name;
    const parts = [
      KINDS[t.kind],
      STATUSES[t.status],
      t.city === null ? "open to all" : `${t.city} players only`,
      `buy-in ${chips(t.buy_in)} + fee ${chips(t.fee)}`,
      `${chips(t.starting_chips)} starting chips`,
      `${t.entries} of ${t.min_players === t.max_players ? t.max_players : `${t.min_players}–${t.max_players}`} players`,
      `tables of ${t.table_size}`,
      `prize pool ${chips(t.prize_pool)}`,
      `rules: ${t.profile}`,
    ];
    if (t.kind === "scheduled") parts.push(`starts ${when(t.starts_at)}`);
    if (t.late_registration_levels > 0) parts.push(`late registration: ${t.late_registration_levels} levels`);
    if (t.current_level > 0) parts.push(`level ${t.current_level}`);
    if (t.cancel_reason !== null) parts.push(`cancelled: ${t.cancel_reason}`);
    byId("tournament-meta").textContent = parts.join(" · ");

    byId("tournament-levels").querySelector("tbody")?.replaceChildren(
      ...t.levels.map((level, i) =>
        row(
          [
            String(i + 1),
            chips(level.ante),
            chips(level.bring_in),
            `${chips(level.small_bet)}/${chips(level.big_bet)}`,
            level.minutes != null ? `${level.minutes} min` : `${level.hands ?? 0} hands`,
          ],
          i + 1 === t.current_level ? "current" : "",
        ),
      ),
    );
    byId("tournament-payouts").querySelector("tbody")?.replaceChildren(
      ...t.payouts.map((payout) => row([ordinal(payout.place), chips(payout.amount)])),
    );
    byId("tournament-payouts-empty").hidden = t.payouts.length > 0;
    const standings = byId("tournament-standings");
    standings.querySelector("tbody")?.replaceChildren(
      ...t.standings.map((s) => {
        const tr = row([
          s.place === null ? "" : ordinal(s.place),
          s.username,
          s.status === "registered" ? "registered" : s.status === "playing" ? "in" : s.status === "finished" ? "winner" : "out",
          s.chips === null ? "" : chips(s.chips),
          s.prize === null ? "" : chips(s.prize),
        ]);
        tr.dataset["username"] = s.username;
        tr.dataset["status"] = s.status;
        if (s.place !== null) tr.dataset["place"] = String(s.place);
        return tr;
      }),
    );
    standings.dataset["loaded"] = String(t.standings.length);
    byId("tournament-standings-empty").hidden = t.standings.length > 0;
    byId("tournament-tables").querySelector("tbody")?.replaceChildren(
      ...t.tables.map((table) => row([`Table ${table.number}`, table.status, String(table.players)])),
    );
    byId("tournament-tables-empty").hidden = t.tables.length > 0;
  }

  private renderEntry(t: TournamentDetail, entry: TournamentEntry | undefined): void {
    const box = byId("tournament-entry");
    const status = entry?.status ?? "none";
    box.dataset["entry"] = status;
    let text = entry === undefined ? "" : ENTRY_STATUSES[entry.status];
    if (entry?.place != null) {
      text = `You finished ${ordinal(entry.place)}${entry.prize ? ` and won ${chips(entry.prize)}` : ""}.`;
    } else if (entry?.status === "playing" && entry.chips != null) {
      text = `You are playing: ${chips(entry.chips)} chips.`;
    }
    if (entry === undefined && t.status === "registering") {
      text = `Entry: ${chips(t.buy_in)} to the prize pool + ${chips(t.fee)} fee.`;
    }
    byId("tournament-entry-status").textContent = text;
    const canRegister = t.status === "registering" && (entry === undefined || entry.status === "unregistered");
    const lateOpen = t.status === "running" && t.late_registration_levels >= t.current_level && entry === undefined;
    byId("tournament-register").hidden = !(canRegister || lateOpen);
    byId("tournament-unregister").hidden = !(t.status === "registering" && entry?.status === "registered");
    byId("tournament-play").hidden = !(entry?.status === "playing" && entry.table_id);
  }

  private async register(): Promise<void> {
    const id = this.openId;
    if (id === undefined) return;
    const button = byId<HTMLButtonElement>("tournament-register");
    byId("tournament-error").textContent = "";
    button.disabled = true;
    this.pendingKey ??= idempotencyKey();
    try {
      this.entry = await this.hooks.lobby().register(id, this.pendingKey);
      this.pendingKey = undefined;
      this.hooks.walletChanged();
    } catch (e) {
      // A refusal moved nothing: the next click is a new request.
      if (e instanceof LobbyProblem) this.pendingKey = undefined;
      byId("tournament-error").textContent = this.hooks.describe(e);
    } finally {
      button.disabled = false;
    }
    await this.refresh();
  }

  private async unregister(): Promise<void> {
    const id = this.openId;
    if (id === undefined) return;
    const button = byId<HTMLButtonElement>("tournament-unregister");
    byId("tournament-error").textContent = "";
    button.disabled = true;
    try {
      await this.hooks.lobby().unregister(id);
      this.hooks.walletChanged();
    } catch (e) {
      byId("tournament-error").textContent = this.hooks.describe(e);
    } finally {
      button.disabled = false;
    }
    await this.refresh();
  }
}
