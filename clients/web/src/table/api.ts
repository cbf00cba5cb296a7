/**
 * The lobby calls the table page makes, on the typed client (`createLobbyClient`, whose types
 * come from the lobby's OpenAPI document). Every refusal of the lobby is an RFC 9457 problem
 * document; it is thrown as {@link LobbyProblem} with the lobby's `detail` as its message.
 */

import { createLobbyClient } from "../index.js";
import type { LobbyComponents, LobbyClient } from "../index.js";
import { randomToken } from "./format.js";

export type Player = LobbyComponents["schemas"]["PlayerView"];
export type StakeLevel = LobbyComponents["schemas"]["StakeLevelView"];
export type QuickGame = LobbyComponents["schemas"]["QuickGameView"];
export type Wallet = LobbyComponents["schemas"]["WalletView"];
export type Leave = LobbyComponents["schemas"]["LeaveView"];

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
 * A client seed (FAIRNESS.md): chosen by the opener's browser with crypto.getRandomValues,
 * 1-64 characters of [A-Za-z0-9_-] — here 128 random bits, 22 characters.
 */
export function clientSeed(): string {
  return randomToken(16);
}

/** The lobby, as one signed-in player (or nobody, before signing in). */
export class Lobby {
  private client: LobbyClient;

  constructor(
    readonly baseUrl: string,
    readonly token?: string,
  ) {
    this.client = createLobbyClient(baseUrl, token);
  }

  /** POST /auth/login: a new Lobby signed in as that player. */
  async signIn(username: string, password: string): Promise<Lobby> {
    const answer = await unwrap(this.client.POST("/auth/login", { body: { username, password } }));
    return new Lobby(this.baseUrl, answer.access_token);
  }

  me(): Promise<Player> {
    return unwrap(this.client.GET("/me"));
  }

  wallet(): Promise<Wallet> {
    return unwrap(this.client.GET("/wallet", { params: { query: { page_size: 1 } } }));
  }

  stakes(): Promise<StakeLevel[]> {
    return unwrap(this.client.GET("/stakes"));
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
