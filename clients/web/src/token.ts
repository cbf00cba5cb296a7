/** Bearer tokens, shared by the engine and the lobby clients. */

/** A bearer token, or a function that returns the current one (called before every request). */
export type TokenSource = string | (() => string | Promise<string>);

/** The token itself, asking the function for it when it is one. */
export async function resolveToken(token: TokenSource): Promise<string> {
  return typeof token === "string" ? token : await token();
}

/** What a log-in or a refresh answers (the lobby's TokenPair), as far as a session needs it. */
export interface TokenGrant {
  access_token: string;
  /** seconds the access token lives */
  expires_in: number;
  refresh_token: string;
}

/** A session as it can be kept (e.g. in sessionStorage) and taken up again. */
export interface SessionState {
  accessToken: string;
  refreshToken: string;
  /** when (ms since the epoch) the access token is to be renewed: before it expires */
  renewAt: number;
}

/** The part of an access token's life left when it is renewed. */
const RENEW_AHEAD = 0.2;

/** The session state a grant starts, at `now` (ms since the epoch). */
export function sessionState(grant: TokenGrant, now: number = Date.now()): SessionState {
  return {
    accessToken: grant.access_token,
    refreshToken: grant.refresh_token,
    renewAt: now + grant.expires_in * 1000 * (1 - RENEW_AHEAD),
  };
}

/** The session is over (logged out, revoked, expired): the player must sign in again. */
export class SessionEnded extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "SessionEnded";
  }
}

/**
 * A player's session: the lobby's access tokens live minutes, so this keeps the current one
 * and renews it by the refresh token (which rotates: each works once) ahead of its expiry,
 * or when a server refused it as expired. Renewals are one at a time — a refresh token
 * exchanged twice ends the session as stolen — so every client of the page may share one.
 *
 * `source` is a TokenSource for createLobbyClient and createTableClient: each request asks it
 * for a token, and gets a fresh one.
 */
export class RefreshingToken {
  private renewing: Promise<string> | undefined;
  private ended: SessionEnded | undefined;

  /**
   * @param exchange  trades a refresh token for the next grant (the lobby's POST /auth/refresh;
   *                  see refreshSession in lobby.ts); throws SessionEnded when the lobby refuses
   * @param onChange  told of every new state (to keep it), and of null when the session ends
   */
  constructor(
    private current: SessionState,
    private readonly exchange: (refreshToken: string) => Promise<TokenGrant>,
    private readonly onChange: (state: SessionState | null) => void = () => undefined,
  ) {}

  /** The state to keep (the tokens and when to renew). */
  get state(): SessionState {
    return this.current;
  }

  /** The access token now, without renewing it. */
  get accessToken(): string {
    return this.current.accessToken;
  }

  /** The TokenSource for the clients: a token valid for a while yet. */
  readonly source = (): Promise<string> => this.fresh();

  /** The access token, renewed first when little of its life is left. */
  async fresh(): Promise<string> {
    if (this.ended !== undefined) throw this.ended;
    if (Date.now() < this.current.renewAt) return this.current.accessToken;
    return await this.renew(this.current.accessToken);
  }

  /**
   * A new access token in place of `stale` (the one a server refused, or one about to expire).
   * When another caller renewed it meanwhile, that one is answered.
   */
  async renew(stale?: string): Promise<string> {
    if (this.ended !== undefined) throw this.ended;
    if (this.renewing !== undefined) return await this.renewing;
    if (stale !== undefined && stale !== this.current.accessToken) return this.current.accessToken;
    this.renewing = (async () => {
      try {
        const grant = await this.exchange(this.current.refreshToken);
        this.current = sessionState(grant);
        this.onChange(this.current);
        return this.current.accessToken;
      } catch (error) {
        if (error instanceof SessionEnded) {
          this.ended = error;
          this.onChange(null);
        }
        throw error;
      } finally {
        this.renewing = undefined;
      }
    })();
    return await this.renewing;
  }

  /** Whether the session has ended (a refresh was refused). */
  get isEnded(): boolean {
    return this.ended !== undefined;
  }
}
