/**
 * Plays the web table page in headless Chromium for a while with short-lived access tokens:
 * sign in, open a quick game, click a legal action whenever it is his turn for SECONDS, then
 * sign out. The page must renew its token by itself (POST /auth/refresh) and never show a
 * refusal; every request to /auth/* is recorded with its answer.
 *
 *   node test/refresh-table.mjs LOBBY_URL USERNAME PASSWORD SECONDS [STAKE_LEVEL]
 *
 * Prints one JSON line (for tests/clients/test_web_session.py) and exits 0; on a failure
 * {"ok": false, "error": ...} and exits 1. STUD_CHROMIUM overrides /usr/bin/chromium.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { chromium } from "playwright-core";

const [lobbyUrl, username, password, seconds, stakeLevel = "house-2-4"] = process.argv.slice(2);
if (!lobbyUrl || !username || !password || !seconds) {
  console.error("usage: refresh-table.mjs LOBBY_URL USERNAME PASSWORD SECONDS [STAKE_LEVEL]");
  process.exit(2);
}
const started = Date.now();
const playUntil = started + 1000 * Number(seconds);
const deadline = playUntil + 90_000;
const remaining = () => Math.max(1, deadline - Date.now());
const PREFERENCE = ["CHECK", "CALL", "BRING_IN", "COMPLETE", "SHOW", "BET", "RAISE", "FOLD", "MUCK"];

const userDataDir = mkdtempSync(join(tmpdir(), "stud-chromium-"));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: process.env.STUD_CHROMIUM ?? "/usr/bin/chromium",
  headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
  viewport: { width: 1360, height: 900 },
});
const page = context.pages()[0] ?? (await context.newPage());
const report = { ok: false, clicks: [], problems: [], auth: [], tableErrors: [], engineCalls: 0 };
page.on("pageerror", (error) => report.problems.push(`page error: ${error.message}`));
page.on("console", (message) => {
  if (message.type() === "error") report.problems.push(`console: ${message.text()}`);
});
page.on("response", (response) => {
  const url = new URL(response.url());
  if (url.pathname.startsWith("/auth/")) {
    report.auth.push({ path: url.pathname, status: response.status(), at: (Date.now() - started) / 1000 });
  }
  if (url.pathname.endsWith("/Act")) report.engineCalls += 1;
});

let code = 1;
try {
  await page.goto(`${lobbyUrl}/play`, { timeout: remaining() });
  await page.fill("#username", username);
  await page.fill("#password", password);
  await page.click("#sign-in-button");
  await page.waitForSelector("#lobby:not([hidden])", { timeout: remaining() });
  await page.selectOption("#stake-level", stakeLevel);
  await page.click("#quick-game-button");
  await page.waitForSelector("#table-view:not([hidden])", { timeout: remaining() });
  report.seatedAt = (Date.now() - started) / 1000;

  while (Date.now() < playUntil) {
    const myTurn = await page
      .waitForFunction(
        () => {
          const bar = document.querySelector("#actions");
          return bar?.dataset.myTurn === "true" && !bar.dataset.sending && bar.querySelector("button.action:enabled") !== null;
        },
        null,
        { timeout: Math.max(1, playUntil - Date.now()), polling: "raf" },
      )
      .then(() => true)
      .catch(() => false);
    if (!myTurn) break;
    const hand = await page.$eval("#table-view", (view) => Number(view.dataset.handNumber ?? "0"));
    const kinds = await page.$$eval("#actions button.action:enabled", (buttons) => buttons.map((b) => b.dataset.kind));
    const kind = PREFERENCE.find((k) => kinds.includes(k)) ?? kinds[0];
    await page.locator(`#actions button.action[data-kind="${kind}"]:enabled`).first().click();
    report.clicks.push({ hand, kind, at: (Date.now() - started) / 1000 });
    // The answer: the bar goes back to waiting, or a refusal shows.
    await page.waitForFunction(() => !document.querySelector("#actions")?.dataset.sending, null, { timeout: remaining() });
    const shown = (await page.textContent("#table-error")) ?? "";
    if (shown !== "") report.tableErrors.push({ hand, kind, text: shown });
  }
  report.link = await page.textContent("#link-state");
  report.renewals = Number((await page.getAttribute("body", "data-renewals")) ?? "0");
  report.kept = await page.evaluate(() => JSON.parse(sessionStorage.getItem("stud.session") ?? "null"));

  // Sign out: the session ends at the lobby too.
  const loggedOut = page.waitForResponse((response) => response.url().endsWith("/auth/logout"), { timeout: remaining() });
  await page.click("#sign-out");
  await loggedOut;
  await page.waitForSelector("#sign-in:not([hidden])", { timeout: remaining() });
  report.keptAfter = await page.evaluate(() => sessionStorage.getItem("stud.session"));
  report.ok = report.problems.length === 0;
  code = report.ok ? 0 : 1;
} catch (error) {
  report.error = String(error?.stack ?? error);
} finally {
  await context.close();
  rmSync(userDataDir, { recursive: true, force: true });
}
console.log(JSON.stringify(report));
process.exit(code);
