// How a run page follows the workspace events, in a real browser against the real servers (spec
// "Client resume behavior" and "Workspace events": observers react only to events matching
// their {workspaceId, appId, runId}; a tab ignores event-driven updates while its own chat
// status is streaming or submitted). The run page is a follower: a relay tab of the same
// browser context (platform.mjs eventsRelay) holds the events leader lock, reads the real
// workspace events and passes them on the tabs' channel, as a leader tab does, but can hold
// some back or add its own, so each check decides what the page hears. Covers: run.starting alone (its run.stream_ready lost):
// the page's live sync finds the stream and attaches while the run still streams; a resume
// answered 204 while the run streams: the attach is retried until the stream answers; events
// of another workspace, app, run or kind make the page read nothing, its own run's does; while
// its own chat is submitted or streaming, events (its own run's too) make it read nothing until
// its turn ended.
//
// Usage: node browser/e2e-live-sync.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import { SseReader, waitUntil } from '../harness.mjs';
import { apiClient, browserTest, createRun, eventsRelay, launchBrowser, messageText, requireChromium, screenshot, shownAssistantTexts, startPlatform, waitsForEventsLock } from './platform.mjs';

requireChromium();
const t = browserTest('platform-live-sync-e2e-');
const { check, watch, run, tmp } = t;

const turns = [
  {
    blocks: [
      { type: 'text', text: 'Before the pause, live. ' },
      { type: 'pause', name: 'hold' },
      { type: 'text', text: 'After the pause, once.' },
    ],
    stop_reason: 'end_turn',
  },
];
const ws = 'default';

