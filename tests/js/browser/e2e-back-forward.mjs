// Back/forward restore from the page cache (spec "Client resume behavior": "on back/forward
// restore after a no-store check"). Chromium with its back/forward cache on (playwright turns
// it off by default). The builder page of a run is left for another site while another client
// drives the run, then restored by Back: the page comes back frozen as it was (checked: a
// marker set before leaving is still there, so this is the cache, not a new load), learns
// from a no-store read of the run what happened meanwhile and shows it, or attaches to the turn
// still streaming and shows it once to the end. (Chromium also hands the restored page the
// workspace events it held while frozen, which lead to the same read: with the pageshow
// handler alone removed these checks still pass; they guard what the person sees.)
//
// Usage: node browser/e2e-back-forward.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import http from 'node:http';
import { chromium } from 'playwright-core';
import { SseReader } from '../harness.mjs';
import { apiClient, browserTest, chromiumPath, createRun, messageText, requireChromium, shownAssistantTexts, startPlatform } from './platform.mjs';

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
  const page = watch(await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage());

  // Opens the run's page idle, leaves it for another site, runs `meanwhile`, comes back.
  async function leaveAndReturn(routes, meanwhile) {
    await page.goto(routes.page);
    await page.getByTestId('composer').waitFor();
    await page.evaluate(() => {
      window.beforeLeaving = true;
    });
    await page.goto(away);
    const result = await meanwhile();
    // A restore from the cache fires no load event: wait for the commit, then for the page.
    await page.goBack({ waitUntil: 'commit' });
    await page.getByTestId('composer').waitFor();
    assert.equal(await page.evaluate(() => window.beforeLeaving === true), true, 'Back loaded the page anew instead of restoring it');
    return result;
  }
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
    await p.model.release('hold');
    await producer.toEnd();
    await page.getByText('After the pause, seen once.').waitFor();
    await page.waitForSelector('[data-testid="composer"]:not([disabled])');
    const persisted = await call('GET', routes.chat);
    assert.equal(persisted.status, 'completed');
    assert.deepEqual(await shownAssistantTexts(page), [messageText(persisted.messages.at(-1))]);
  });

  await check('a turn that ran and ended while the page was cached shows once the page is back', async () => {
    // (Released by the check before: the turn runs through.)
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
  });

  await browser.close();
  elsewhere.close();
});
