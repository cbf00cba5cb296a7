/**
 * A player alone at his quick table, in headless Chromium (Debian's, driven by playwright-core):
 * what the page says while nobody joins, and his two choices.
 *
 *   node test/lonely-table.mjs LOBBY_URL USERNAME PASSWORD ARTIFACTS MODE [STAKE_LEVEL]
 *
 * MODE "keep-waiting": quick game, the waiting panel (bots available, as many as the test's
 *   desk can send), "Play with bots"; the desk then says it can send none, and the panel stops
 *   saying bots are coming; then "Keep waiting" (the request is taken back), then leave.
 *   Screenshots web-lonely-waiting.png, web-lonely-phone.png (the panel on a 390x844 phone),
 *   web-lonely-kept.png.
 * MODE "bots": quick game, the waiting panel, "Play with bots"; the bots sit in and the hand
 *   starts; he plays until a hand he acted in has ended; the seed pair is rotated (by the
 *   test) and the notice of his past hands made public shows; he reads it, reloads (it stays
 *   read) and leaves. Screenshots web-lonely-bots.png, web-seed-notice.png.
 *
 * The test talks with the script over its pipes: at each step it prints a JSON line
 * {"step": NAME, ...}; at "requested", "short", "kept_waiting" and "hand_over" it waits for a
 * line on its stdin (the test has checked the lobby, changed its desk, or rotated the seed)
 * before it goes on. The last
 * line is the report {"ok": ..., ...}; exit status 0 when ok. STUD_CHROMIUM overrides
 * /usr/bin/chromium; STUD_PLAY_DEADLINE (seconds, 90) bounds the whole run.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

import { chromium } from "playwright-core";

const [lobbyUrl, username, password, artifacts, mode, stakeLevel = "house-2-4"] = process.argv.slice(2);
if (!lobbyUrl || !username || !password || !artifacts || !["keep-waiting", "bots"].includes(mode)) {
  console.error("usage: lonely-table.mjs LOBBY_URL USERNAME PASSWORD ARTIFACTS keep-waiting|bots [STAKE_LEVEL]");
  process.exit(2);
}
const deadline = Date.now() + 1000 * Number(process.env.STUD_PLAY_DEADLINE ?? "90");
const remaining = () => Math.max(1, deadline - Date.now());

/** The test's answers, one line each. */
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
async function step(name, facts = {}, wait = false) {
  console.log(JSON.stringify({ step: name, ...facts }));
  if (!wait) return;
  const answer = await lines.next();
  if (answer.done || answer.value.trim() !== "go") throw new Error(`the test said ${JSON.stringify(answer.value)} after ${name}`);
}

const PASSIVE = ["CHECK", "CALL", "BRING_IN", "COMPLETE", "SHOW", "BET", "RAISE", "FOLD", "MUCK"];

const userDataDir = mkdtempSync(join(tmpdir(), "stud-chromium-"));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: process.env.STUD_CHROMIUM ?? "/usr/bin/chromium",
  headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-quic", "--no-first-run", "--disable-component-update", "--disable-sync"],
  viewport: { width: 1360, height: 900 },
});
const page = context.pages()[0] ?? (await context.newPage());
const problems = [];
page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
page.on("console", (message) => {
  // A refused request shows in the console as a failed load; the page says it in words itself.
  if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) problems.push(`console: ${message.text()}`);
});

/** What the waiting panel says and offers now. */
const panel = () =>
  page.$eval("#opponents", (box) => {
    const shown = (id) => {
      const element = document.getElementById(id);
      return element !== null && !element.hidden && element.offsetParent !== null;
    };
    return {
      visible: !box.hidden,
      state: box.dataset.state ?? "",
      bots: box.dataset.bots ?? "",
      players: Number(box.dataset.players ?? "0"),
      waiting: Number(box.dataset.waiting ?? "-1"),
      fillTo: box.dataset.fillTo ?? null,
      canFillTo: box.dataset.canFillTo ?? null,
      title: document.getElementById("opponents-title")?.textContent ?? "",
      waitingText: document.getElementById("opponents-waiting")?.textContent ?? "",
      botsText: document.getElementById("opponents-bots")?.textContent ?? "",
      error: document.getElementById("opponents-error")?.textContent ?? "",
      playWithBots: shown("play-with-bots"),
      keepWaiting: shown("keep-waiting"),
      keepWaitingLabel: document.getElementById("keep-waiting")?.textContent ?? "",
      choices: [...document.querySelectorAll("#bots-players option")].map((o) => Number(o.value)),
    };
  });

