// Workspace events across tabs, in a real browser against the real servers (spec "Workspace
// events": one shared connection per browser; "Client resume behavior"). Covers: two tabs of one
// browser context on the same run page share one open GET /api/workspaces/{ws}/events while a
// second context opens its own; an idle tab follows the other tab's turn live (run.stream_ready
// → resume) and ends with exactly the persisted text, while the sending tab does not double its
// message; closing the leader tab makes exactly one new connection, from the remaining tab, which
// still receives run.completed of a turn sent from the other context; a turn stopped there shows
// as failed in the following tab (run.failed).
//
// Usage: node browser/e2e-tabs-events.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import { endTurn } from '../harness.mjs';
import { apiClient, browserTest, createRun, launchBrowser, messageText, requireChromium, shownAssistantTexts, startPlatform } from './platform.mjs';

requireChromium();
const t = browserTest('platform-tabs-events-e2e-');
const { check, watch, run } = t;

const turns = [
  { blocks: [{ type: 'text', text: 'Streaming for both tabs. ' }, { type: 'pause', name: 'mid' }, { type: 'text', text: 'The rest arrives after the pause.' }], stop_reason: 'end_turn' },
  endTurn('Second turn, finished.'),
  { blocks: [{ type: 'text', text: 'Third turn, held. ' }, { type: 'pause', name: 'third' }, { type: 'text', text: 'Never sent.' }], stop_reason: 'end_turn' },
];
const ws = 'default';
const eventsPath = `/api/workspaces/${ws}/events`;

/** The workspace-events requests a browser context makes, with the page of each. */
function eventsRequests(context) {
  const seen = [];
  context.on('request', (r) => {
    if (new URL(r.url()).pathname === eventsPath) seen.push({ request: r, page: r.frame().page() });
  });
  return seen;
}

/** The events lock of the workspace as this page's browser context sees it: held and queued. */
const leaderLock = (page) =>
  page.evaluate(async (name) => {
    const q = await navigator.locks.query();
    return { held: q.held.filter((l) => l.name === name).length, pending: q.pending.filter((l) => l.name === name).length };
  }, `platform-events-leader:${ws}`);

/** Records, in the page, every workspace event relayed on the tabs' channel (the leader posts
 *  each event it reads there; a second channel object in the same page receives them too). */
const spyOnRelay = (page) =>
  page.evaluate((name) => {
    window.__relayed = [];
    const c = new BroadcastChannel(name);
    c.onmessage = (e) => window.__relayed.push(e.data?.event);
    window.__relay = c;
  }, `platform-events:${ws}`);
const relayed = (page) => page.evaluate(() => window.__relayed);

