/**
 * The lobby calls the table page makes, on the typed client (`createLobbyClient`, whose types
 * come from the lobby's OpenAPI document). Every refusal of the lobby is an RFC 9457 problem
 * document; it is thrown as {@link LobbyProblem} with the lobby's `detail` as its message.
 */

import { createLobbyClient, logOut } from "../index.js";
import type { LobbyComponents, LobbyClient, RefreshingToken, TokenPair } from "../index.js";
import { randomToken } from "./format.js";

export type Player = LobbyComponents["schemas"]["PlayerView"];
export type StakeLevel = LobbyComponents["schemas"]["StakeLevelView"];
export type QuickGame = LobbyComponents["schemas"]["QuickGameView"];
export type Wallet = LobbyComponents["schemas"]["WalletView"];
export type Leave = LobbyComponents["schemas"]["LeaveView"];
export type WalletEntry = LobbyComponents["schemas"]["EntryView"];
export type HandPage = LobbyComponents["schemas"]["HandPage"];
export type HandSummary = LobbyComponents["schemas"]["HandSummary"];
export type HandView = LobbyComponents["schemas"]["HandView"];
export type HandFairness = LobbyComponents["schemas"]["HandFairness"];
export type Waiting = LobbyComponents["schemas"]["WaitingView"];
export type City = LobbyComponents["schemas"]["CityView"];
export type TableView = LobbyComponents["schemas"]["TableView"];
export type Opponents = LobbyComponents["schemas"]["Opponents"];
export type SeedReveal = LobbyComponents["schemas"]["SeedReveal"];
export type TournamentSummary = LobbyComponents["schemas"]["TournamentSummary"];
export type TournamentDetail = LobbyComponents["schemas"]["TournamentDetail"];
export type TournamentEntry = LobbyComponents["schemas"]["TournamentEntryView"];

/** The filters of the tournament list (GET /tournaments); empty: any. */
export interface TournamentFilters {
  status?: TournamentSummary["status"] | "";
  kind?: TournamentSummary["kind"] | "";
  city?: string;
}

/** A refusal by the lobby: its HTTP status, problem code and the field it names, if any. */
export class LobbyProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
    readonly field?: string,
  ) {
    super(detail);
  }
}

function problem(response: Response, error: unknown): LobbyProblem {
  const document = (typeof error === "object" && error !== null ? error : {}) as Record<string, unknown>;
  const text = (key: string): string | undefined => {
    const value = document[key];
    return typeof value === "string" ? value : undefined;
  };
  return new LobbyProblem(
    response.status,
    text("code") ?? "error",
    text("detail") ?? text("title") ?? `${response.status} ${response.statusText}`,
    text("field"),
  );
}

/** The result of an openapi-fetch call: the data, or a thrown {@link LobbyProblem}. */
async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok || data === undefined) throw problem(response, error);
  return data;
}

/** An Idempotency-Key: unique per request the player means; a retry reuses it. */
export function idempotencyKey(): string {
  return randomToken(18);
}

/**
 * A client seed (docs/fairness.md §1): chosen by the opener's browser with crypto.getRandomValues,
 * 1-64 characters of [A-Za-z0-9_-] — here 128 random bits, 22 characters.
 */
export function clientSeed(): string {
  return randomToken(16);
}

/**
 * The lobby, as one signed-in player (or nobody, before signing in). His session renews its
 * short-lived access token by itself (see lobbySession), on every call.
 */
export class Lobby {
  private client: LobbyClient;

  constructor(
    readonly baseUrl: string,
    readonly session?: RefreshingToken,
  ) {
    this.client = createLobbyClient(baseUrl, session);
  }

  /** POST /auth/login: the first tokens of a new session (give them to lobbySession). */
  signIn(username: string, password: string): Promise<TokenPair> {
    return unwrap(this.client.POST("/auth/login", { body: { username, password } }));
  }

  /** POST /auth/logout: his session ends (the page forgets it whether or not the lobby answers). */
  async signOut(): Promise<void> {
    if (this.session === undefined || this.session.isEnded) return;
    await logOut(this.baseUrl, this.session.state.refreshToken).catch(() => undefined);
  }

  me(): Promise<Player> {
    return unwrap(this.client.GET("/me"));
  }

  wallet(): Promise<Wallet> {
    return unwrap(this.client.GET("/wallet", { params: { query: { page_size: 1 } } }));
  }

  /** GET /wallet: the balance and a page of ledger entries, newest first. */
  walletPage(pageSize: number, pageToken?: string): Promise<Wallet> {
    const query = pageToken === undefined ? { page_size: pageSize } : { page_size: pageSize, page_token: pageToken };
    return unwrap(this.client.GET("/wallet", { params: { query } }));
  }

  /** GET /quickgame/waiting: players of his city waiting for a quick game, per stake level. */
  waiting(): Promise<Waiting> {
    return unwrap(this.client.GET("/quickgame/waiting"));
  }

