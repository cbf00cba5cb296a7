/**
 * Plays the web table page in headless Chromium while its table moves to another engine node:
 * sign in, open a quick game, click a legal action whenever it is his turn, until the page has
 * followed a move (once he has played a hand there, the test moves the table with MoveTable,
 * or kills its node so that another takes it over) and he has acted in a hand dealt by the new
 * node; then report.
 *
 *   node test/follow-table.mjs LOBBY_URL USERNAME PASSWORD [STAKE_LEVEL]
 *
 * Prints one JSON line (for tests/clients/test_web_follow.py and test_web_dead_node.py) and
 * exits 0; on a failure
 * {"ok": false, "error": ...} and exits 1. STUD_CHROMIUM overrides /usr/bin/chromium;
 * STUD_PLAY_DEADLINE (seconds, 150) bounds the whole run; the screenshot at the end goes to
 * STUD_ARTIFACTS/STUD_SCREENSHOT (web-table-moved.png).
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { chromium } from "playwright-core";

const [lobbyUrl, username, password, stakeLevel = "house-2-4"] = process.argv.slice(2);
if (!lobbyUrl || !username || !password) {
  console.error("usage: follow-table.mjs LOBBY_URL USERNAME PASSWORD [STAKE_LEVEL]");
  process.exit(2);
}
const started = Date.now();
const deadline = started + 1000 * Number(process.env.STUD_PLAY_DEADLINE ?? "150");
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
const report = {
  ok: false,
  clicks: [],
  problems: [],
  networkErrors: [],
  tableErrors: [],
  lobbyCalls: [],
  watches: [],
  links: [],
};
page.on("pageerror", (error) => report.problems.push(`page error: ${error.message}`));
page.on("console", (message) => {
  if (message.type() !== "error") return;
  const text = message.text();
  // The browser logs the failed stream it was told to leave (503), and the calls to a node
  // that died (net::ERR_...: the test reads those); anything else is a problem.
  if (text.includes("net::ERR_")) report.networkErrors.push({ text, url: message.location().url });
  else if (!text.includes("503")) report.problems.push(`console: ${text}`);
});
page.on("request", (request) => {
  const url = new URL(request.url());
  const at = (Date.now() - started) / 1000;
  if (url.pathname.endsWith("/WatchTable")) report.watches.push({ origin: url.origin, at });
  else if (url.origin === lobbyUrl) report.lobbyCalls.push({ path: url.pathname, method: request.method(), at });
});

const kept = () => page.evaluate(() => JSON.parse(sessionStorage.getItem("stud.table") ?? "null"));
const viewerSeat = () =>
  page.$$eval("#seats .seat", (boxes) => boxes.filter((b) => b.classList.contains("me")).map((b) => b.dataset.seat));

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
  report.before = await kept();
  console.log(JSON.stringify({ seated: report.before }));

  let movedHand = 0;
  for (;;) {
    const moves = Number((await page.getAttribute("#move-notice", "data-moves")) ?? "0");
    if (moves > 0 && movedHand === 0) {
      movedHand = await page.$eval("#table-view", () => {
        const text = document.querySelector("#hand-info")?.textContent ?? "";
        return Number(/#(\d+)/.exec(text)?.[1] ?? "0");
      });
      report.movedAt = (Date.now() - started) / 1000;
      report.movedInHand = movedHand;
      report.notice = await page.textContent("#move-notice");
      report.noticeVia = await page.getAttribute("#move-notice", "data-via");
      report.noticeShown = await page.isVisible("#move-notice");
      report.linkAtMove = await page.textContent("#link-state");
      report.seatsAtMove = await viewerSeat();
      report.sectionAtMove = await page.getAttribute("body", "data-section");
      report.lastHandAtMove = await page.getAttribute("#last-hand", "data-hand-number");
    }
    if (movedHand > 0 && report.clicks.some((c) => c.hand > movedHand)) break;
    const myTurn = await page
      .waitForFunction(
        () => {
          const bar = document.querySelector("#actions");
          return bar?.dataset.myTurn === "true" && !bar.dataset.sending && bar.querySelector("button.action:enabled") !== null;
        },
        null,
        { timeout: 1000, polling: "raf" },
      )
      .then(() => true)
      .catch(() => false);
    if (Date.now() > deadline) throw new Error("the deadline passed before he played on after a move");
    if (!myTurn) continue;
    const hand = await page.$eval("#hand-info", (info) => Number(/#(\d+)/.exec(info.textContent ?? "")?.[1] ?? "0"));
    const kinds = await page.$$eval("#actions button.action:enabled", (buttons) => buttons.map((b) => b.dataset.kind));
    const kind = PREFERENCE.find((k) => kinds.includes(k)) ?? kinds[0];
    // The turn may have passed between the looks (a new snapshot redrew the bar): look again.
    if (kind === undefined) continue;
    const clicked = await page
      .locator(`#actions button.action[data-kind="${kind}"]:enabled`)
      .first()
      .click({ timeout: 5000 })
      .then(() => true)
      .catch(() => false);
    if (!clicked) continue;
    const engine = (await kept())?.engineUrl;
    report.clicks.push({ hand, kind, engine, at: (Date.now() - started) / 1000 });
    await page.waitForFunction(() => !document.querySelector("#actions")?.dataset.sending, null, { timeout: remaining() });
    const shown = (await page.textContent("#table-error")) ?? "";
    if (shown !== "") report.tableErrors.push({ hand, kind, text: shown });
    // Only the clicks of a played hand count: he played one at the first node before the move.
    if (movedHand === 0) console.log(JSON.stringify({ played: hand }));
  }
  report.after = await kept();
  report.link = await page.textContent("#link-state");
  report.seatsAfter = await viewerSeat();
  report.section = await page.getAttribute("body", "data-section");
  report.log = await page.$$eval("#log li", (items) => items.map((i) => i.textContent));
  const shot = process.env.STUD_SCREENSHOT ?? "web-table-moved.png";
  await page.screenshot({ path: join(process.env.STUD_ARTIFACTS ?? tmpdir(), shot) });
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
