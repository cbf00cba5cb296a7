/**
 * The web table page (served by the lobby at /play): sign in, open a quick game, and play it.
 *
 *   sign in        POST /auth/login                      → a session (kept in sessionStorage): a
 *                  15-minute access token, renewed by POST /auth/refresh before it expires
 *   sign out       POST /auth/logout
 *   lobby          GET /me, GET /wallet, GET /stakes, GET /quickgame/waiting (who waits, per stake)
 *   my hands       GET /hands, GET /hands/{id}, GET /hands/{id}/phh (replay and download),
 *                  GET /hands/{id}/fairness (the deck checked in this browser: fairness.ts)
 *   wallet         GET /wallet (balance and ledger entries, page by page)
 *   tournaments    GET /tournaments, GET /tournaments/{id}, POST /tournaments/{id}/entries,
 *                  DELETE and GET /tournaments/{id}/entries/me (tournaments.ts); a playing
 *                  entry opens its table, whose stream then drives everything: the tournament
 *                  panel (tournament-panel.ts), a move (PlayerMoved: watch the destination at
 *                  the web URL it names, without asking the lobby), the bust and the place
 *   quick game     POST /quickgame {stake_level, buy_in, client_seed}
 *                  → the table and the engine's Connect/gRPC-Web URL
 *   play           TableService.WatchTable (render every snapshot), TableService.Act
 *   table moved    a stream ending TABLE_MOVED (another engine node serves the table now):
 *                  watched again at the web URL it names, without asking the lobby
 *                  (connection.ts); the seat view stays and a notice says so
 *   node died      the stream breaks with no word (no TABLE_MOVED): after two failures in a
 *                  row, each retry asks GET /tables/{id} (a tournament seat: its entry) where
 *                  the table is now and watches it there when that names another node
 *   alone at it    GET /tables/{id} (polled while nobody else sits there: opponents.ts),
 *                  POST /tables/{id}/bots (play with bots), DELETE /tables/{id}/bots (keep waiting)
 *   seed rotated   GET /tables/{id} seed_reveals: past hands of his made public (reveals.ts)
 *   leave / top up POST /tables/{id}/leave, POST /tables/{id}/topup
 *
 * The page is plain TypeScript on the DOM (no framework), bundled by esbuild
 * (scripts/build-web) into lobby_api/static/play/. Front-end teams: copy freely.
 */

import { SessionEnded, errorReason, lobbySession, sessionState } from "../index.js";
import type { ActionKind, RefreshingToken, SessionState, Event as TableEvent, TableSnapshot } from "../index.js";
import { Lobby, LobbyProblem } from "./api.js";
import type { HandSummary, QuickGame, StakeLevel, TournamentEntry, WalletEntry } from "./api.js";
import { TableConnection } from "./connection.js";
import type { Ended, LocateTable } from "./connection.js";
import { chips } from "./format.js";
import { OpponentsPanel } from "./opponents.js";
import { SeedNotice } from "./reveals.js";
import { TournamentPanel } from "./tournament-panel.js";
import { TournamentsTab, ordinal } from "./tournaments.js";
import {
  checkHand,
  handMeta,
  handRow,
  offerPhh,
  renderFairness,
  renderHandResult,
  renderReplay,
  replayFromPhh,
  verifyTableHands,
} from "./history.js";
import { describeEvent, el, localDeadline, renderActions, renderTable, tickClocks } from "./render.js";

/** The lobby serves this page, so its API is on the same origin. */
const LOBBY_URL = window.location.origin;
const SESSION_KEY = "stud.session";
const TABLE_KEY = "stud.table";
const LOG_LINES = 40;
/** Why the engine cancels a hand its previous process left running (HandCancelled.reason). */
const RESTART_REASON = "engine restart";

/** Where the player sits: enough to watch his table again after a reload. */
interface Seat {
  table: string;
  tableId: string;
  engineUrl: string;
  /** Set at a tournament table: chips are tournament chips (no leave, no top-up). */
  tournamentId?: string;
}

type Section = "sign-in" | "lobby" | "table-view";
type Tab = "play" | "tournaments" | "hands" | "wallet";
const WAITING_POLL_MS = 5000;

