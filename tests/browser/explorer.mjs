// Drives the memory explorer (/explore) in Debian's headless Chromium for
// tests/api/test_explorer.py: reads the namespaces the picker suggests, picks the
// namespace, searches, opens a thought's page and walks its lineage graph by clicking a
// node, resolves a contradiction, reads topics, undoes a consolidation run's merge, reads
// the timeline and an assembled context, and takes a screenshot of each view. Every request to another origin is aborted and
// recorded. playwright-core never downloads a browser.
//
// stdin:  {"chromium", "pageUrl", "namespace", "apiKey", "screenshotDir", "timeoutMs",
//          "search": {"query", "k"}, "thought": {"id", "walkTo"}, "resolve": {"id", "resolution"},
//          "undo": {"mergedId"}, "timeline": {"since"}, "context": {"query", "budget"}}
// stdout: {"namespaces", "search", "thought", "walked", "contradictions", "topics", "runs",
//          "timeline", "context", "screenshots": {view: path}, "requests", "blocked", "failed",
//          "errors", "timings"}
// Exit status 0 when the steps ran (the caller judges the result), 1 with {"error", ...}
// on stdout when a step failed; a screenshot of the failure is saved either way.

import { join } from 'node:path';
import { drive, networkLog, openSameOriginPage, readConfig, stopwatch } from './harness.mjs';

const config = readConfig();
const timeout = config.timeoutMs ?? 60000;
const origin = new URL(config.pageUrl).origin;
const { timings, mark } = stopwatch();
const network = networkLog();
const screenshots = {};

// The view is ready when it rendered the page's current hash: right after a click the
// hash may already be new while the previous render of the same view still shows.
async function ready(page, view) {
  await page.waitForFunction((name) => {
    const root = document.getElementById('view');
    return root.dataset.ready === name && root.dataset.route === window.location.hash;
  }, view, { timeout });
}

async function shoot(page, name) {
  const path = join(config.screenshotDir, `explorer-${name}.png`);
  await page.screenshot({ path, fullPage: true });
  screenshots[name] = path;
}

async function nav(page, view) {
  await page.locator(`#nav a[data-view="${view}"]`).click();
  await ready(page, view);
}

async function readSearch(page) {
  const form = page.locator('main form.inline');
  await form.locator('input[name="q"]').fill(config.search.query);
  await form.locator('input[name="k"]').fill(String(config.search.k ?? 10));
  await form.locator('button[type="submit"]').click();
  await page.locator('main .hit').first().waitFor({ timeout });
  await ready(page, 'search');
  await page.locator('main .hit details.explain').first().evaluate((el) => { el.open = true; });
  return page.$$eval('main .hit', (cards) => cards.map((card) => ({
    id: card.dataset.id,
    content: card.querySelector('.content').textContent,
    score: card.querySelector('.score').textContent,
    superseded: card.classList.contains('superseded'),
    explain: Object.fromEntries([...card.querySelectorAll('[data-part]')].map((td) => [td.dataset.part, td.textContent])),
  })));
}

async function readThought(page) {
  return page.evaluate(() => {
    const cy = window.TGX.graph;
    return {
      id: document.querySelector('main .card.thought').dataset.id,
      content: document.getElementById('thought-content').textContent,
      lineage: [...document.querySelectorAll('main tr.lineage-node')].map((tr) => ({
        id: tr.dataset.id,
        depth: Number(tr.cells[0].textContent),
        type: tr.cells[1].textContent,
      })),
      nodes: cy.nodes().map((n) => ({ id: n.id(), kind: n.data('kind') })),
      edges: cy.edges().map((e) => ({ source: e.source().id(), target: e.target().id(), type: e.data('type') })),
      history: [...document.querySelectorAll('main table.history tr.event')].map((tr) => ({
        revision: Number(tr.cells[0].textContent),
        kind: tr.cells[1].textContent,
      })),
      usage: Object.fromEntries([...document.querySelectorAll('main dd[data-field]')].map((dd) => [dd.dataset.field, dd.textContent])),
    };
  });
}

// Clicks the node on the canvas where Cytoscape drew it.
async function clickNode(page, id) {
  const box = await page.locator('#lineage-graph').boundingBox();
  const at = await page.evaluate((nodeId) => window.TGX.graph.$id(nodeId).renderedPosition(), id);
  await page.mouse.click(box.x + at.x, box.y + at.y);
  await page.waitForFunction((nodeId) => window.location.hash === `#/thought/${encodeURIComponent(nodeId)}`, id, { timeout });
  await ready(page, 'thought');
}

const readCards = (page, selector) =>
  page.$$eval(selector, (cards) => cards.map((card) => ({
    id: card.dataset.id,
    status: card.dataset.status,
    sides: [...card.querySelectorAll('.side')].map((side) => side.dataset.id),
  })));