run(async () => {
  const p = await startPlatform(t, { buildDir: t.buildDir, projectDir: t.projectDir, turns });
  const call = apiClient(p.web);
  const routes = await createRun(p.web, 'Shared events', { call });
  const created = routes.run;
  const persisted = () => call('GET', routes.chat);
  const isChatPost = (r) => r.method() === 'POST' && new URL(r.url()).pathname === routes.chat;

  const browser = await launchBrowser();
  const ctx1 = await browser.newContext({ viewport: { width: 1200, height: 800 } });
  const ctx2 = await browser.newContext({ viewport: { width: 1200, height: 800 } });
  const events1 = eventsRequests(ctx1);
  const events2 = eventsRequests(ctx2);
  let chatPosts = 0;
  ctx1.on('request', (r) => {
    if (isChatPost(r)) chatPosts += 1;
  });
  const tabA = watch(await ctx1.newPage());
  const tabB = watch(await ctx1.newPage());
  const tabC = watch(await ctx2.newPage());
  const resumesB = [];
  tabB.on('request', (r) => {
    if (new URL(r.url()).pathname === `${routes.chat}/stream`) resumesB.push(r);
  });

  await check('two tabs of one context share one events connection; another context opens its own', async () => {
    const first = ctx1.waitForEvent('request', (r) => new URL(r.url()).pathname === eventsPath);
    await tabA.goto(routes.page);
    await (await first).response();
    await tabB.goto(routes.page);
    await tabB.getByTestId('composer').waitFor();
    // Tab B subscribed: it waits in the lock's queue behind tab A instead of connecting.
    await tabB.waitForFunction(
      async (name) => (await navigator.locks.query()).pending.some((l) => l.name === name),
      `platform-events-leader:${ws}`,
    );
    assert.deepEqual(await leaderLock(tabB), { held: 1, pending: 1 });
    assert.equal(events1.length, 1);
    assert.equal(events1[0].page, tabA);

    const other = ctx2.waitForEvent('request', (r) => new URL(r.url()).pathname === eventsPath);
    await tabC.goto(routes.page);
    await (await other).response();
    await tabC.getByTestId('composer').waitFor();
    assert.equal(events2.length, 1);
    assert.deepEqual(await leaderLock(tabC), { held: 1, pending: 0 });
    assert.equal(events1.length, 1);
  });

  await check("an idle tab follows the other tab's turn live (stream_ready → resume) and ends with the persisted text", async () => {
    await spyOnRelay(tabB);
    await tabA.getByTestId('composer').fill('Build it for both tabs');
    await tabA.getByTestId('send').click();
    // The model holds the reply at its pause: what tab B shows now came through the live stream.
    await tabB.locator('[data-role="assistant"]').getByText('Streaming for both tabs.').waitFor();
    assert.equal((await persisted()).status, 'streaming');
    assert.ok(resumesB.length >= 1, 'tab B attached through the resume endpoint');
    const seen = await relayed(tabB);
    assert.ok(seen.some((e) => e.type === 'run.stream_ready' && e.runId === created.id), JSON.stringify(seen));

    await p.model.release('mid');
    for (const tab of [tabA, tabB]) {
      await tab.locator('[data-role="assistant"]').getByText('The rest arrives after the pause.').waitFor();
      await tab.waitForSelector('[data-testid="composer"]:not([disabled])');
    }
    const run1 = await persisted();
    assert.equal(run1.status, 'completed');
    assert.equal(run1.messages.length, 2);
    for (const tab of [tabA, tabB]) {
      assert.equal(await tab.locator('[data-role="user"]').count(), 1);
      assert.deepEqual(await shownAssistantTexts(tab), [messageText(run1.messages[1])]);
    }
    assert.equal(chatPosts, 1);
    // Tab B had every event from tab A's connection: still one connection in this context.
    assert.equal(events1.length, 1);
  });

  await check('closing the leader tab: exactly one new connection, from the other tab, which still gets run.completed', async () => {
    const next = ctx1.waitForEvent('request', (r) => new URL(r.url()).pathname === eventsPath);
    await tabA.close();
    const reconnect = await next;
    await reconnect.response();
    assert.equal(events1.length, 2);
    assert.equal(events1[1].page, tabB);
    assert.deepEqual(await leaderLock(tabB), { held: 1, pending: 0 });

    // A turn sent from the other browser context: tab B learns of it only through its events.
    await tabC.waitForSelector('[data-testid="composer"]:not([disabled])');
    // The first turn's run.completed is relayed already: wait for one more.
    const completedBefore = await tabB.evaluate((runId) => window.__relayed.filter((e) => e.type === 'run.completed' && e.runId === runId).length, created.id);
    await tabC.getByTestId('composer').fill('One more turn');
    await tabC.getByTestId('send').click();
    await tabB.waitForFunction(
      ([runId, before]) => window.__relayed.filter((e) => e.type === 'run.completed' && e.runId === runId).length > before,
      [created.id, completedBefore],
    );
    await tabB.locator('[data-role="assistant"]').getByText('Second turn, finished.').waitFor();
    const run2 = await persisted();
    assert.equal(run2.status, 'completed');
    assert.equal(await tabB.locator('[data-role="user"]').count(), 2);
    assert.deepEqual(await shownAssistantTexts(tabB), run2.messages.filter((m) => m.role === 'assistant').map(messageText));
    assert.equal(events1.length, 2);
    assert.equal(events2.length, 1);
    assert.equal(chatPosts, 1);
  });

  await check('a turn stopped in the other context: the following tab shows it stopped (run.failed, stopReason user) and frees its composer', async () => {
    await tabC.waitForSelector('[data-testid="composer"]:not([disabled])');
    await tabC.getByTestId('composer').fill('A third turn');
    await tabC.getByTestId('send').click();
    await tabB.locator('[data-role="assistant"]').getByText('Third turn, held.').waitFor();
    assert.equal(await tabB.getByTestId('composer').isDisabled(), true);
    await tabC.getByTestId('stop').click();
    await tabB.waitForFunction((runId) => window.__relayed.some((e) => e.type === 'run.failed' && e.runId === runId), created.id);
    await tabB.getByTestId('run-stopped').waitFor();
    await tabB.waitForSelector('[data-testid="composer"]:not([disabled])');
    const run3 = await persisted();
    assert.equal(run3.status, 'failed');
    assert.equal(await tabB.locator('[data-role="user"]').count(), 3);
    assert.deepEqual(await shownAssistantTexts(tabB), run3.messages.filter((m) => m.role === 'assistant').map(messageText));
    assert.equal(events1.length, 2);
  });

  await browser.close();
});