/** Ledger entry kinds in words. */
const ENTRY_KINDS: Record<string, string> = {
  signup_grant: "Welcome grant",
  grant: "Grant",
  buy_in: "Buy-in",
  top_up: "Top-up",
  settlement: "Cash-out",
  refund: "Buy-in refunded",
  buy_in_back: "Buy-in back",
  ticket_hold: "Buy-in held (waiting)",
  ticket_release: "Held buy-in back",
  tournament_entry: "Tournament entry",
  tournament_refund: "Tournament entry back",
  tournament_prize: "Tournament prize",
  tournament_share: "Tournament share (cancelled)",
};

function entryKind(kind: string): string {
  return ENTRY_KINDS[kind] ?? kind.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());
}

function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (element === null) throw new Error(`the page has no #${id}`);
  return element as T;
}

function message(error: unknown): string {
  if (error instanceof LobbyProblem || error instanceof SessionEnded) return error.message;
  const reason = errorReason(error);
  if (reason !== undefined) return REASONS[reason] ?? reason;
  return error instanceof Error ? error.message : String(error);
}

/** Friendlier words for the engine's refusals a player may meet while clicking. */
const REASONS: Record<string, string> = {
  NOT_YOUR_TURN: "Too late: it is no longer your turn (your clock may have run out).",
  STALE_HAND: "That hand has ended.",
  ILLEGAL_ACTION: "That action is not allowed now.",
  NO_HAND_IN_PROGRESS: "No hand is running.",
  TABLE_MOVED: "The table is moving to another server: choose again in a moment.",
};

class TablePage {
  private lobby = new Lobby(LOBBY_URL);
  private stakes: StakeLevel[] = [];
  private seat: Seat | undefined;
  private connection: TableConnection | undefined;
  private snapshot: TableSnapshot | undefined;
  private tab: Tab = "play";
  private handsToken = "";
  private ledgerToken: string | null = null;
  /** Bumped by every load of the hand list, the ledger and a hand: an answer to an older
   * request (a second click on the tab, another hand opened meanwhile) is dropped. */
  private handsLoad = 0;
  private ledgerLoad = 0;
  private handLoad = 0;
  private waitingTimer: ReturnType<typeof setInterval> | undefined;
  private opponents = new OpponentsPanel({
    lobby: () => this.lobby,
    stakes: () => this.stakes,
    onView: (view) => this.seedNotice.update(view.table_id, view.seed_reveals),
    describe: message,
  });
  private seedNotice = new SeedNotice();
  private playerId = "";
  private cityNames = new Map<string, string>();
  /** The table watched again once he was seated there after his stream began. */
  private rewatched = "";
  /** Hands ended by an engine restart already in the log ("table#hand"): every stream opened
   * while such a hand is the table's last says so again in its first message. */
  private toldRestartEnds = new Set<string>();
  private tournamentPanel = new TournamentPanel();
  private tournaments = new TournamentsTab({
    lobby: () => this.lobby,
    play: (tournamentId, entry) => this.playTournament(tournamentId, entry),
    walletChanged: () => void this.refreshWallet(),
    describe: message,
  });

  async start(): Promise<void> {
    for (const button of document.querySelectorAll<HTMLButtonElement>(".lobby-tabs .tab")) {
      button.addEventListener("click", () => void this.openTab(button.dataset["tab"] as Tab));
    }
    byId("hands-more").addEventListener("click", () => void this.loadHands(false));
    byId("ledger-more").addEventListener("click", () => void this.loadLedger(false));
    byId("hand-back").addEventListener("click", () => this.showHandList());
    byId<HTMLFormElement>("sign-in-form").addEventListener("submit", (e) => {
      e.preventDefault();
      void this.signIn();
    });
    byId<HTMLFormElement>("quick-game-form").addEventListener("submit", (e) => {
      e.preventDefault();
      void this.quickGame();
    });
    byId<HTMLSelectElement>("stake-level").addEventListener("change", () => this.suggestBuyIn());
    byId("sign-out").addEventListener("click", () => this.signOut());
    byId("leave").addEventListener("click", () => void this.leave());
    byId("top-up").addEventListener("click", () => void this.topUp());
    setInterval(tickClocks, 200);

    const kept = sessionStorage.getItem(SESSION_KEY);
    if (kept === null) {
      this.show("sign-in");
      return;
    }
    this.lobby = new Lobby(LOBBY_URL, this.session(JSON.parse(kept) as SessionState));
    try {
      await this.enterLobby();
    } catch {
      this.signOut();
      return;
    }
    const stored = sessionStorage.getItem(TABLE_KEY);
    if (stored !== null) this.openTable(JSON.parse(stored) as Seat);
  }

