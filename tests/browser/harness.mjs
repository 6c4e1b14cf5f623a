// What the browser drivers (explorer.mjs, graphiql.mjs, lineage.mjs) share: reading the
// config from stdin, timing the steps, launching Debian's chromium through playwright-core
// (which never downloads a browser), keeping the page to the service under test, and
// writing the report (or the failure with its screenshot) to stdout.
//
// Exit status 0 when the steps ran (the caller judges the result), 1 with {"error", ...}
// on stdout when a step failed; a screenshot of the failure is saved either way.

import { readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';

// Playwright gives every launch a fresh temporary profile (it refuses --user-data-dir),
// so nothing stored from before (such as GraphiQL's tabs) is seen.
const LAUNCH_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const VIEWPORT = { width: 1400, height: 900 };
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** The driver's config: one JSON document on stdin. */
export function readConfig() {
  return JSON.parse(readFileSync(0, 'utf8'));
}

/** `timings` (step → ms since start) and `mark(step)`, which records one. */
export function stopwatch() {
  const started = Date.now();
  const timings = {};
  const mark = (step) => {
    timings[step] = Date.now() - started;
  };
  return { timings, mark };
}

/** What a same-origin page requested, had blocked and failed, and the errors it logged. */
export function networkLog() {
  return { requests: [], blocked: [], failed: [], errors: [] };
}

/** A page whose every request (also of its workers) to another origin than `origin` is
 * aborted and recorded in `network`, with the page's failed requests and errors. */
export async function openSameOriginPage(browser, origin, network) {
  const context = await browser.newContext({ viewport: VIEWPORT });
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (new URL(url).origin !== origin) {
      network.blocked.push(url);
      return route.abort('blockedbyclient');
    }
    network.requests.push(url);
    return route.continue();
  });
  const page = await context.newPage();
  page.on('requestfailed', (request) => network.failed.push(request.url()));
  page.on('pageerror', (error) => network.errors.push(String(error)));
  page.on('console', (message) => {
    if (message.type() === 'error') network.errors.push(message.text());
  });
  return page;
}

/** A page whose every HTTP request to a host other than the loopback is aborted. */
export async function openLoopbackPage(browser) {
  const page = await browser.newPage({ viewport: VIEWPORT });
  await page.route(
    (url) => url.protocol.startsWith('http') && !LOOPBACK.has(url.hostname),
    (route) => route.abort(),
  );
  return page;
}

/**
 * Launches `config.chromium` (with `extraArgs`), opens a page with `open(browser)`, runs
 * `main(page)` and writes its report with `extra()` to stdout, then exits. On a failure it
 * saves `failureScreenshot` (page.screenshot options) and writes the error, `extra()` and
 * the screenshot's path instead.
 */
export async function drive({ config, extraArgs = [], open, main, extra = () => ({}), failureScreenshot }) {
  const browser = await chromium.launch({ executablePath: config.chromium, args: [...LAUNCH_ARGS, ...extraArgs] });
  let exitCode = 0;
  try {
    const page = await open(browser);
    try {
      const report = await main(page);
      process.stdout.write(JSON.stringify({ ...report, ...extra() }));
    } catch (error) {
      exitCode = 1;
      const screenshot = failureScreenshot.path;
      await page.screenshot(failureScreenshot).catch(() => {});
      process.stdout.write(JSON.stringify({ error: String(error?.stack ?? error), ...extra(), screenshot }));
    }
  } finally {
    await browser.close();
  }
  process.exit(exitCode);
}
