/**
 * Tournaments on the web page, in headless Chromium (Debian's, driven by playwright-core).
 *
 *   node test/tournaments.mjs LOBBY_URL USERNAME PASSWORD ARTIFACTS
 *
 * The test (tests/clients/test_web_tournaments.py) made three tournaments through the lobby's
 * admin route: "Stockholm Only" (not his city), "Sunday Scheduled" (scheduled, later today)
 * and "Web Freezeout" (a sit & go of 3 the bots fill once he registers). The page:
 *
 *   listed        the Tournaments tab lists them (then filtered by kind, and by city)
 *   refused       Register at "Stockholm Only": the lobby's problem shown in words
 *   registered    Register at "Sunday Scheduled" (waits for the test's "go": it checked the
 *                 lobby), then Unregister → unregistered (waits again)
 *   at_table      Register at "Web Freezeout": the bots fill it, it starts, and his table opens
 *                 from his entry. The test answers with a seat at a tournament table of the
 *                 engine (made and seated as the director does: {table, tableId, engineUrl,
 *                 tournamentId}); the page opens it as after a reload, and the test pushes the
 *                 tournament's info, holds the next hand and watches the table as a railbird
 *   panel         the tournament panel shows what the test pushed (waits: the test moves him)
 *   moved         PlayerMoved: the page watches the destination table, seated there
 *
 * Each step is a JSON line {"step": NAME, ...} on stdout; the last line is the report
 * {"ok": ..., ...}; exit status 0 when ok. Screenshots web-tournaments.png (the list),
 * web-tournament.png (details), web-tournament-panel.png (the table with its panel).
 * STUD_CHROMIUM overrides /usr/bin/chromium; STUD_PLAY_DEADLINE (seconds, 120) bounds the run.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

import { chromium } from "playwright-core";

const [lobbyUrl, username, password, artifacts] = process.argv.slice(2);
if (!lobbyUrl || !username || !password || !artifacts) {
  console.error("usage: tournaments.mjs LOBBY_URL USERNAME PASSWORD ARTIFACTS");
  process.exit(2);
}
const deadline = Date.now() + 1000 * Number(process.env.STUD_PLAY_DEADLINE ?? "120");
const remaining = () => Math.max(1, deadline - Date.now());

const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
async function step(name, facts = {}, wait = false) {
  console.log(JSON.stringify({ step: name, ...facts }));
  if (!wait) return undefined;
  const answer = await lines.next();
  if (answer.done) throw new Error(`the test said nothing after ${name}`);
  if (answer.value.trim() === "go") return undefined;
  return JSON.parse(answer.value);
}

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

const rows = () =>
  page.$$eval("#tournaments tbody tr.tournament", (trs) =>
    trs.map((tr) => ({ name: tr.dataset.name, kind: tr.dataset.kind, city: tr.dataset.city, status: tr.dataset.status })),
  );

/** Wait until the list matches `check` (a function of the rows, run in the page). */
const listIs = (check) =>
  page.waitForFunction(
    (source) => {
      const table = document.querySelector("#tournaments");
      const rows = [...document.querySelectorAll("#tournaments tbody tr.tournament")].map((tr) => ({ ...tr.dataset }));
      return table?.dataset.loaded !== undefined && new Function("rows", `return (${source})(rows)`)(rows);
    },
    check.toString(),
    { timeout: remaining() },
  );

async function openTournament(name) {
  if (await page.isVisible("#tournament-back")) {
    await page.click("#tournament-back");
  }
  await page.waitForSelector(`#tournaments tbody tr[data-name="${name}"] button`, { timeout: remaining() });
  await page.click(`#tournaments tbody tr[data-name="${name}"] button`);
  await page.waitForFunction(
    (title) => document.querySelector("#tournament-title")?.textContent === title && document.querySelector("#tournament-entry")?.dataset.entry !== undefined,
    name,
    { timeout: remaining() },
  );
}

const entryIs = (status) =>
  page.waitForFunction((s) => document.querySelector("#tournament-entry")?.dataset.entry === s, status, { timeout: remaining() });

const panel = () =>
  page.$eval("#tournament-panel", (box) => {
    const text = (id) => document.getElementById(id)?.textContent ?? "";
    return {
      visible: !box.hidden,
      level: text("tp-level"),
      stakes: text("tp-stakes"),
      next: text("tp-next"),
      nextStakes: text("tp-next-stakes"),
      players: text("tp-players"),
      average: text("tp-average"),
      pool: text("tp-pool"),
      watchers: text("tp-watchers"),
      hold: document.getElementById("tp-hold")?.hidden === false ? text("tp-hold") : "",
    };
  });

