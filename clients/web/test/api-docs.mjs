/**
 * Opens the lobby's API reference pages (ReDoc at /schema, /schema/redoc) in headless Chromium
 * (Debian's, driven by playwright-core) with the network cut off: every request whose host is
 * not 127.0.0.1 or localhost is aborted and recorded, so a page that needs a CDN, a web font
 * or a remote favicon shows it here. Waits for ReDoc to render the operations, then reports.
 *
 *   node test/api-docs.mjs SCREENSHOT URL [URL ...]
 *
 * Prints one JSON line and exits 0 when it could look at every page (whether they are right is
 * for tests/lobby_api/test_api_docs.py to judge):
 *   {"ok": true, "pages": [{"url", "title", "text", "rendered"}], "requests": [URL, ...],
 *    "blocked": [URL, ...], "problems": [...]}
 * "text" is the page's visible text; "requests" every URL the browser asked for (network
 * schemes), "blocked" those it was refused. SCREENSHOT (a PNG) shows the first page. On a
 * failure it prints {"ok": false, "error": ...} and exits 1. STUD_CHROMIUM overrides
 * /usr/bin/chromium.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { chromium } from "playwright-core";

const [screenshot, ...urls] = process.argv.slice(2);
if (!screenshot || urls.length === 0) {
  console.error("usage: api-docs.mjs SCREENSHOT URL [URL ...]");
  process.exit(2);
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);
// data: and blob: URLs (ReDoc's search worker, the empty favicon) never leave the browser.
const LOCAL_SCHEMES = new Set(["data:", "blob:", "about:"]);

const isLoopback = (url) => {
  const parsed = new URL(url);
  return LOCAL_SCHEMES.has(parsed.protocol) || LOOPBACK.has(parsed.hostname);
};

const userDataDir = mkdtempSync(join(tmpdir(), "stud-chromium-"));
const requests = [];
const blocked = [];
const problems = [];
let context;
try {
  context = await chromium.launchPersistentContext(userDataDir, {
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
  // The whole context, so that workers and every page's requests pass through it too.
  await context.route("**/*", async (route) => {
    const url = route.request().url();
    if (isLoopback(url)) {
      await route.continue();
    } else {
      blocked.push(url);
      await route.abort("blockedbyclient");
    }
  });
  context.on("request", (request) => {
    if (!LOCAL_SCHEMES.has(new URL(request.url()).protocol)) requests.push(request.url());
  });
  const pages = [];
  for (const [index, url] of urls.entries()) {
    const page = await context.newPage();
    page.on("pageerror", (error) => problems.push(`${url}: page error: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`${url}: console: ${message.text()}`);
    });
    await page.goto(url, { waitUntil: "load", timeout: 30_000 });
    // ReDoc puts each operation under .api-content once it has parsed the document; a page
    // whose script never arrived keeps only the empty container.
    let rendered = true;
    try {
      await page.waitForSelector(".api-content [id^='operation/'], .api-content h2", {
        timeout: 30_000,
      });
      await page.waitForLoadState("networkidle", { timeout: 15_000 });
    } catch {
      rendered = false;
    }
    if (index === 0) await page.screenshot({ path: screenshot });
    pages.push({
      url,
      title: await page.title(),
      text: await page.evaluate(() => document.body.innerText),
      rendered,
    });
    await page.close();
  }
  console.log(JSON.stringify({ ok: true, pages, requests, blocked, problems }));
} catch (error) {
  console.log(JSON.stringify({ ok: false, error: String(error?.stack ?? error), requests, blocked }));
  process.exitCode = 1;
} finally {
  await context?.close();
  rmSync(userDataDir, { recursive: true, force: true });
}