run(async () => {
  const p = await startPlatform(t, { buildDir: t.buildDir, projectDir: t.projectDir, turns });
  const call = apiClient(p.web);
  const browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });

  const relay = await eventsRelay(context, p.web, ws);
  const dropping = relay.drop;
  const relayState = relay.state;
  const inject = relay.inject;

  const page = watch(await context.newPage());
  const requests = [];
  page.on('request', (r) => {
    const u = new URL(r.url());
    requests.push({ method: r.method(), path: u.pathname, search: u.search });
  });
  const count = (method, path, from = 0) => requests.slice(from).filter((r) => r.method === method && r.path === path).length;
  // A request of the page's own, after everything it asked for before: once it is seen, the
  // requests the page made before it are in `requests` too.
  let markers = 0;
  const flushRequests = async () => {
    const search = `?marker=${++markers}`;
    const seen = page.waitForRequest((r) => r.url().endsWith(`/api/health${search}`));
    await page.evaluate((s) => fetch(`/api/health${s}`), search);
    await seen;
  };

  /** The run page of a new run, idle, a follower of the relay (it waits for the lock). */
  const openRun = async (name) => {
    const routes = await createRun(p.web, name, { call });
    await page.goto(routes.page);
    await page.getByTestId('composer').waitFor();
    await waitsForEventsLock(page, ws);
    return routes;
  };
  /** A turn sent by another client (this script), held at the model's pause. */
  const sendElsewhere = async (routes, text) => {
    await p.model.arm('hold');
    const res = await fetch(p.web + routes.chat, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ id: `u-${routes.run.id}`, role: 'user', parts: [{ type: 'text', text }] }] }),
    });
    assert.equal(res.status, 200);
    const reader = new SseReader(res);
    await reader.until((e) => e.join('').includes('live. '));
    return reader;
  };
  /** The held turn goes on; the page ends with the persisted reply, shown once. */
  const finishes = async (routes, producer) => {
    await p.model.release('hold');
    if (producer) await producer.toEnd();
    await page.locator('[data-role="assistant"]').getByText('After the pause, once.').waitFor();
    await page.waitForSelector('[data-testid="composer"]:not([disabled])');
    const done = await call('GET', routes.chat);
    assert.equal(done.status, 'completed');
    assert.equal(await page.locator('[data-role="assistant"]').count(), 1);
    assert.deepEqual(await shownAssistantTexts(page), [messageText(done.messages.at(-1))]);
  };
  const ofRun = (routes, type) => (e) => e.type === type && e.runId === routes.run.id;

  await check("run.starting without its run.stream_ready: the page's live sync attaches while the run still streams", async () => {
    await dropping(['run.stream_ready']);
    const routes = await openRun('Starting only');
    const producer = await sendElsewhere(routes, 'Sent from elsewhere');
    await waitUntil('the relay to read run.stream_ready', async () => (await relayState()).seen.some(ofRun(routes, 'run.stream_ready')));
    const { relayed } = await relayState();
    assert.ok(relayed.some(ofRun(routes, 'run.starting')), 'run.starting was relayed');
    assert.ok(!relayed.some(ofRun(routes, 'run.stream_ready')), 'run.stream_ready was held back');
    // The model holds the reply: what the page shows now came through the live stream.
    await page.locator('[data-role="assistant"]').getByText('Before the pause, live.').waitFor({ timeout: 15000 });
    assert.equal((await call('GET', routes.chat)).status, 'streaming');
    assert.ok(count('GET', `${routes.chat}/stream`) >= 1, 'the page attached through the resume endpoint');
    await screenshot(page, tmp, 'live-sync-run-starting');
    await finishes(routes, producer);
  });

  await check('a resume answered 204 while the run streams is retried until the stream answers', async () => {
    await dropping([]);
    const routes = await openRun('Not attachable yet');
    let refused = 0;
    await page.route(`**${routes.chat}/stream*`, async (route) => {
      if (refused < 2) {
        refused += 1;
        return route.fulfill({ status: 204 });
      }
      return route.continue();
    });
    const from = requests.length;
    const producer = await sendElsewhere(routes, 'Sent from elsewhere too');
    await page.locator('[data-role="assistant"]').getByText('Before the pause, live.').waitFor({ timeout: 15000 });
    assert.equal((await call('GET', routes.chat)).status, 'streaming');
    assert.equal(refused, 2);
    assert.ok(count('GET', `${routes.chat}/stream`, from) >= 3, `stream requests: ${count('GET', `${routes.chat}/stream`, from)}`);
    await page.unroute(`**${routes.chat}/stream*`);
    await finishes(routes, producer);
  });

  await check("events of another workspace, app, run or kind make the page read nothing; its own run's event does", async () => {
    await dropping([]);
    const other = await createRun(p.web, 'Other app', { call });
    const routes = await openRun('Filtered');
    await flushRequests();
    const from = requests.length;
    const mine = { workspaceId: ws, appId: routes.app.id, runId: routes.run.id, kind: 'builder' };
    const ready = { type: 'run.stream_ready', status: 'streaming' };
    await inject([
      { ...ready, ...mine, workspaceId: 'ws_other' },
      { ...ready, ...mine, appId: other.app.id },
      { ...ready, ...mine, runId: other.run.id },
      { ...ready, ...mine, kind: 'agent' },
      { type: 'run.completed', status: 'completed', ...mine },
    ]);
    // Only the last one matches: the read it makes is the page's only one.
    await page.waitForRequest((r) => r.method() === 'GET' && new URL(r.url()).pathname === routes.chat);
    await flushRequests();
    assert.equal(count('GET', routes.chat, from), 1);
    assert.equal(count('GET', `${routes.chat}/stream`, from), 0);
  });

  await check('while its own chat streams, events (its own run\'s too) make the page read nothing until its turn ended', async () => {
    await dropping([]);
    const routes = await openRun('Own turn');
    // A second channel object in the page: it gets each relayed event after the page's own.
    await page.evaluate((name) => {
      window.__heard = [];
      new BroadcastChannel(name).onmessage = (e) => window.__heard.push(e.data?.event);
    }, `platform-events:${ws}`);
    await flushRequests();
    const from = requests.length;
    await p.model.arm('hold');
    await page.getByTestId('composer').fill('Build it here');
    await page.getByTestId('send').click();
    await page.locator('[data-role="assistant"]').getByText('Before the pause, live.').waitFor();
    const mine = { workspaceId: ws, appId: routes.app.id, runId: routes.run.id, kind: 'builder' };
    await waitUntil("the run's own run.stream_ready to reach the page", () =>
      page.evaluate((runId) => window.__heard.some((e) => e?.type === 'run.stream_ready' && e.runId === runId), routes.run.id));
    await inject([
      { type: 'run.starting', status: 'streaming', ...mine },
      { type: 'run.stream_ready', status: 'streaming', ...mine },
      { type: 'run.completed', status: 'completed', ...mine },
      { type: 'run.failed', status: 'failed', ...mine },
      { type: 'run.completed', status: 'completed', ...mine, runId: 'run_probe' },
    ]);
    await waitUntil('the injected events to reach the page', () => page.evaluate(() => window.__heard.some((e) => e?.runId === 'run_probe')));
    await flushRequests();
    const heard = await page.evaluate((runId) => window.__heard.filter((e) => e?.runId === runId).map((e) => e.type), routes.run.id);
    // The turn's own run.starting and run.stream_ready, and the injected ones.
    assert.ok(heard.filter((x) => x === 'run.starting' || x === 'run.stream_ready').length >= 4, JSON.stringify(heard));
    assert.equal((await call('GET', routes.chat)).status, 'streaming');
    assert.equal(count('GET', routes.chat, from), 0, 'the page read its run while its own chat streamed');
    assert.equal(count('GET', `${routes.chat}/stream`, from), 0);
    assert.equal(count('POST', routes.chat, from), 1);
    await finishes(routes);
    // Its own turn over, the page reads the run again (what the count above would have seen).
    assert.ok(count('GET', routes.chat, from) >= 1);
  });

  await browser.close();
});
