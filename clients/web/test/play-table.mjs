/**
 * Plays the web table page like a person would, in headless Chromium (Debian's, driven by
 * playwright-core): sign in, open a quick game, click legal actions until a hand he acted in
 * has ended and its result is on the page, then leave the table. Screenshots, in ARTIFACTS:
 *
 *   web-table.png       the table when that hand has ended (its result, the shown hands)
 *   web-table-hand.png  the table at his last decision in it (his cards, the clock, buttons)
 *   web-table-phone.png the table at his first decision on a 390×844 phone (seat plates, cards
 *                       and bets measured for overlaps: report.phone)
 *   web-hand.png        the lobby's "My hands" page with that hand replayed and its fairness
 *                       checked in the browser (after the table closed and its seed was revealed)
 *   web-hand-phone.png  the same on a 390 px phone
 *   web-wallet.png      the wallet tab: balance and ledger entries
 *   web-lobby.png       the lobby before the quick game (players of his city waiting)
 *
 *   node test/play-table.mjs LOBBY_URL USERNAME PASSWORD ARTIFACTS [STAKE_LEVEL]
 *
 * Prints one JSON line with what it saw (for tests/clients/test_web_table.py to check) and
 * exits 0; on a failure it prints {"ok": false, "error": ...}, saves web-table.png anyway
 * and exits 1. STUD_CHROMIUM overrides /usr/bin/chromium; STUD_PLAY_DEADLINE (seconds, 60)
 * bounds the whole run.
 */

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { chromium } from "playwright-core";

import { feltOverlaps } from "./felt-overlaps.mjs";

const [lobbyUrl, username, password, artifacts, stakeLevel = "house-2-4"] = process.argv.slice(2);
if (!lobbyUrl || !username || !password || !artifacts) {
  console.error("usage: play-table.mjs LOBBY_URL USERNAME PASSWORD ARTIFACTS [STAKE_LEVEL]");
  process.exit(2);
}
const screenshot = join(artifacts, "web-table.png");
const handScreenshot = join(artifacts, "web-table-hand.png");
const phoneScreenshot = join(artifacts, "web-table-phone.png");
const replayScreenshot = join(artifacts, "web-hand.png");
const walletScreenshot = join(artifacts, "web-wallet.png");
const started = Date.now();
const deadline = started + 1000 * Number(process.env.STUD_PLAY_DEADLINE ?? "60");
const remaining = () => Math.max(1, deadline - Date.now());

/** What a passive player clicks first: see the hand through to the showdown. */
const PREFERENCE = ["CHECK", "CALL", "BRING_IN", "COMPLETE", "SHOW", "BET", "RAISE", "FOLD", "MUCK"];

const userDataDir = mkdtempSync(join(tmpdir(), "stud-chromium-"));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: process.env.STUD_CHROMIUM ?? "/usr/bin/chromium",
  headless: true,
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-quic",
    "--no-first-run",
    "--disable-component-update",
    "--disable-sync",
  ],
  viewport: { width: 1360, height: 900 },
});
const page = context.pages()[0] ?? (await context.newPage());
const problems = [];
page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
page.on("console", (message) => {
  if (message.type() === "error") problems.push(`console: ${message.text()}`);
});

/** The table view's state attributes (see render.ts: renderTable). */
const tableState = () =>
  page.$eval("#table-view", (view) => ({
    table: view.dataset.table ?? "",
    handNumber: Number(view.dataset.handNumber ?? "0"),
    inHand: view.dataset.inHand === "true",
    lastHand: Number(view.dataset.lastHand || "0"),
    viewerSeat: Number(view.dataset.viewerSeat ?? "0"),
  }));

