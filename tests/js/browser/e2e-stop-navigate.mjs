// Stopping a turn and leaving a run page mid-stream, in a real browser against the real servers
// (spec "Client resume behavior" 2 and 4, research/browser.md §5 scenarios 4 and 5). Covers: the
// Stop button ends a turn held mid-text (the run is failed, the composer free again); leaving the
// run page mid-stream for the workspace page and coming back (history back, a new document)
// shows one assistant message, resumed, then the persisted text, with one chat POST in all; the
// same through the page's own navigation (the sidebar), where the run's Chat keeps its POST.
//
// Usage: node browser/e2e-stop-navigate.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import { apiClient, browserTest, createRun, launchBrowser, messageText, requireChromium, screenshot, shownAssistantTexts, startPlatform } from './platform.mjs';

requireChromium();
const t = browserTest('platform-stop-navigate-e2e-');
const { check, watch, run } = t;

// Every run's first reply: text, held at `mid` until released, then the rest.
const turns = [
  { blocks: [{ type: 'text', text: 'Streaming until told otherwise. ' }, { type: 'pause', name: 'mid' }, { type: 'text', text: 'The end of the reply.' }], stop_reason: 'end_turn' },
];
const ws = 'default';

run(async () => {
  const p = await startPlatform(t, { buildDir: t.buildDir, projectDir: t.projectDir, turns });
  const call = apiClient(p.web);
  const browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
  const page = watch(await context.newPage());
  const requests = [];
  context.on('request', (r) => requests.push({ method: r.method(), path: new URL(r.url()).pathname }));
  const count = (method, path) => requests.filter((r) => r.method === method && r.path === path).length;

  /** A new app and run; its run page open with the first message sent from the composer. */
  const startTurn = async (name) => {
    const routes = await createRun(p.web, name, { call });
    await page.goto(routes.page);
    await page.getByTestId('composer').fill(`Build ${name}`);
    await page.getByTestId('send').click();
    await page.locator('[data-role="assistant"]').getByText('Streaming until told otherwise.').waitFor();
    return routes;
  };

  /** The held reply goes on: the page ends with one user and one assistant message, the
   *  persisted ones, and the run's only chat POST was the first. */
  const finishes = async (routes) => {
    await p.model.release('mid');
    await page.locator('[data-role="assistant"]').getByText('The end of the reply.').waitFor();
    await page.waitForSelector('[data-testid="composer"]:not([disabled])');
    const done = await call('GET', routes.chat);
    assert.equal(done.status, 'completed');
    assert.equal(await page.locator('[data-role="user"]').count(), 1);
    assert.deepEqual(await shownAssistantTexts(page), [messageText(done.messages[1])]);
    assert.equal(count('POST', routes.chat), 1);
  };

  await check('Stop ends a turn held mid-text: the run is failed and the composer is free again', async () => {
    const routes = await startTurn('Stopped');
    assert.equal((await call('GET', routes.chat)).status, 'streaming');
    assert.equal(await page.getByTestId('composer').isDisabled(), true);
    await page.getByTestId('stop').click();
    await page.waitForSelector('[data-testid="composer"]:not([disabled])');
    // In words a person reads: stopped by them, not a red failure (the run itself stays failed).
    await page.getByTestId('run-stopped').waitFor();
    assert.equal(await page.getByTestId('run-failed').count(), 0);
    await page.getByText('Stopped by you', { exact: true }).first().waitFor();
    await screenshot(page, t.tmp, 'stopped-by-you');
    const stopped = await call('GET', routes.chat);
    assert.equal(stopped.status, 'failed');
    assert.equal(stopped.stopReason, 'user');
    assert.equal(count('POST', routes.chat.replace(/\/chat$/, '/stop')), 1);
    // What streamed before the stop is kept, and the page shows that same text.
    assert.match(messageText(stopped.messages.at(-1)), /Streaminguntiltoldotherwise\./);
    assert.deepEqual(await shownAssistantTexts(page), [messageText(stopped.messages.at(-1))]);
    assert.equal(await page.getByTestId('stop').count(), 0);
    await page.getByTestId('composer').fill('Another try');
    assert.equal(await page.getByTestId('send').isEnabled(), true);
  });

  await check('leaving mid-stream for the workspace page and coming back (history back): one message, resumed, then the persisted text', async () => {
    const routes = await startTurn('Left and back');
    await page.goto(`${p.web}/w/${ws}`);
    await page.getByTestId('create-app').waitFor();
    const resumesBefore = count('GET', `${routes.chat}/stream`);
    await page.goBack();
    await page.locator('[data-role="assistant"]').getByText('Streaming until told otherwise.').waitFor();
    assert.equal((await call('GET', routes.chat)).status, 'streaming');
    assert.equal(await page.locator('[data-role="assistant"]').count(), 1);
    assert.ok(count('GET', `${routes.chat}/stream`) > resumesBefore, 'the page resumed the stream');
    await finishes(routes);
  });

  await check("leaving through the page's own navigation and coming back: the same message, one POST", async () => {
    await p.model.arm('mid');
    const routes = await startTurn('Sidebar');
    await page.getByRole('button', { name: '+ New app' }).click();
    await page.getByTestId('create-app').waitFor();
    await page.goBack();
    await page.locator('[data-role="assistant"]').getByText('Streaming until told otherwise.').waitFor();
    assert.equal(await page.locator('[data-role="assistant"]').count(), 1);
    await finishes(routes);
  });

  await browser.close();
});