  private show(section: Section): void {
    for (const id of ["sign-in", "lobby", "table-view"] as const) byId(id).hidden = id !== section;
    byId("sign-out").hidden = section === "sign-in";
    document.body.dataset["section"] = section;
    if (this.waitingTimer !== undefined) clearInterval(this.waitingTimer);
    this.waitingTimer = undefined;
    if (section !== "lobby") this.tournaments.hide();
    if (section === "lobby") {
      // openTab("play") asks at once; this keeps the counts fresh while he looks at them.
      this.waitingTimer = setInterval(() => {
        if (this.tab === "play") void this.refreshWaiting();
      }, WAITING_POLL_MS);
    }
  }

  // ------------------------------------------------------------------ lobby tabs

  private async openTab(tab: Tab): Promise<void> {
    this.tab = tab;
    for (const panel of document.querySelectorAll<HTMLElement>("#lobby .tab-panel")) {
      panel.hidden = panel.dataset["tab"] !== tab;
    }
    for (const button of document.querySelectorAll<HTMLButtonElement>(".lobby-tabs .tab")) {
      button.setAttribute("aria-selected", String(button.dataset["tab"] === tab));
    }
    byId("lobby").dataset["tab"] = tab;
    if (tab !== "tournaments") this.tournaments.hide();
    if (tab === "tournaments") {
      await this.tournaments.show();
    } else if (tab === "hands") {
      this.showHandList();
      await this.loadHands(true);
    } else if (tab === "wallet") {
      await this.loadLedger(true);
    } else {
      await this.refreshWaiting();
    }
  }

  /** How many players of his city wait for a game at each stake level. */
  private async refreshWaiting(): Promise<void> {
    try {
      const waiting = await this.lobby.waiting();
      byId("waiting-title").textContent = `Waiting for a game in ${this.cityName(waiting.city)}`;
      byId("waiting").replaceChildren(
        ...waiting.levels.map((level) => {
          const item = el("li", level.waiting > 0 ? "has-waiting" : "");
          item.dataset["stakeLevel"] = level.stake_level;
          item.dataset["waiting"] = String(level.waiting);
          item.append(
            el("span", "", level.name),
            el("strong", "", level.waiting === 1 ? "1 player" : `${level.waiting} players`),
          );
          return item;
        }),
      );
    } catch {
      // Only a hint: the next poll tries again.
    }
  }

  private async loadHands(fresh: boolean): Promise<void> {
    const body = byId("hands").querySelector("tbody");
    if (body === null) return;
    const load = ++this.handsLoad;
    const more = byId<HTMLButtonElement>("hands-more");
    if (fresh) {
      this.handsToken = "";
      body.replaceChildren();
      byId("hands-empty").hidden = true;
      delete byId("hands").dataset["loaded"];
    }
    more.disabled = true;
    byId("hands-error").textContent = "";
    try {
      const page = await this.lobby.hands(this.handsToken);
      if (load !== this.handsLoad) return;
      body.append(...page.hands.map((hand) => handRow(hand, (h) => void this.openHand(h))));
      this.handsToken = page.next_page_token;
      more.hidden = page.next_page_token === "";
      byId("hands-empty").hidden = body.children.length > 0;
      byId("hands").dataset["loaded"] = String(body.children.length);
    } catch (e) {
      if (load === this.handsLoad) byId("hands-error").textContent = message(e);
    } finally {
      if (load === this.handsLoad) more.disabled = false;
    }
  }

