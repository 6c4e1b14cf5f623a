// Drives the service's GraphiQL page in headless Chromium for tests/api/test_graphiql.py:
// opens the page with every request to another origin aborted (and recorded), reads the
// example tabs, opens the explorer plugin, puts an operation into a new tab's editor, runs
// it with the execute button and reads the result pane. Debian's chromium only:
// playwright-core never downloads a browser.
//
// stdin:  {"chromium", "pageUrl", "query", "screenshot", "timeoutMs"}
// stdout: {"tabs": [title, ...], "explorer": "...", "editor": "...", "result": {...},
//          "resultText": "...", "requests": [url, ...], "blocked": [url, ...],
//          "failed": [url, ...], "errors": [message, ...], "screenshot", "timings"}
// Exit status 0 when the steps ran (the caller judges the result), 1 with {"error", ...}
// on stdout when a step failed; a screenshot of the failure is saved either way.

import { drive, networkLog, openSameOriginPage, readConfig, stopwatch } from './harness.mjs';

const config = readConfig();
const timeout = config.timeoutMs ?? 60000;
const origin = new URL(config.pageUrl).origin;
const { timings, mark } = stopwatch();
const network = networkLog();

// The CodeMirror 5 instance behind an editor of GraphiQL 3.
const editorValue = (page, selector) =>
  page.evaluate((sel) => document.querySelector(`${sel} .CodeMirror`).CodeMirror.getValue(), selector);

async function main(page) {
  await page.goto(config.pageUrl, { timeout });
  const queryEditor = page.locator('.graphiql-query-editor .CodeMirror');
  await queryEditor.waitFor({ timeout });
  mark('loaded');

  const tabs = await page.locator('.graphiql-tab .graphiql-tab-button').allInnerTexts();

  // The explorer plugin, from the sidebar: it shows the first tab's operation (the
  // contribute mutation) among the root fields. Closed again for the screenshot.
  const explorerButton = page.locator('.graphiql-sidebar button[aria-label="Show GraphiQL Explorer"]');
  await explorerButton.click();
  const explorerRoot = page.locator('.graphiql-explorer-root');
  await explorerRoot.getByText('contribute', { exact: true }).first().waitFor({ timeout });
  const explorer = await explorerRoot.innerText();
  await page.locator('.graphiql-sidebar button[aria-label="Hide GraphiQL Explorer"]').click();
  await explorerRoot.waitFor({ state: 'detached', timeout });
  mark('explorer');

  // A new tab; the operation goes in as typed text (insertText: no key-by-key auto-closing
  // of brackets), replacing the tab's default content.
  await page.locator('.graphiql-tab-add').click();
  await queryEditor.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(config.query);
  const editor = await editorValue(page, '.graphiql-query-editor');
  // GraphiQL reads the operation's name from the editor after a debounce; executing
  // before it has would send the previous tab's operation name. Its tab shows the name.
  const named = /^\s*(?:query|mutation|subscription)\s+(\w+)/.exec(config.query);
  if (named) {
    await page.locator('.graphiql-tab', { hasText: named[1] }).first().waitFor({ timeout });
  }
  mark('typed');

  await page.locator('button.graphiql-execute-button').click();
  await page.waitForFunction(
    () => {
      const cm = document.querySelector('.graphiql-response .CodeMirror');
      return cm && cm.CodeMirror.getValue().trim().length > 0;
    },
    null,
    { timeout },
  );
  const resultText = await editorValue(page, '.graphiql-response');
  mark('ran');

  await page.screenshot({ path: config.screenshot });
  mark('screenshot');
  return { tabs, explorer, editor, result: JSON.parse(resultText), resultText };
}

await drive({
  config,
  extraArgs: ['--disable-features=OptimizationHints,MediaRouter,Translate'],
  open: (browser) => openSameOriginPage(browser, origin, network),
  main,
  extra: () => ({ ...network, screenshot: config.screenshot, timings }),
  failureScreenshot: { path: config.screenshot.replace(/\.png$/, '') + '-failure.png' },
});
