/**
 * The table page's felt on phones (and tablets and desktops), in headless Chromium: full
 * tables of 7, 8 and 9 seats on seventh street (test/layout-harness.ts draws them with
 * src/table/render.ts) at 390×844, 360×780 and the SIZES below, with every seat plate, card,
 * tag, bet chip and clock measured (felt-overlaps.mjs) — once with the turn at each seat in
 * turn, and once just after the showdown (every hand shown, every seat winning). Screenshots
 * web-phone-{seats}.png (390×844) and web-desktop-{seats}.png (1360×900) in ARTIFACTS, his own
 * turn on seventh street.
 *
 *   node test/phone-layout.mjs ARTIFACTS
 *
 * Prints one JSON line: {"ok": bool, "layouts": [{seats, width, height, overlaps, ...}]}: per
 * size and table, what his own turn drew (cards, bets), the overlaps of every drawing, how
 * many drawings showed a seat's clock (clocks), how many seats won between hands (wins), and
 * the seats whose plate moved from one drawing to another (moved; on the oval none may: the
 * turn going round or the hand ending does not shift the seats).
 */

import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import { build } from "esbuild";
import { chromium } from "playwright-core";

import { feltOverlaps } from "./felt-overlaps.mjs";

const [artifacts] = process.argv.slice(2);
/** Phones first (the point of this test), then a tablet, small laptops and desktops. */
const SIZES = [
  [390, 844],
  [360, 780],
  [768, 1024],
  [1024, 768],
  [1280, 800],
  [1360, 900],
  [1920, 1080],
];
if (!artifacts) {
  console.error("usage: phone-layout.mjs ARTIFACTS");
  process.exit(2);
}
const here = fileURLToPath(new URL(".", import.meta.url));
const source = join(here, "../src/table");
const work = mkdtempSync(join(tmpdir(), "stud-layout-"));
const report = { ok: false, layouts: [], problems: [] };
let code = 1;
let context;
try {
  await build({
    entryPoints: [join(here, "layout-harness.ts")],
    bundle: true,
    format: "esm",
    target: "es2022",
    outfile: join(work, "harness.js"),
    logLevel: "warning",
  });
  copyFileSync(join(source, "table.css"), join(work, "table.css"));
  const html = readFileSync(join(source, "index.html"), "utf8")
    .replace('href="/play/table.css"', 'href="table.css"')
    .replace('src="/play/table.js"', 'src="harness.js"');
  writeFileSync(join(work, "index.html"), html);

  context = await chromium.launchPersistentContext(join(work, "profile"), {
    executablePath: process.env.STUD_CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--allow-file-access-from-files"],
    viewport: { width: 390, height: 844 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.on("pageerror", (error) => report.problems.push(`page error: ${error.message}`));
  await page.goto(pathToFileURL(join(work, "index.html")).href);
  await page.waitForFunction(() => typeof window.drawTable === "function");
  /** Draw, let the layout settle, measure. */
  const measure = async (seats, draw) => {
    await page.evaluate(([n, d]) => window.drawTable(n, d), [seats, draw]);
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    return page.evaluate(feltOverlaps);
  };
  for (const [width, height] of SIZES) {
    await page.setViewportSize({ width, height });
    for (const seats of [7, 8, 9]) {
      // The turn goes round: a seat's clock must not move it into its neighbours.
      const overlaps = new Set();
      const plates = [];
      let clocks = 0;
      for (let turn = seats; turn >= 1; turn--) {
        const turnDrawn = await measure(seats, { turn });
        turnDrawn.overlaps.forEach((o) => overlaps.add(`turn at ${turn}: ${o}`));
        clocks += turnDrawn.clocks;
        plates.push(turnDrawn.plates);
      }
      const after = await measure(seats, { between: true });
      after.overlaps.forEach((o) => overlaps.add(`after the showdown: ${o}`));
      plates.push(after.plates);
      // Last drawn: his own turn, as the screenshots show it.
      const measured = await measure(seats, { turn: 1 });
      measured.overlaps.forEach((o) => overlaps.add(`his turn: ${o}`));
      // Seats whose plate was not where it was on his turn in some drawing.
      const moved = Object.keys(measured.plates).filter((seat) =>
        plates.some((drawn) => String(drawn[seat]) !== String(measured.plates[seat])),
      );
      const felt = await page.$eval("#felt", (f) => f.getBoundingClientRect().height);
      report.layouts.push({
        seats,
        width,
        height,
        feltHeight: Math.round(felt),
        ...measured,
        overlaps: [...overlaps],
        clocks,
        wins: after.wins,
        shownCards: after.cards,
        moved,
      });
      if (width === 390) {
        await page.screenshot({ path: join(artifacts, `web-phone-${seats}.png`), fullPage: true });
      } else if (width === 1360) {
        await page.screenshot({ path: join(artifacts, `web-desktop-${seats}.png`), fullPage: false });
      }
    }
  }
  report.ok = report.problems.length === 0 && report.layouts.every((l) => l.overlaps.length === 0);
  code = report.ok ? 0 : 1;
} catch (error) {
  report.error = String(error?.stack ?? error);
} finally {
  await context?.close();
  rmSync(work, { recursive: true, force: true });
}
console.log(JSON.stringify(report));
process.exit(code);