/** What the felt shows now: the checks are made on the first decision he takes. */
const feltFacts = () =>
  page.evaluate(() => {
    const me = document.querySelector(".seat.me");
    const others = [...document.querySelectorAll(".seat:not(.me)")];
    return {
      myName: me?.querySelector(".name")?.textContent ?? "",
      myStack: me?.querySelector(".stack")?.textContent ?? "",
      myDownCards: [...(me?.querySelectorAll(".card.face.down") ?? [])].map((c) => c.dataset.card),
      myUpCards: [...(me?.querySelectorAll(".card.face:not(.down)") ?? [])].map((c) => c.dataset.card),
      myBacks: me?.querySelectorAll(".card.back").length ?? 0,
      others: others.map((seat) => ({
        name: seat.querySelector(".name")?.textContent ?? "",
        stack: seat.querySelector(".stack")?.textContent ?? "",
        upCards: [...seat.querySelectorAll(".card.face:not(.down)")].map((c) => c.dataset.card),
        downFaces: seat.querySelectorAll(".card.face.down").length,
        backs: seat.querySelectorAll(".card.back").length,
        folded: seat.classList.contains("folded"),
      })),
      pot: document.querySelector("#pot-total")?.textContent ?? "",
      handInfo: document.querySelector("#hand-info")?.textContent ?? "",
      turnClock: document.querySelector("#actions .clock .seconds")?.textContent ?? "",
      seatClock: document.querySelector(".seat.turn .clock") !== null,
      buttons: [...document.querySelectorAll("#actions button.action")].map((b) => b.textContent),
    };
  });

/** Overlaps on the felt (see felt-overlaps.mjs). */
const overlaps = () => page.evaluate(feltOverlaps);