const report = { ok: false, problems };
let code = 1;
try {
  await page.goto(`${lobbyUrl}/play`, { timeout: remaining() });
  await page.fill("#username", username);
  await page.fill("#password", password);
  await page.click("#sign-in-button");
  await page.waitForSelector("#lobby:not([hidden])", { timeout: remaining() });
  await page.click("#tab-tournaments");
  await listIs((rows) => ["Stockholm Only", "Sunday Scheduled", "Web Freezeout"].every((n) => rows.some((r) => r.name === n)));
  report.listed = await rows();
  await page.screenshot({ path: join(artifacts, "web-tournaments.png"), fullPage: true });
  await step("listed", { rows: report.listed });

  // Filters: scheduled only, then Stockholm's only.
  await page.selectOption("#tournament-kind", "scheduled");
  await listIs((rows) => rows.length > 0 && rows.every((r) => r.kind === "scheduled"));
  report.scheduled = await rows();
  await page.selectOption("#tournament-kind", "");
  await page.waitForSelector('#tournament-city option[value="stockholm"]', { state: "attached", timeout: remaining() });
  await page.selectOption("#tournament-city", "stockholm");
  await listIs((rows) => rows.length > 0 && rows.every((r) => r.city === "stockholm"));
  report.stockholm = await rows();
  await page.selectOption("#tournament-city", "");
  await listIs((rows) => rows.some((r) => r.name === "Web Freezeout"));
  await step("filtered", { scheduled: report.scheduled, stockholm: report.stockholm });

  // Not his city: the lobby's refusal in words, nothing registered.
  await openTournament("Stockholm Only");
  await page.click("#tournament-register");
  await page.waitForFunction(() => (document.querySelector("#tournament-error")?.textContent ?? "") !== "", null, { timeout: remaining() });
  report.refused = { error: await page.textContent("#tournament-error"), entry: await page.getAttribute("#tournament-entry", "data-entry") };
  await step("refused", report.refused);

  // Register, then unregister: the test checks the wallet and the entry after each.
  await openTournament("Sunday Scheduled");
  await page.click("#tournament-register");
  await entryIs("registered");
  await page.waitForSelector("#tournament-unregister:not([hidden])", { timeout: remaining() });
  report.registered = {
    status: await page.textContent("#tournament-entry-status"),
    standings: await page.$$eval("#tournament-standings tbody tr", (trs) => trs.map((tr) => tr.dataset.username)),
    wallet: await page.textContent("#wallet"),
  };
  await page.screenshot({ path: join(artifacts, "web-tournament.png"), fullPage: true });
  await step("registered", report.registered, true);
  await page.click("#tournament-unregister");
  await entryIs("unregistered");
  await page.waitForSelector("#tournament-register:not([hidden])", { timeout: remaining() });
  report.unregistered = { status: await page.textContent("#tournament-entry-status"), wallet: await page.textContent("#wallet") };
  await step("unregistered", report.unregistered, true);

  // The sit & go: he registers, the bots fill it, his table opens by itself.
  await openTournament("Web Freezeout");
  await page.click("#tournament-register");
  await page.waitForFunction(
    () => {
      const view = document.querySelector("#table-view");
      return view !== null && !view.hidden && (view.dataset.tournament ?? "") !== "" && Number(view.dataset.viewerSeat ?? "0") > 0;
    },
    null,
    { timeout: remaining() },
  );
  report.atTable = await page.$eval("#table-view", (view) => ({
    table: view.dataset.table,
    tournament: view.dataset.tournament,
    viewerSeat: Number(view.dataset.viewerSeat),
    leave: document.getElementById("leave")?.textContent,
    topUpHidden: document.getElementById("top-up")?.hidden,
    opponentsHidden: document.getElementById("opponents")?.hidden,
    panel: !document.getElementById("tournament-panel")?.hidden,
  }));
  const seat = await step("at_table", report.atTable, true);

  // The test seated him at a tournament table of the engine, as the director does: the page
  // finds it where a reload finds his table (sessionStorage), and opens it.
  await page.evaluate((kept) => sessionStorage.setItem("stud.table", JSON.stringify(kept)), seat);
  await page.reload({ timeout: remaining() });
  await page.waitForFunction(
    (table) => {
      const view = document.querySelector("#table-view");
      return view !== null && !view.hidden && view.dataset.table === table && Number(view.dataset.viewerSeat ?? "0") > 0;
    },
    seat.table,
    { timeout: remaining() },
  );
  report.reloaded = await page.$eval("#table-view", (view) => ({ table: view.dataset.table, tournament: view.dataset.tournament }));

  // The test pushed the tournament's info, held the next hand and watches as a railbird.
  await page.waitForFunction(
    () => {
      const box = document.querySelector("#tournament-panel");
      return (
        box !== null && !box.hidden && box.dataset.watchers === "1" && box.dataset.handHeld === "true" &&
        document.getElementById("tp-players")?.textContent === "3 of 3"
      );
    },
    null,
    { timeout: remaining() },
  );
  report.panel = await panel();
  await page.screenshot({ path: join(artifacts, "web-tournament-panel.png"), fullPage: true });
  await step("panel", report.panel, true);

  // Moved: the page follows him to the destination the stream names.
  await page.waitForFunction(
    (from) => {
      const view = document.querySelector("#table-view");
      return view !== null && view.dataset.table !== from && Number(view.dataset.viewerSeat ?? "0") > 0;
    },
    seat.table,
    { timeout: remaining() },
  );
  report.moved = await page.$eval("#table-view", (view) => ({
    table: view.dataset.table,
    viewerSeat: Number(view.dataset.viewerSeat),
    tournament: view.dataset.tournament,
    log: [...document.querySelectorAll("#log li")].map((li) => li.textContent),
    stored: JSON.parse(sessionStorage.getItem("stud.table") ?? "{}"),
  }));
  await step("moved", report.moved);
  report.ok = problems.length === 0;
  code = report.ok ? 0 : 1;
} catch (error) {
  report.error = String(error?.stack ?? error);
  await page.screenshot({ path: join(artifacts, "web-tournaments-failed.png"), fullPage: true }).catch(() => undefined);
} finally {
  console.log(JSON.stringify(report));
  await context.close().catch(() => undefined);
  rmSync(userDataDir, { recursive: true, force: true });
  process.exit(code);
}