  private showHandList(): void {
    byId("hands-list-box").hidden = false;
    byId("hand-view").hidden = true;
  }

  /** One hand: replayed street by street, its result, and its fairness checked here. */
  private async openHand(summary: HandSummary): Promise<void> {
    const load = ++this.handLoad;
    const current = (): boolean => load === this.handLoad;
    byId("hands-list-box").hidden = true;
    const view = byId("hand-view");
    view.hidden = false;
    delete view.dataset["ready"];
    view.dataset["handId"] = summary.hand_id;
    byId("hand-title").textContent = `Hand #${summary.hand_number}`;
    byId("hand-meta").textContent = "";
    for (const id of ["replay", "hand-result", "hand-fairness"]) byId(id).replaceChildren();
    byId("hand-error").textContent = "";
    try {
      const [hand, fairness] = await Promise.all([
        this.lobby.hand(summary.hand_id),
        this.lobby.fairness(summary.hand_id),
      ]);
      if (!current()) return;
      byId("hand-meta").textContent = handMeta(hand);
      const link = byId<HTMLAnchorElement>("phh-download");
      link.hidden = hand.state === "running";
      if (hand.state !== "running") {
        try {
          const phh = await this.lobby.phh(summary.hand_id);
          if (!current()) return;
          offerPhh(phh, summary.hand_id);
          const finals = new Map(hand.seats.flatMap((s) => (s.final_stack === null ? [] : [[s.seat, s.final_stack] as const])));
          renderReplay(replayFromPhh(phh, finals), hand);
        } catch (e) {
          if (!current()) return;
          link.hidden = true;
          byId("replay").replaceChildren(el("p", "muted", `No replay: ${message(e)}`));
        }
      }
      renderHandResult(hand);
      const verdict = await checkHand(fairness);
      if (!current()) return;
      renderFairness(hand, fairness, verdict, () => verifyTableHands(this.lobby, hand.table));
      view.dataset["ready"] = "true";
    } catch (e) {
      if (current()) byId("hand-error").textContent = message(e);
    }
  }

  private async loadLedger(fresh: boolean): Promise<void> {
    const body = byId("ledger").querySelector("tbody");
    if (body === null) return;
    const load = ++this.ledgerLoad;
    const more = byId<HTMLButtonElement>("ledger-more");
    if (fresh) {
      this.ledgerToken = null;
      body.replaceChildren();
      delete byId("ledger").dataset["loaded"];
    }
    more.disabled = true;
    byId("wallet-error").textContent = "";
    try {
      const page = await this.lobby.walletPage(20, this.ledgerToken ?? undefined);
      if (load !== this.ledgerLoad) return;
      byId("wallet-balance").textContent = `Balance: ${chips(page.balance)} chips`;
      byId("wallet").textContent = `Wallet: ${chips(page.balance)} chips`;
      body.append(...page.entries.map((entry) => this.ledgerRow(entry)));
      this.ledgerToken = page.next_page_token ?? null;
      more.hidden = this.ledgerToken === null;
      byId("ledger").dataset["loaded"] = String(body.children.length);
    } catch (e) {
      if (load === this.ledgerLoad) byId("wallet-error").textContent = message(e);
    } finally {
      if (load === this.ledgerLoad) more.disabled = false;
    }
  }