  /** GET /hands: his hands, newest first. */
  hands(pageToken = ""): Promise<HandPage> {
    return unwrap(this.client.GET("/hands", { params: { query: { page_size: 20, page_token: pageToken } } }));
  }

  /** GET /hands/{id}: one hand, redacted for him by the lobby. */
  hand(handId: string): Promise<HandView> {
    return unwrap(this.client.GET("/hands/{hand_id}", { params: { path: { hand_id: handId } } }));
  }

  /** GET /hands/{id}/phh: the hand's PHH text, redacted for him ("??" for cards he may not see). */
  async phh(handId: string): Promise<string> {
    const answer = this.client.GET("/hands/{hand_id}/phh", {
      params: { path: { hand_id: handId } },
      parseAs: "text",
    });
    return unwrap(answer as Promise<{ data?: string; error?: unknown; response: Response }>);
  }

  /** GET /hands/{id}/fairness: commitment, client seed, nonce, and the dealer seed once revealed. */
  fairness(handId: string): Promise<HandFairness> {
    return unwrap(this.client.GET("/hands/{hand_id}/fairness", { params: { path: { hand_id: handId } } }));
  }

  stakes(): Promise<StakeLevel[]> {
    return unwrap(this.client.GET("/stakes"));
  }

  cities(): Promise<City[]> {
    return unwrap(this.client.GET("/cities"));
  }

  /** GET /tables/{id}: his quick table now — who plays, who waits, bots, seed rotations. */
  table(tableId: string): Promise<TableView> {
    return unwrap(this.client.GET("/tables/{table_id}", { params: { path: { table_id: tableId } } }));
  }

  /** POST /tables/{id}/bots: play with bots, the table filled to `players` (him included). */
  askForBots(tableId: string, players: number): Promise<TableView> {
    return unwrap(
      this.client.POST("/tables/{table_id}/bots", { params: { path: { table_id: tableId } }, body: { players } }),
    );
  }

  /** DELETE /tables/{id}/bots: keep waiting for players after all (no more bots are sent). */
  keepWaiting(tableId: string): Promise<TableView> {
    return unwrap(this.client.DELETE("/tables/{table_id}/bots", { params: { path: { table_id: tableId } } }));
  }

  /** POST /quickgame: a private table dealt from this browser's client seed, with him seated. */
  quickGame(stakeLevel: string, buyIn: number, seed: string = clientSeed()): Promise<QuickGame> {
    return unwrap(
      this.client.POST("/quickgame", {
        params: { header: { "Idempotency-Key": idempotencyKey() } },
        body: { stake_level: stakeLevel, buy_in: buyIn, client_seed: seed },
      }),
    );
  }

  /** GET /tournaments: registering and running first, then the newest. */
  tournaments(filters: TournamentFilters = {}): Promise<TournamentSummary[]> {
    const query: { status?: TournamentSummary["status"]; kind?: TournamentSummary["kind"]; city?: string } = {};
    if (filters.status) query.status = filters.status;
    if (filters.kind) query.kind = filters.kind;
    if (filters.city) query.city = filters.city;
    return unwrap(this.client.GET("/tournaments", { params: { query } }));
  }

  /** GET /tournaments/{id}: structure, levels, payouts, standings, tables. */
  tournament(tournamentId: string): Promise<TournamentDetail> {
    return unwrap(this.client.GET("/tournaments/{tournament_id}", { params: { path: { tournament_id: tournamentId } } }));
  }

  /** POST /tournaments/{id}/entries: register; buy-in and fee leave the wallet once (the key). */
  register(tournamentId: string, key: string = idempotencyKey()): Promise<TournamentEntry> {
    return unwrap(
      this.client.POST("/tournaments/{tournament_id}/entries", {
        params: { path: { tournament_id: tournamentId }, header: { "Idempotency-Key": key } },
      }),
    );
  }

  /** DELETE /tournaments/{id}/entries/me: unregister before the start (buy-in and fee back). */
  unregister(tournamentId: string): Promise<TournamentEntry> {
    return unwrap(
      this.client.DELETE("/tournaments/{tournament_id}/entries/me", { params: { path: { tournament_id: tournamentId } } }),
    );
  }

  /** GET /tournaments/{id}/entries/me: my entry; while playing, my table and its engine. */
  myEntry(tournamentId: string): Promise<TournamentEntry> {
    return unwrap(
      this.client.GET("/tournaments/{tournament_id}/entries/me", { params: { path: { tournament_id: tournamentId } } }),
    );
  }

  /** POST /tables/{id}/leave: paid out now between hands, after the hand otherwise. */
  leave(tableId: string): Promise<Leave> {
    return unwrap(this.client.POST("/tables/{table_id}/leave", { params: { path: { table_id: tableId } } }));
  }

  /** POST /tables/{id}/topup: chips from the wallet, between hands. */
  topUp(tableId: string, amount: number): Promise<unknown> {
    return unwrap(
      this.client.POST("/tables/{table_id}/topup", {
        params: { path: { table_id: tableId }, header: { "Idempotency-Key": idempotencyKey() } },
        body: { amount },
      }),
    );
  }
}