async function main(page) {
  await page.goto(config.pageUrl, { timeout });
  await ready(page, 'search');
  if (config.apiKey) {
    // Before its key is typed the page's namespaces query is refused (401), as it should.
    await page.locator('#namespaces[data-loaded="failed"]').waitFor({ state: 'attached', timeout });
    network.errors = network.errors.filter((text) => !text.includes('status of 401'));
    await page.locator('#settings-open').click();
    await page.locator('#api-key').fill(config.apiKey);
    await page.locator('#settings-save').click();
    await ready(page, 'search');
  }
  await page.locator('#namespaces[data-loaded="ok"]').waitFor({ state: 'attached', timeout });
  const namespaces = await page.locator('#namespaces option').evaluateAll((options) => options.map((o) => o.value));
  const namespace = page.locator('#namespace');
  await namespace.fill(config.namespace);
  await namespace.press('Tab'); // leaving the field changes the namespace
  await page.waitForFunction((ns) => window.localStorage.getItem('thoughtgraph.explorer.namespace') === ns, config.namespace, { timeout });
  await ready(page, 'search');
  mark('loaded');

  const search = await readSearch(page);
  await shoot(page, 'search');
  mark('search');

  await page.locator(`main .hit[data-id="${config.thought.id}"] a.thought-link`).click();
  await ready(page, 'thought');
  const thought = await readThought(page);
  await shoot(page, 'thought');
  await clickNode(page, config.thought.walkTo);
  const walked = await readThought(page);
  mark('thought');

  await nav(page, 'contradictions');
  const open = await readCards(page, 'main .contradiction');
  await shoot(page, 'contradictions');
  const card = page.locator(`main .contradiction[data-id="${config.resolve.id}"]`);
  const before = await page.locator('main#view').getAttribute('data-loaded');
  await card.locator(`button[data-resolution="${config.resolve.resolution}"]`).click();
  await page.waitForFunction((b) => document.getElementById('view').dataset.loaded !== b, before, { timeout });
  const afterResolve = await readCards(page, 'main .contradiction');
  mark('contradictions');

  await nav(page, 'topics');
  const topics = await page.$$eval('main .topic', (cards) => cards.map((card) => ({
    id: card.dataset.id,
    name: card.querySelector('h2').textContent,
    summary: card.querySelector('.summary').textContent,
    members: [...card.querySelectorAll('.members li')].map((li) => li.dataset.id),
  })));
  await shoot(page, 'topics');
  mark('topics');

  await nav(page, 'runs');
  const readRuns = () => page.$$eval('main .run', (cards) => cards.map((card) => ({
    id: card.dataset.id,
    status: card.dataset.status,
    counts: Object.fromEntries([...card.querySelectorAll('[data-count]')].map((td) => [td.dataset.count, Number(td.textContent)])),
    merges: [...card.querySelectorAll('.merge')].map((li) => ({ id: li.dataset.id, undone: !li.querySelector('button.undo') })),
  })));
  const runs = await readRuns();
  await shoot(page, 'runs');
  await page.locator(`main .merge[data-id="${config.undo.mergedId}"] button.undo`).click();
  await page.locator(`main .merge[data-id="${config.undo.mergedId}"] .badge`).waitFor({ timeout });
  const afterUndo = await readRuns();
  mark('runs');

  await nav(page, 'timeline');
  const since = page.locator('main form.inline input');
  await since.fill(String(config.timeline.since));
  await page.locator('main form.inline button').click();
  await page.waitForFunction((s) => window.location.hash === `#/timeline?since=${s}`, config.timeline.since, { timeout });
  await ready(page, 'timeline');
  const timeline = await page.$$eval('main table.timeline tr.event', (rows) => rows.map((tr) => ({
    revision: Number(tr.dataset.revision),
    kind: tr.dataset.kind,
  })));
  await shoot(page, 'timeline');
  mark('timeline');

  await nav(page, 'context');
  await page.locator('main form.inline input[type="text"]').fill(config.context.query);
  await page.locator('main form.inline input[type="number"]').fill(String(config.context.budget));
  await page.locator('main form.inline button').click();
  await page.locator('#context-text').waitFor({ timeout });
  await ready(page, 'context');
  const context = await page.evaluate(() => ({
    total: document.getElementById('context-total').textContent,
    text: document.getElementById('context-text').textContent,
    tiers: [...document.querySelectorAll('main tr.tier')].map((tr) => ({
      tier: Number(tr.dataset.tier),
      items: Number(tr.querySelector('[data-col="items"]').textContent),
      tokens: Number(tr.querySelector('[data-col="tokens"]').textContent),
    })),
    items: [...document.querySelectorAll('main .tier-items .item')].map((el) => el.dataset.key),
  }));
  await shoot(page, 'context');
  mark('context');

  return {
    namespaces,
    search,
    thought,
    walked,
    contradictions: { open, afterResolve },
    topics,
    runs: { before: runs, afterUndo },
    timeline,
    context,
  };
}

await drive({
  config,
  extraArgs: ['--disable-features=OptimizationHints,MediaRouter,Translate'],
  open: (browser) => openSameOriginPage(browser, origin, network),
  main,
  extra: () => ({ ...network, screenshots, timings }),
  failureScreenshot: { path: join(config.screenshotDir, 'explorer-failure.png'), fullPage: true },
});
