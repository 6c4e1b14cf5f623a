// Drives Neo4j Browser in headless Chromium through the thoughtgraph lineage guide, for
// tests/api/test_neo4j_browser.py. Debian's chromium only: playwright-core never downloads a
// browser, and every request to a host other than the loopback is aborted.
//
// stdin:  {"chromium", "browserUrl", "boltUri", "user", "password", "guideUrl",
//          "params": {"namespace", "id"}, "screenshot", "timeoutMs"}
// stdout: {"graph": {"nodes", "relationships", "captions", "relationshipColors"},
//          "rows": [{"depth", "type", "preview", "id"}, ...], "overview": "...",
//          "screenshot": "...", "timings": {"step": ms since start, ...}}
// Exit status 0 when the steps ran (the caller judges the result), 1 with {"error", ...}
// on stdout when a step failed; a screenshot of the failure is saved either way.

import { drive, openLoopbackPage, readConfig, stopwatch } from './harness.mjs';

const config = readConfig();
const timeout = config.timeoutMs ?? 60000;
const { timings, mark } = stopwatch();

function browserAddress() {
  const url = new URL(config.browserUrl);
  url.searchParams.set('connectURL', config.boltUri);
  if (!config.password) url.searchParams.set('preselectAuthMethod', 'NO_AUTH');
  return url.toString();
}

// Connected when auth is off; otherwise Browser shows its connect form: log in.
async function connect(page) {
  const connected = page.getByText('Connected to Neo4j');
  const form = page.getByTestId('password');
  await connected.or(form).first().waitFor({ timeout });
  if (!(await connected.isVisible())) {
    await page.getByTestId('username').fill(config.user || 'neo4j');
    await form.fill(config.password);
    await page.getByTestId('connect').click();
    await connected.waitFor({ timeout });
  }
}

async function command(page, text) {
  await page.getByTestId('activeEditor').click();
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
}

// A runnable block of the guide runs when its play icon is clicked (clicking the block
// itself would only copy it into the editor). Browser opens each result in a new frame at
// the top of the stream.
async function runBlock(page, guide, selector) {
  const frames = page.getByTestId('frame');
  const before = await frames.count();
  await guide.locator(selector).locator('i.fa-play-circle-o').click();
  await page.waitForFunction(
    (n) => document.querySelectorAll('[data-testid="frame"]').length > n,
    before,
    { timeout },
  );
  return frames.first();
}

async function setParam(page, guide, name, value) {
  const input = guide.locator(`input[value-for="${name}"]`);
  if ((await input.count()) > 0) {
    // The guide copies what is typed into its :param block on keyup.
    await input.fill('');
    await input.pressSequentially(value);
  }
  const frame = await runBlock(page, guide, `pre[data-param="${name}"]`);
  await frame.getByText('Successfully set your parameters').waitFor({ timeout });
}

async function main(page) {
  await page.goto(browserAddress(), { timeout });
  await connect(page);
  mark('connected');

  await command(page, `:play ${config.guideUrl}`);
  const guide = page.getByTestId('carousel').first();
  await guide.locator('pre[data-param="id"]').waitFor({ timeout });
  mark('guide');

  for (const [name, value] of Object.entries(config.params)) {
    await setParam(page, guide, name, String(value));
  }
  mark('params');

  // The style for the namespace typed above (the guide copies it into the :style URL).
  const styled = await runBlock(page, guide, 'pre[data-style="style"]');
  await styled.locator('[data-testid="frameContents"]').waitFor({ timeout });
  if (await styled.getByText(/error/i).count()) {
    throw new Error(`:style failed: ${await styled.innerText()}`);
  }
  mark('style');

  // Browser renders only the current slide: turn them until the lineage query shows.
  const lineage = guide.locator('pre[data-query="lineage"]');
  for (let turns = 0; (await lineage.count()) === 0; turns += 1) {
    if (turns > 10) throw new Error('the guide has no lineage query');
    await guide.getByTestId('nextSlide').click();
  }
  const result = await runBlock(page, guide, 'pre[data-query="lineage"]');
  const error = result.getByTestId('cypherFrameErrorMessage');
  const svgNode = result.locator('svg g.node');
  await error.or(svgNode.first()).first().waitFor({ timeout });
  if (await error.count()) throw new Error(`the lineage query failed: ${await error.innerText()}`);
  // The layout settles; then fit the whole graph into view for the screenshot.
  await page.waitForTimeout(1500);
  const fit = result.getByLabel('zoom-to-fit');
  if (await fit.count()) await fit.click();
  await page.waitForTimeout(800);
  mark('graph');

  const graph = await result.evaluate((frame) => {
    const text = (el) => Array.from(el.querySelectorAll('text')).map((t) => t.textContent).join(' ');
    const nodes = Array.from(frame.querySelectorAll('svg g.node'));
    const relationships = Array.from(frame.querySelectorAll('svg g.relationship'));
    return {
      nodes: nodes.length,
      relationships: relationships.length,
      captions: nodes.map(text),
      relationshipCaptions: relationships.map(text),
      relationshipColors: relationships.map(
        (r) => r.querySelector('path.b-outline')?.getAttribute('fill') ?? null,
      ),
      nodeColors: nodes.map((n) => n.querySelector('circle.b-outline')?.getAttribute('fill') ?? null),
    };
  });
  const overview = await result.getByTestId('vizInspector').innerText().catch(() => '');
  await result.scrollIntoViewIfNeeded();
  await page.screenshot({ path: config.screenshot });
  mark('screenshot');

  // The table view, read back: one row per thought, its scalar columns parsed (the node
  // and edge columns are JSON with the embeddings and stay out of the report).
  await result.getByTestId('cypherFrameSidebarTable').click();
  const table = result.locator('table[role="table"]');
  await table.getByText(config.params.id).first().waitFor({ timeout });
  const rows = await table.evaluate((el, scalar) => {
    const columns = Array.from(el.querySelectorAll('thead th[role="columnheader"]')).map(
      (th) => th.textContent.trim(),
    );
    const parse = (text) => {
      try {
        return JSON.parse(text);
      } catch {
        return text;
      }
    };
    return Array.from(el.querySelectorAll('tbody tr')).map((tr) => {
      const cells = Array.from(tr.querySelectorAll('td[role="cell"]'));
      const row = {};
      columns.forEach((column, i) => {
        if (scalar.includes(column) && cells[i]) row[column] = parse(cells[i].textContent.trim());
      });
      return row;
    });
  }, ['depth', 'type', 'preview', 'id']);
  mark('table');
  return { graph, overview, rows, screenshot: config.screenshot, timings };
}

await drive({
  config,
  open: openLoopbackPage,
  main,
  extra: () => ({ timings }),
  failureScreenshot: { path: config.screenshot.replace(/\.png$/, '') + '-failure.png' },
});