  private ledgerRow(entry: WalletEntry): HTMLTableRowElement {
    const row = el("tr", "entry");
    row.dataset["kind"] = entry.kind;
    row.dataset["amount"] = String(entry.amount);
    const what = el("td", "", entryKind(entry.kind));
    // A table is worth naming (the lobby names it for a buy-in, a cash-out, a ticket that found
    // a seat); the seat session, ticket and account ids of the references mean nothing to him.
    if (entry.table_id) {
      row.dataset["table"] = entry.table_id;
      what.append(el("span", "muted ref", ` table ${entry.table_id}`));
    }
    const amount = el("td", `num ${entry.amount >= 0 ? "plus" : "minus"}`, entry.amount > 0 ? `+${chips(entry.amount)}` : chips(entry.amount));
    row.append(
      el("td", "muted", new Date(entry.created_at).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short" })),
      what,
      amount,
      el("td", "num", chips(entry.balance_after)),
    );
    return row;
  }

  // ------------------------------------------------------------------ signing in

  private async signIn(): Promise<void> {
    const username = byId<HTMLInputElement>("username").value.trim();
    const password = byId<HTMLInputElement>("password").value;
    const error = byId("sign-in-error");
    const button = byId<HTMLButtonElement>("sign-in-button");
    error.textContent = "";
    button.disabled = true;
    try {
      const state = sessionState(await this.lobby.signIn(username, password));
      sessionStorage.setItem(SESSION_KEY, JSON.stringify(state));
      this.lobby = new Lobby(LOBBY_URL, this.session(state));
      await this.enterLobby();
    } catch (e) {
      error.textContent = message(e);
    } finally {
      button.disabled = false;
    }
  }

  /** His session from `state`: kept in sessionStorage as it renews; its end signs him out. */
  private session(state: SessionState): RefreshingToken {
    return lobbySession(LOBBY_URL, state, (next) => {
      if (next !== null) {
        sessionStorage.setItem(SESSION_KEY, JSON.stringify(next));
        document.body.dataset["renewals"] = String(Number(document.body.dataset["renewals"] ?? "0") + 1);
      } else {
        this.signOut("Your session has ended (signed out elsewhere, or the password changed): sign in again.");
      }
    });
  }

  private signOut(notice = ""): void {
    this.connection?.stop();
    this.connection = undefined;
    this.opponents.stop();
    this.seedNotice.stop();
    void this.lobby.signOut();
    sessionStorage.removeItem(SESSION_KEY);
    sessionStorage.removeItem(TABLE_KEY);
    this.lobby = new Lobby(LOBBY_URL);
    byId("who").textContent = "";
    byId("sign-in-error").textContent = notice;
    this.show("sign-in");
  }

  // ----------------------------------------------------------------------- lobby

  private async enterLobby(notice = ""): Promise<void> {
    const [me, wallet, stakes] = await Promise.all([
      this.lobby.me(),
      this.lobby.wallet(),
      this.lobby.stakes(),
      this.loadCityNames(),
    ]);
    byId("who").textContent = `${me.username} · ${this.cityName(me.city)}`;
    this.playerId = me.id;
    byId("wallet").textContent = `Wallet: ${chips(wallet.balance)} chips`;
    byId("lobby-notice").textContent = notice;
    this.stakes = stakes;
    const select = byId<HTMLSelectElement>("stake-level");
    const chosen = select.value;
    select.replaceChildren(
      ...stakes.map((level) => {
        const option = el("option", "", `${level.name} — buy-in ${chips(level.min_buy_in)}–${chips(level.max_buy_in)}`);
        option.value = level.id;
        return option;
      }),
    );
    if (stakes.some((level) => level.id === chosen)) select.value = chosen;
    this.suggestBuyIn();
    this.show("lobby");
    await this.openTab(this.tab);
  }

  /** The cities' names (GET /cities), once: the lobby's answers name a city by its id. */
  private async loadCityNames(): Promise<void> {
    if (this.cityNames.size > 0) return;
    try {
      for (const city of await this.lobby.cities()) this.cityNames.set(city.id, city.name);
    } catch {
      // The id is a fine name too.
    }
  }

  private cityName(city: string): string {
    return this.cityNames.get(city) ?? city;
  }

  private async refreshWallet(): Promise<void> {
    try {
      const wallet = await this.lobby.wallet();
      byId("wallet").textContent = `Wallet: ${chips(wallet.balance)} chips`;
    } catch {
      // Only a hint: the lobby shows it again on the next visit.
    }
  }

  /** His tournament entry plays: sit at the table it names. */
  private playTournament(tournamentId: string, entry: TournamentEntry): void {
    if (!entry.table_id || !entry.engine_grpc_web) return;
    const seat: Seat = {
      table: `tables/${entry.table_id}`,
      tableId: entry.table_id,
      engineUrl: entry.engine_grpc_web,
      tournamentId,
    };
    sessionStorage.setItem(TABLE_KEY, JSON.stringify(seat));
    this.openTable(seat);
  }

  /** 25 big bets, within the level's buy-in limits. */
  private suggestBuyIn(): void {
    const level = this.stakes.find((s) => s.id === byId<HTMLSelectElement>("stake-level").value);
    if (level === undefined) return;
    const input = byId<HTMLInputElement>("buy-in");
    input.min = String(level.min_buy_in);
    input.max = String(level.max_buy_in);
    input.value = String(Math.min(level.max_buy_in, Math.max(level.min_buy_in, 25 * level.big_bet)));
  }

  private async quickGame(): Promise<void> {
    const error = byId("quick-game-error");
    const button = byId<HTMLButtonElement>("quick-game-button");
    error.textContent = "";
    button.disabled = true;
    try {
      const stake = byId<HTMLSelectElement>("stake-level").value;
      const game: QuickGame = await this.lobby.quickGame(stake, Number(byId<HTMLInputElement>("buy-in").value));
      const seat: Seat = { table: game.table, tableId: game.table_id, engineUrl: game.engine_grpc_web };
      sessionStorage.setItem(TABLE_KEY, JSON.stringify(seat));
      this.openTable(seat, game);
    } catch (e) {
      error.textContent = message(e);
    } finally {
      button.disabled = false;
    }
  }

  // ----------------------------------------------------------------------- table

  /** Sit down at his table: watch it, and say what happens while nobody else sits there. */
  private openTable(seat: Seat, game?: QuickGame): void {
    const session = this.lobby.session;
    if (session === undefined) return;
    this.connection?.stop();
    const again = this.seat?.table === seat.table;
    this.seat = seat;
    const tournament = seat.tournamentId !== undefined;
    this.opponents.stop();
    this.seedNotice.stop();
    if (!tournament) {
      // Quick games only: who else is coming, and the seed rotations of his private table.
      this.seedNotice.start(seat.tableId);
      this.opponents.start(seat.tableId, game?.opponents ?? undefined, game?.city, game?.stake_level);
    }
    this.tournamentPanel.start(tournament);
    byId("table-view").dataset["tournament"] = seat.tournamentId ?? "";
    byId("leave").textContent = tournament ? "Back to the lobby" : "Leave table";
    this.snapshot = undefined;
    if (!again) byId("log").replaceChildren();
    byId("table-error").textContent = "";
    byId("move-notice").hidden = true;
    byId("link-state").textContent = "connecting…";
    this.show("table-view");
    // Every call to the engine carries the session's current token (renewed as it goes).
    const connection = new TableConnection(seat.engineUrl, session, seat.table, { locate: this.locator(seat) });
    this.connection = connection;
    void connection
      .watch({
        onSnapshot: (snapshot, events) => this.onSnapshot(snapshot, events),
        onLink: (state, detail) => {
          byId("link-state").textContent = state === "connected" ? "connected" : `reconnecting… (${detail ?? ""})`;
        },
        onMoved: (moved, via) => this.onMoved(connection, moved.webUrl, via),
      })
      .then((ended) => this.onEnded(connection, ended));
  }

  private onSnapshot(snapshot: TableSnapshot, events: readonly TableEvent[]): void {
    this.snapshot = snapshot;
    const deadline = localDeadline(snapshot, Date.now());
    renderTable(snapshot, deadline);
    renderActions(snapshot, deadline, (kind, amount) => void this.act(kind, amount));
    for (const event of events) {
      if (this.toldAgain(snapshot, event)) continue;
      const line = describeEvent(snapshot, event);
      if (line) this.log(line);
    }
    const seat = this.seat;
    if (seat?.tournamentId !== undefined) {
      this.tournamentPanel.update(snapshot, events, this.playerId);
      // Moved here, he may arrive before the director seats him: his stream is a railbird's
      // until then. Seated now, he watches again to get his seat's view (once per table).
      const seatedHere = snapshot.seats.some((s) => s.playerId === this.playerId);
      if (snapshot.viewerSeat === 0 && seatedHere && this.rewatched !== seat.table) {
        this.rewatched = seat.table;
        this.openTable(seat);
        return;
      }
      // Moved to another table (balancing, a table broken): follow him there at once.
      for (const event of events) {
        if (event.kind.case === "playerMoved" && event.kind.value.playerId === this.playerId) {
          const destination = event.kind.value.destination;
          if (destination === undefined) continue;
          const next: Seat = {
            table: destination.table,
            tableId: destination.table.replace(/^tables\//, ""),
            engineUrl: destination.webUrl,
            tournamentId: seat.tournamentId,
          };
          sessionStorage.setItem(TABLE_KEY, JSON.stringify(next));
          this.openTable(next);
          // After openTable, which starts the new table's log.
          this.log(`You move to another table with ${chips(event.kind.value.stack)}.`);
          return;
        }
      }
      byId("top-up").hidden = true;
      return;
    }
    // The seed was rotated: the lobby says which of his hands that made public.
    if (events.some((event) => event.kind.case === "seedRotated")) this.opponents.refresh();
    // Alone again (the others left): what he can do about it.
    if (snapshot.seats.length <= 1 && !snapshot.handInProgress) this.opponents.alone();
    const me = snapshot.seats.find((s) => s.number === snapshot.viewerSeat);
    const busted = me !== undefined && me.stack === 0n && !(me.inHand && snapshot.handInProgress);
    byId("top-up").hidden = !busted;
  }

  /**
   * How the connection asks the lobby where his table is served now, once its engine node
   * stopped answering (a node that dies says nothing; another takes its tables over): a quick
   * table's GET /tables/{id}, a tournament seat's entry (while it still names this table).
   */
  private locator(seat: Seat): LocateTable {
    const tournamentId = seat.tournamentId;
    if (tournamentId === undefined) {
      return async () => {
        const view = await this.lobby.table(seat.tableId);
        return { node: "", webUrl: view.engine_grpc_web, grpcAddress: view.engine_grpc };
      };
    }
    return async () => {
      const entry = await this.lobby.myEntry(tournamentId);
      if (entry.status !== "playing" || entry.table_id !== seat.tableId || !entry.engine_grpc_web) return undefined;
      return { node: "", webUrl: entry.engine_grpc_web, grpcAddress: entry.engine_grpc ?? "" };
    };
  }

  /** His table moved to another engine node; the connection watches it there already. The
   * seat view stays as it is until the new node's first snapshot redraws it. `via`: the old
   * node said so, or it stopped answering and the lobby named the new one. */
  private onMoved(connection: TableConnection, webUrl: string, via: "engine" | "lobby"): void {
    const seat = this.seat;
    if (connection !== this.connection || seat === undefined) return;
    const moved: Seat = { ...seat, engineUrl: webUrl };
    this.seat = moved;
    // A reload watches it at its new home too.
    sessionStorage.setItem(TABLE_KEY, JSON.stringify(moved));
    const notice = byId("move-notice");
    notice.textContent =
      via === "engine"
        ? "The table moved to another server; you keep your seat."
        : "The table's server stopped answering; another server serves it now. You keep your seat.";
    notice.hidden = false;
    notice.dataset["moves"] = String(Number(notice.dataset["moves"] ?? "0") + 1);
    notice.dataset["via"] = via;
    byId("link-state").textContent = "table moved to another server: reconnecting…";
    this.log(via === "engine" ? "The table moved to another server." : "The table's server went down; it plays on at another.");
  }

  private async onEnded(connection: TableConnection, ended: Ended): Promise<void> {
    if (connection !== this.connection || ended.kind === "stopped") return;
    if (ended.kind === "replaced") {
      byId("link-state").textContent = "this table is open in another tab";
      return;
    }
    if (ended.kind === "session_ended") return; // signed out already (see session())
    const tournamentId = this.seat?.tournamentId;
    if (tournamentId !== undefined && (await this.followEntry(connection, tournamentId))) return;
    sessionStorage.removeItem(TABLE_KEY);
    this.connection = undefined;
    this.seat = undefined;
    this.opponents.stop();
    this.seedNotice.stop();
    await this.enterLobby(ended.kind === "left" ? "You left the table; your chips are back in your wallet." : "");
  }

  /**
   * His tournament stream ended with no move told (a table broken by CloseTable, the
   * tournament over): the lobby says where his entry is. Returns whether he stays on this page
   * (seated elsewhere, or out and shown his result).
   */
  private async followEntry(connection: TableConnection, tournamentId: string): Promise<boolean> {
    try {
      const entry = await this.lobby.myEntry(tournamentId);
      if (connection !== this.connection) return true;
      if (entry.status === "playing" && entry.table_id && entry.engine_grpc_web) {
        if (`tables/${entry.table_id}` !== this.seat?.table) {
          this.playTournament(tournamentId, entry);
          return true;
        }
        return false;
      }
      if (entry.place != null) {
        const prize = entry.prize ?? 0;
        this.tournamentPanel.result(
          entry.place === 1 ? "won" : "placed",
          entry.place === 1
            ? `You won the tournament! Prize: ${chips(prize)}.`
            : `You finished ${ordinal(entry.place)}${prize > 0 ? ` and won ${chips(prize)}` : ""}.`,
        );
        byId("link-state").textContent = "the table has closed";
        this.connection = undefined;
        sessionStorage.removeItem(TABLE_KEY);
        return true;
      }
    } catch {
      // The lobby cannot say: back to the lobby, where the tournament's page tells.
    }
    return false;
  }

  /** Whether the event is the end of a hand an engine restart ended, logged already. */
  private toldAgain(snapshot: TableSnapshot, event: TableEvent): boolean {
    const kind = event.kind.case;
    const restart = kind === "handSettled" || (kind === "handCancelled" && event.kind.value.reason === RESTART_REASON);
    if (!restart) return false;
    const key = `${snapshot.table}#${event.handNumber}`;
    if (this.toldRestartEnds.has(key)) return true;
    this.toldRestartEnds.add(key);
    return false;
  }

  private log(line: string): void {
    const list = byId("log");
    list.prepend(el("li", "", line));
    while (list.children.length > LOG_LINES) list.lastElementChild?.remove();
  }

  private async act(kind: ActionKind, amount: bigint | undefined): Promise<void> {
    const connection = this.connection;
    const snapshot = this.snapshot;
    if (connection === undefined || snapshot === undefined) return;
    const bar = byId("actions");
    for (const control of bar.querySelectorAll<HTMLButtonElement | HTMLInputElement>("button, input")) control.disabled = true;
    bar.dataset["sending"] = "true";
    try {
      await connection.act(snapshot.handNumber, kind, amount);
      byId("table-error").textContent = "";
    } catch (e) {
      byId("table-error").textContent = message(e);
      // Nothing changed at the table: let him choose again on the same snapshot.
      if (this.snapshot === snapshot) {
        renderActions(snapshot, localDeadline(snapshot, Date.now()), (k, a) => void this.act(k, a));
      }
    } finally {
      delete bar.dataset["sending"];
    }
  }

  private async leave(): Promise<void> {
    if (this.seat?.tournamentId !== undefined) {
      // Tournament chips stay at the table: he only stops watching (his clock acts for him
      // while he is away), and may come back from the tournament's page.
      this.connection?.stop();
      this.connection = undefined;
      this.seat = undefined;
      this.tournamentPanel.stop();
      sessionStorage.removeItem(TABLE_KEY);
      this.tab = "tournaments";
      await this.enterLobby();
      return;
    }
    if (this.seat === undefined) return;
    try {
      const answer = await this.lobby.leave(this.seat.tableId);
      byId("table-error").textContent =
        answer.state === "closed"
          ? `You left with ${chips(answer.final_stack ?? 0)}.`
          : "You will leave when this hand ends.";
    } catch (e) {
      byId("table-error").textContent = message(e);
    }
  }

  private async topUp(): Promise<void> {
    const settings = this.snapshot?.settings;
    if (this.seat === undefined || settings === undefined) return;
    try {
      await this.lobby.topUp(this.seat.tableId, Number(settings.minBuyIn));
      byId("table-error").textContent = "";
    } catch (e) {
      byId("table-error").textContent = message(e);
    }
  }
}

void new TablePage().start();
