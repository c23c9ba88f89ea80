// Back/forward restore from the page cache (spec "Client resume behavior": "on back/forward
// restore after a no-store check"). Chromium with its back/forward cache on (playwright turns
// it off by default). The builder page of a run is left for another site while another client
// drives the run, then restored by Back: the page comes back frozen as it was (checked: a
// marker set before leaving is still there, so this is the cache, not a new load), learns
// from a no-store read of the run what happened meanwhile and shows it, or attaches to the turn
// still streaming and shows it once to the end. Chromium would also hand the restored page the
// workspace events it held while frozen, which lead to the same read, so with those the checks
// passed without the page's pageshow handler. Here the page hears no event of its run: it is a
// follower of a relay tab (platform.mjs eventsRelay) that holds back every event from when the
// page leaves until the check ends, and each check also shows that the relay read the run's
// events meanwhile. What the page shows after Back comes from the pageshow handler's read.
//
// Usage: node browser/e2e-back-forward.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import http from 'node:http';
import { chromium } from 'playwright-core';
import { SseReader } from '../harness.mjs';
import { apiClient, browserTest, chromiumPath, createRun, eventsRelay, messageText, requireChromium, shownAssistantTexts, startPlatform, waitsForEventsLock } from './platform.mjs';

requireChromium();
const t = browserTest('platform-back-forward-e2e-');
const { check, run, watch, buildDir, projectDir } = t;

const turns = [
  {
    blocks: [
      { type: 'text', text: 'Before the pause, while you were away. ' },
      { type: 'pause', name: 'hold' },
      { type: 'text', text: 'After the pause, seen once.' },
    ],
    stop_reason: 'end_turn',
  },
];

run(async () => {
  const p = await startPlatform(t, { buildDir, projectDir, turns });
  const call = apiClient(p.web);
  const elsewhere = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>Elsewhere</title><p>Another site</p>');
  });
  await new Promise((r) => elsewhere.listen(0, '127.0.0.1', r));
  const away = `http://127.0.0.1:${elsewhere.address().port}/`;
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    chromiumSandbox: false,
    ignoreDefaultArgs: ['--disable-back-forward-cache'],
    args: ['--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const relay = await eventsRelay(context, p.web);
  const page = watch(await context.newPage());

  // Opens the run's page idle (a follower of the relay), leaves it for another site with the
  // relay holding every event back, runs `meanwhile`, comes back. The relay stays paused: the
  // page hears nothing of what happened.
  async function leaveAndReturn(routes, meanwhile) {
    await relay.pause(false);
    await page.goto(routes.page);
    await page.getByTestId('composer').waitFor();
    await waitsForEventsLock(page);
    await page.evaluate(() => {
      window.beforeLeaving = true;
    });
    await relay.pause(true);
    await page.goto(away);
    const result = await meanwhile();
    // A restore from the cache fires no load event: wait for the commit, then for the page.
    await page.goBack({ waitUntil: 'commit' });
    await page.getByTestId('composer').waitFor();
    assert.equal(await page.evaluate(() => window.beforeLeaving === true), true, 'Back loaded the page anew instead of restoring it');
    return result;
  }
  // The run's events the relay read but held back from the page.
  const heldBack = async (routes, types) => {
    const { seen, relayed } = await relay.state();
    const mine = (e) => e.runId === routes.run.id;
    for (const type of types) assert.ok(seen.some((e) => mine(e) && e.type === type), `the relay read no ${type}`);
    assert.deepEqual(relayed.filter(mine), [], 'an event of the run reached the page');
  };
  const post = (routes, text) =>
    fetch(p.web + routes.chat, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ id: `u-${routes.run.id}`, role: 'user', parts: [{ type: 'text', text }] }] }),
    });

  await check('a turn still streaming when the page is back is attached to and shown once to its end', async () => {
    // (The scripted turn holds at its pause until released.)
    const routes = await createRun(p.web, 'Streaming');
    const producer = await leaveAndReturn(routes, async () => {
      const res = await post(routes, 'Start while I am away');
      assert.equal(res.status, 200);
      const reader = new SseReader(res);
      await reader.until((e) => e.join('').includes('"delta":"y. "'));
      return reader;
    });
    await page.getByText('Before the pause, while you were away.').waitFor();
    await heldBack(routes, ['run.starting', 'run.stream_ready']);
    await p.model.release('hold');
    await producer.toEnd();
    await page.getByText('After the pause, seen once.').waitFor();
    await page.waitForSelector('[data-testid="composer"]:not([disabled])');
    const persisted = await call('GET', routes.chat);
    assert.equal(persisted.status, 'completed');
    assert.deepEqual(await shownAssistantTexts(page), [messageText(persisted.messages.at(-1))]);
    await heldBack(routes, ['run.starting', 'run.stream_ready', 'run.completed']);
  });

  await check('a turn that ran and ended while the page was cached shows once the page is back', async () => {
    // Released (by the check before too): the turn runs through.
    await p.model.release('hold');
    const routes = await createRun(p.web, 'Away');
    await leaveAndReturn(routes, async () => {
      const res = await post(routes, 'Run while I am away');
      assert.equal(res.status, 200);
      await new SseReader(res).toEnd();
    });
    const persisted = await call('GET', routes.chat);
    assert.equal(persisted.status, 'completed');
    await page.getByText('After the pause, seen once.').waitFor();
    await page.getByText('Run while I am away').waitFor();
    assert.deepEqual(await shownAssistantTexts(page), [messageText(persisted.messages.at(-1))]);
    await heldBack(routes, ['run.starting', 'run.stream_ready', 'run.completed']);
  });

  await browser.close();
  elsewhere.close();
});