const report = { ok: false, clicks: [], problems, seconds: {} };
/** Seconds since the start, by step: where the run spends its time. */
const mark = (step) => (report.seconds[step] = (Date.now() - started) / 1000);
mark("launched");
let code = 1;
try {
  await page.goto(`${lobbyUrl}/play`, { timeout: remaining() });
  await page.fill("#username", username);
  await page.fill("#password", password);
  await page.click("#sign-in-button");
  await page.waitForSelector("#lobby:not([hidden])", { timeout: remaining() });
  mark("signed_in");
  await page.waitForFunction(() => /\d/.test(document.querySelector("#wallet")?.textContent ?? ""), null, {
    timeout: remaining(),
  });
  report.walletBefore = await page.textContent("#wallet");
  report.who = await page.textContent("#who");
  // Players of his city waiting for a game (the demo bots hold waiting tickets).
  await page.waitForSelector(`#waiting li[data-stake-level="${stakeLevel}"]`, { timeout: remaining() });
  report.waiting = await page.$$eval("#waiting li", (items) =>
    Object.fromEntries(items.map((li) => [li.dataset.stakeLevel, Number(li.dataset.waiting)])),
  );
  report.waitingTitle = await page.textContent("#waiting-title");
  await page.screenshot({ path: join(artifacts, "web-lobby.png"), fullPage: true });
  await page.selectOption("#stake-level", stakeLevel);
  report.buyIn = await page.inputValue("#buy-in");
  await page.click("#quick-game-button");
  await page.waitForSelector("#table-view:not([hidden])", { timeout: remaining() });
  mark("at_table");

  // Play: click a legal action whenever it is his turn, until a hand he acted in has ended.
  const acted = new Set();
  for (;;) {
    await page.waitForFunction(
      (actedHands) => {
        const view = document.querySelector("#table-view");
        const bar = document.querySelector("#actions");
        const last = Number(view?.dataset.lastHand || "0");
        if (actedHands.some((hand) => last >= hand)) return true;
        return bar?.dataset.myTurn === "true" && !bar.dataset.sending && bar.querySelector("button.action:enabled") !== null;
      },
      [...acted],
      { timeout: remaining(), polling: "raf" },
    );
    const state = await tableState();
    if ([...acted].some((hand) => state.lastHand >= hand)) {
      report.handPlayed = Math.max(...[...acted].filter((hand) => state.lastHand >= hand));
      report.state = state;
      // The fairness box's nonce: the running hand's, or the last one's between hands.
      report.fairnessAtEnd = await page.evaluate(() => {
        const view = document.querySelector("#table-view");
        const box = document.querySelector("#fairness");
        return {
          handNumber: Number(view.dataset.handNumber ?? "0"),
          lastHand: Number(view.dataset.lastHand || "0"),
          handInProgress: box.dataset.handInProgress === "true",
          nonce: box.dataset.nonce ?? "",
          text: box.textContent,
        };
      });
      mark("hand_over");
      break;
    }
    if (report.firstDecision === undefined) {
      report.firstDecision = { hand: state.handNumber, ...(await feltFacts()) };
      report.firstDecision.pots = await page.$$eval("#pots .pot", (items) => items.map((p) => p.textContent));
      // The same moment on a phone: nothing on the felt may overlap.
      await page.setViewportSize({ width: 390, height: 844 });
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      report.phone = await overlaps();
      await page.screenshot({ path: phoneScreenshot, fullPage: false });
      await page.setViewportSize({ width: 1360, height: 900 });
      await page.waitForFunction(
        () => document.querySelector("#actions")?.dataset.myTurn === "true" || document.querySelector("#actions button.action:enabled") === null,
        null,
        { timeout: remaining() },
      );
      if (!(await page.$("#actions button.action:enabled"))) continue; // the clock took his turn meanwhile
    }
    await page.screenshot({ path: handScreenshot, fullPage: true });
    const kinds = await page.$$eval("#actions button.action:enabled", (buttons) => buttons.map((b) => b.dataset.kind));
    const kind = PREFERENCE.find((k) => kinds.includes(k)) ?? kinds[0];
    const button = page.locator(`#actions button.action[data-kind="${kind}"]:enabled`).first();
    const label = await button.textContent();
    await button.click();
    report.clicks.push({ hand: state.handNumber, kind, label });
    acted.add(state.handNumber);
  }

  report.result = await page.$eval("#last-hand", (box) => ({
    handNumber: Number(box.dataset.handNumber ?? "0"),
    title: box.querySelector("h3")?.textContent ?? "",
    winners: [...box.querySelectorAll(".winner")].map((w) => w.textContent),
    shown: [...box.querySelectorAll(".shown-hand")].map((s) => s.textContent),
  }));
  report.log = await page.$$eval("#log li", (items) => items.map((li) => li.textContent));
  report.atEnd = await feltFacts();
  await page.screenshot({ path: screenshot, fullPage: true });
  report.screenshots = [screenshot, handScreenshot];

  // Leave: paid out now between hands, or after the running hand (he folds or checks it out).
  await page.click("#leave");
  for (;;) {
    await page.waitForFunction(
      () =>
        !document.querySelector("#lobby")?.hidden ||
        (document.querySelector("#actions")?.dataset.myTurn === "true" &&
          !document.querySelector("#actions")?.dataset.sending &&
          document.querySelector("#actions button.action:enabled") !== null),
      null,
      { timeout: remaining(), polling: "raf" },
    );
    if (await page.isVisible("#lobby")) break;
    const kinds = await page.$$eval("#actions button.action:enabled", (buttons) => buttons.map((b) => b.dataset.kind));
    const kind = ["CHECK", "FOLD", "MUCK", "SHOW"].find((k) => kinds.includes(k)) ?? kinds[0];
    await page.locator(`#actions button.action[data-kind="${kind}"]:enabled`).first().click();
  }
  mark("left");
  report.notice = await page.textContent("#lobby-notice");
  // The lobby view is shown after GET /wallet answered (which settles his seat first).
  report.walletAfter = await page.textContent("#wallet");

  // The wallet: balance and ledger entries. The tab is clicked twice at once, as an impatient
  // player does: the ledger is listed once all the same.
  await page.evaluate(() => {
    const tab = document.querySelector("#tab-wallet");
    tab.click();
    tab.click();
  });
  await page.waitForSelector("#ledger[data-loaded]", { timeout: remaining() });
  await page.waitForTimeout(300); // time for a second answer to (wrongly) add its rows
  report.wallet = {
    balance: await page.textContent("#wallet-balance"),
    entries: await page.$$eval("#ledger tbody tr", (rows) =>
      rows.map((row) => ({
        kind: row.dataset.kind,
        amount: Number(row.dataset.amount),
        table: row.dataset.table ?? null,
        text: row.textContent,
      })),
    ),
  };
  await page.screenshot({ path: walletScreenshot, fullPage: true });
  mark("wallet");

  // My hands: the hand he played, replayed, its PHH, and its fairness checked here once the
  // table has closed (the bots leave when he has gone) and the dealer seed is revealed.
  const tableId = report.state.table.replace(/^tables\//, "");
  await page.evaluate(() => {
    const tab = document.querySelector("#tab-hands");
    tab.click();
    tab.click();
  });
  await page.waitForSelector("#hands[data-loaded]", { timeout: remaining() });
  await page.waitForTimeout(300);
  report.handsListed = await page.$$eval("#hands tbody tr", (rows) => rows.map((row) => row.dataset.handId));
  for (;;) {
    await page.waitForSelector(
      `#hands tr[data-table="${tableId}"][data-hand-number="${report.handPlayed}"]`,
      { timeout: remaining() },
    );
    await page.click(`#hands tr[data-table="${tableId}"][data-hand-number="${report.handPlayed}"]`);
    await page.waitForSelector("#hand-view[data-ready]", { timeout: remaining() });
    const result = await page.getAttribute("#hand-fairness", "data-result");
    if (result !== "pending") break;
    await page.waitForTimeout(500);
    await page.click("#hand-back");
  }
  mark("hand_open");
  report.hand = await page.evaluate(async () => {
    const link = document.querySelector("#phh-download");
    const phh = await (await fetch(link.href)).text();
    return {
      handId: document.querySelector("#hand-view").dataset.handId,
      title: document.querySelector("#hand-title").textContent,
      streets: [...document.querySelectorAll("#replay .street")].map((street) => ({
        name: street.dataset.street,
        deals: [...street.querySelectorAll(".deal")].map((deal) => ({
          seat: Number(deal.dataset.seat),
          faces: [...deal.querySelectorAll(".card.face")].map((c) => c.dataset.card),
          backs: deal.querySelectorAll(".card.back").length,
        })),
        actions: [...street.querySelectorAll(".street-actions li")].map((li) => li.textContent),
        pot: street.querySelector(".street-pot")?.dataset.pot ?? null,
      })),
      winners: [...document.querySelectorAll("#hand-result .winner")].map((w) => w.textContent),
      download: link.getAttribute("download"),
      phh,
      fairness: {
        result: document.querySelector("#hand-fairness").dataset.result,
        cardsChecked: Number(document.querySelector("#hand-fairness").dataset.cardsChecked ?? "0"),
        verdict: document.querySelector("#fairness-verdict")?.textContent ?? "",
        cards: [...document.querySelectorAll("#hand-fairness .check-card")].map((c) => ({ card: c.dataset.card, ok: c.dataset.ok })),
        text: document.querySelector("#hand-fairness").textContent,
      },
    };
  });
  // The PHH link downloads the file as a person would get it.
  const [download] = await Promise.all([page.waitForEvent("download", { timeout: remaining() }), page.click("#phh-download")]);
  report.hand.downloaded = {
    name: download.suggestedFilename(),
    text: readFileSync(await download.path(), "utf8"),
  };
  await page.click("#verify-table");
  await page.waitForSelector("#table-verdict[data-checked]", { timeout: remaining() });
  report.tableVerdict = await page.$eval("#table-verdict", (box) => ({
    good: Number(box.dataset.good),
    checked: Number(box.dataset.checked),
    text: box.textContent,
  }));
  await page.screenshot({ path: replayScreenshot, fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: join(artifacts, "web-hand-phone.png"), fullPage: true });
  await page.setViewportSize({ width: 1360, height: 900 });
  mark("verified");
  report.ok = problems.length === 0;
  code = report.ok ? 0 : 1;
} catch (error) {
  report.error = String(error?.stack ?? error);
  await page.screenshot({ path: screenshot, fullPage: true }).catch(() => undefined);
} finally {
  await context.close();
  rmSync(userDataDir, { recursive: true, force: true });
}
console.log(JSON.stringify(report));
process.exit(code);
