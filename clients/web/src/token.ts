/** Bearer tokens, shared by the engine and the lobby clients. */

/** A bearer token, or a function that returns the current one (called before every request). */
export type TokenSource = string | (() => string | Promise<string>);

/** The token itself, asking the function for it when it is one. */
export async function resolveToken(token: TokenSource): Promise<string> {
  return typeof token === "string" ? token : await token();
}