const panelIs = (state, bots) =>
  page.waitForFunction(
    ([s, b]) => {
      const box = document.querySelector("#opponents");
      return box !== null && !box.hidden && box.dataset.state === s && box.dataset.bots === b && box.dataset.cityNamed === "true";
    },
    [state, bots],
    { timeout: remaining() },
  );

/** Click a passive legal action if it is his turn; true if he did. */
async function actIfMyTurn() {
  const kinds = await page.$$eval("#actions[data-my-turn='true']:not([data-sending]) button.action:enabled", (buttons) => buttons.map((b) => b.dataset.kind));
  if (kinds.length === 0) return false;
  const kind = PASSIVE.find((k) => kinds.includes(k)) ?? kinds[0];
  await page.locator(`#actions button.action[data-kind="${kind}"]:enabled`).first().click().catch(() => undefined);
  return true;
}

const report = { ok: false, mode, problems, steps: [] };
let code = 1;
try {
  await page.goto(`${lobbyUrl}/play`, { timeout: remaining() });
  await page.fill("#username", username);
  await page.fill("#password", password);
  await page.click("#sign-in-button");
  await page.waitForSelector("#lobby:not([hidden])", { timeout: remaining() });
  await page.waitForSelector(`#stake-level option[value="${stakeLevel}"]`, { state: "attached", timeout: remaining() });
  await page.selectOption("#stake-level", stakeLevel);
  await page.click("#quick-game-button");
  await page.waitForSelector("#table-view:not([hidden])", { timeout: remaining() });
  await panelIs("waiting", "available");
  report.table = await page.evaluate(() => JSON.parse(sessionStorage.getItem("stud.table") ?? "{}").tableId ?? "");
  report.waiting = await panel();
  report.felt = await page.$eval("#table-view", (view) => ({ handNumber: Number(view.dataset.handNumber ?? "0") }));
  await page.screenshot({ path: join(artifacts, mode === "bots" ? "web-lonely-bots.png" : "web-lonely-waiting.png"), fullPage: true });
  if (mode === "keep-waiting") {
    // The same panel on a 390x844 phone: nothing sticks out sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    report.phone = await page.evaluate(() => {
      const box = document.querySelector("#opponents").getBoundingClientRect();
      const buttons = [...document.querySelectorAll("#opponents button:not([hidden]), #opponents select")].map((b) => b.getBoundingClientRect());
      return {
        scrollWidth: document.documentElement.scrollWidth,
        panelRight: box.right,
        controlsInside: buttons.every((b) => b.left >= box.left && b.right <= box.right),
      };
    });
    await page.screenshot({ path: join(artifacts, "web-lonely-phone.png"), fullPage: false });
    await page.setViewportSize({ width: 1360, height: 900 });
  }

  if (mode === "keep-waiting") {
    await page.click("#play-with-bots");
    await panelIs("waiting", "requested");
    report.requested = await panel();
    await step("requested", { table: report.table }, true);
    // The test's desk says it can send no bot now: the panel no longer says they are coming.
    await page.waitForFunction(() => document.getElementById("opponents-bots")?.textContent?.startsWith("No bots can come") === true, null, {
      timeout: remaining(),
    });
    report.short = await panel();
    await step("short", { table: report.table }, true);
    await page.click("#keep-waiting");
    await panelIs("waiting", "available");
    report.kept = await panel();
    await page.screenshot({ path: join(artifacts, "web-lonely-kept.png"), fullPage: true });
    await step("kept_waiting", { table: report.table }, true);
    // Still waiting a poll later: nobody came.
    await page.waitForTimeout(2500);
    report.later = await panel();
  } else {
    await page.selectOption("#bots-players", "3");
    await page.click("#play-with-bots");
    // The bots may sit in before the page shows "requested": either is fine.
    await page.waitForFunction(() => {
      const box = document.querySelector("#opponents");
      return box?.dataset.bots === "requested" || box?.dataset.state === "playing";
    }, null, { timeout: remaining() });
    report.requested = await panel();
    await page.waitForFunction(() => Number(document.querySelector("#table-view")?.dataset.handNumber ?? "0") >= 1, null, { timeout: remaining(), polling: "raf" });
    await page.waitForSelector("#opponents[hidden]", { state: "attached", timeout: remaining() });
    // Both bots asked for sit in (the table fills to 3 players).
    await page.waitForFunction(() => document.querySelectorAll(".seat .name").length >= 3, null, { timeout: remaining() });
    report.started = {
      ...(await panel()),
      seats: await page.$$eval(".seat .name", (names) => names.map((n) => n.textContent)),
    };
    await step("started", { table: report.table });

    // Play until a hand he acted in has ended.
    const acted = new Set();
    for (;;) {
      await page.waitForFunction(
        (hands) => {
          const last = Number(document.querySelector("#table-view")?.dataset.lastHand || "0");
          if (hands.some((hand) => last >= hand)) return true;
          const bar = document.querySelector("#actions");
          return bar?.dataset.myTurn === "true" && !bar.dataset.sending && bar.querySelector("button.action:enabled") !== null;
        },
        [...acted],
        { timeout: remaining(), polling: "raf" },
      );
      const last = Number((await page.getAttribute("#table-view", "data-last-hand")) || "0");
      if ([...acted].some((hand) => last >= hand)) {
        report.handPlayed = Math.max(...[...acted].filter((hand) => last >= hand));
        break;
      }
      const hand = Number(await page.getAttribute("#table-view", "data-hand-number"));
      if (await actIfMyTurn()) acted.add(hand);
    }
    report.noticeBefore = await page.isVisible("#seed-notice");
    await step("hand_over", { table: report.table, hand: report.handPlayed }, true);

    // The test rotated the seed between hands: the notice comes (he plays his turns meanwhile).
    for (;;) {
      await page.waitForFunction(
        () => {
          const notice = document.querySelector("#seed-notice");
          const bar = document.querySelector("#actions");
          return (notice !== null && !notice.hidden) || (bar?.dataset.myTurn === "true" && !bar.dataset.sending && bar.querySelector("button.action:enabled") !== null);
        },
        null,
        { timeout: remaining(), polling: "raf" },
      );
      if (await page.isVisible("#seed-notice")) break;
      await actIfMyTurn();
    }
    report.notice = await page.$eval("#seed-notice", (box) => ({
      hands: box.dataset.hands ?? "",
      commitments: box.dataset.commitments ?? "",
      title: box.querySelector("h3")?.textContent ?? "",
      items: [...box.querySelectorAll("#seed-notice-list li")].map((li) => ({ text: li.textContent, hands: li.dataset.hands, yourHands: li.dataset.yourHands })),
      button: document.querySelector("#seed-notice-read")?.textContent ?? "",
    }));
    // The fairness box follows the new seed pair, with the nonce it has reached.
    report.fairness = await page.$eval("#fairness", (box) => ({ ...box.dataset, text: box.textContent }));
    report.log = await page.$$eval("#log li", (items) => items.map((li) => li.textContent));
    await page.screenshot({ path: join(artifacts, "web-seed-notice.png"), fullPage: true });
    await page.click("#seed-notice-read");
    await page.waitForSelector("#seed-notice", { state: "hidden", timeout: remaining() });
    // Read is read: back at the table after a reload, the notice does not come again.
    await page.reload({ timeout: remaining() });
    await page.waitForSelector("#table-view:not([hidden])", { timeout: remaining() });
    await page.waitForFunction(() => Number(document.querySelector("#table-view")?.dataset.handNumber ?? "0") >= 1, null, { timeout: remaining() });
    await page.waitForTimeout(2500);
    report.noticeAfterReload = await page.isVisible("#seed-notice");
  }

  // Leave: paid out between hands, or after the running hand (he checks or folds it out).
  await page.click("#leave");
  for (;;) {
    await page.waitForFunction(
      () =>
        !document.querySelector("#lobby")?.hidden ||
        (document.querySelector("#actions")?.dataset.myTurn === "true" && !document.querySelector("#actions")?.dataset.sending && document.querySelector("#actions button.action:enabled") !== null),
      null,
      { timeout: remaining(), polling: "raf" },
    );
    if (await page.isVisible("#lobby")) break;
    const kinds = await page.$$eval("#actions button.action:enabled", (buttons) => buttons.map((b) => b.dataset.kind));
    const kind = ["CHECK", "FOLD", "MUCK", "SHOW"].find((k) => kinds.includes(k)) ?? kinds[0];
    await page.locator(`#actions button.action[data-kind="${kind}"]:enabled`).first().click().catch(() => undefined);
  }
  report.left = true;
  report.panelAfterLeaving = await page.isVisible("#opponents");
  report.ok = problems.length === 0;
  code = report.ok ? 0 : 1;
} catch (error) {
  report.error = String(error?.stack ?? error);
  await page.screenshot({ path: join(artifacts, `web-lonely-${mode}-failed.png`), fullPage: true }).catch(() => undefined);
} finally {
  await context.close();
  rmSync(userDataDir, { recursive: true, force: true });
}
console.log(JSON.stringify(report));
process.exit(code);
