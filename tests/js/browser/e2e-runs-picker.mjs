// The app's past runs and the runtime picker, in a real browser against the real servers.
// Runs: the Runs tab shows the newest page (50) and "Show older runs" reads the next one with
// the list route's nextCursor (keyset paging, docs/http-api.md); a run from the older page
// opens with its own messages. Picker: the runtime, model and parameters chosen on the new-app
// form and then in the chat's picker travel in the chat POST (runtimeId, runtimeModel,
// runtimeParams), reach the model, and become the app's settings (GET app).
//
// Usage: node browser/e2e-runs-picker.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import { apiClient, browserTest, createRun, launchBrowser, requireChromium, screenshot, startPlatform } from './platform.mjs';

requireChromium();
const t = browserTest('platform-runs-picker-e2e-');
const { tmp, check, watch, run } = t;

// Every run's first reply, and the reply to any later message.
const turns = [{ blocks: [{ type: 'text', text: 'Noted, this run is about that.' }], stop_reason: 'end_turn' }];
const ws = 'default';
const pageSize = 50; // the runs list's page (ui/src/api/queries.ts keys.runs)

run(async () => {
  const p = await startPlatform(t, { buildDir: t.buildDir, projectDir: t.projectDir, turns });
  const call = apiClient(p.web);
  const browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1300, height: 900 } });
  const page = watch(await context.newPage());
  const chatPosts = [];
  context.on('request', (r) => {
    if (r.method() === 'POST' && /\/runs\/[^/]+\/chat$/.test(new URL(r.url()).pathname)) chatPosts.push(r.postDataJSON());
  });

  await check('the runs list pages with nextCursor: "Show older runs" reads the older page, whose run opens with its messages', async () => {
    // The oldest run has a finished turn; then a full page of newer (empty) runs.
    const oldest = await createRun(p.web, 'Many runs', { call });
    const res = await fetch(p.web + oldest.chat, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ id: 'u-oldest', role: 'user', parts: [{ type: 'text', text: 'The oldest request of all' }] }] }),
    });
    assert.equal(res.status, 200);
    await res.text();
    assert.equal((await call('GET', oldest.chat)).status, 'completed');
    for (let i = 0; i < pageSize; i++) await call('POST', `/api/workspaces/${ws}/apps/${oldest.app.id}/runs`, {});

    await page.goto(`${p.web}/w/${ws}/apps/${oldest.app.id}/runs`);
    const rows = page.getByTestId('runs-list').locator('li');
    await page.getByTestId('older-runs').waitFor();
    assert.equal(await rows.count(), pageSize);
    assert.equal(await rows.getByText('2 messages').count(), 0);
    await page.getByTestId('older-runs').scrollIntoViewIfNeeded();
    await screenshot(page, tmp, 'runs-older');
    await page.getByTestId('older-runs').click();
    await rows.getByText('2 messages').waitFor();
    assert.equal(await rows.count(), pageSize + 1);
    // The older page was the last: nothing more to ask for.
    await page.getByTestId('older-runs').waitFor({ state: 'detached' });

    await rows.getByText('2 messages').click();
    await page.waitForURL(oldest.page);
    await page.locator('[data-role="user"]').getByText('The oldest request of all').waitFor();
    await page.locator('[data-role="assistant"]').getByText('Noted, this run is about that.').waitFor();
    assert.equal(await page.locator('[data-role="user"]').count(), 1);
  });

  await check('the picker\'s runtime, model and parameters go in the chat POST, reach the model and become the app\'s settings', async () => {
    const picker = page.getByTestId('runtime-picker');
    const choose = async (s) => {
      await picker.getByLabel('Runtime').selectOption(s.runtimeId);
      await picker.getByLabel('Model').selectOption(s.runtimeModel);
      for (const [name, value] of Object.entries(s.runtimeParams)) await picker.getByLabel(name).selectOption(value);
    };
    const settingsOf = (o) => ({ runtimeId: o.runtimeId, runtimeModel: o.runtimeModel, runtimeParams: o.runtimeParams });
    /** The turn's reply shown, the n-th chat POST carried `s`, the model was asked with its
     *  model, and the app (GET) holds it. */
    const sentAndKept = async (n, s, appId) => {
      await page.locator('[data-role="assistant"]').nth(n - 1).getByText('Noted, this run is about that.').waitFor({ timeout: 60000 });
      await page.waitForSelector('[data-testid="composer"]:not([disabled])');
      assert.equal(chatPosts.length, n);
      assert.deepEqual(settingsOf(chatPosts[n - 1]), s);
      assert.equal(p.model.requests().at(-1).body.model, s.runtimeModel);
      assert.deepEqual(settingsOf(await call('GET', `/api/workspaces/${ws}/apps/${appId}`)), s);
    };

    await page.goto(`${p.web}/`);
    await page.getByLabel('Name').fill('Picked');
    await page.getByLabel('What should it do?').fill('A page that shows which model built it.');
    const first = { runtimeId: 'runtime-a', runtimeModel: 'claude-sonnet-5-5', runtimeParams: { effort: 'low', thinking: 'disabled' } };
    await choose(first);
    await page.getByTestId('create-app').click();
    await page.waitForURL(/\/runs\//);
    const appId = new URL(page.url()).pathname.split('/')[4];
    await sentAndKept(1, first, appId);

    // Another choice in the chat's own picker: the next message carries it, and it is kept.
    const second = { runtimeId: 'runtime-a', runtimeModel: 'claude-fable-5-2', runtimeParams: { effort: 'max', thinking: 'enabled' } };
    await choose(second);
    await page.getByTestId('composer').fill('Now with the larger model');
    await page.getByTestId('send').click();
    await sentAndKept(2, second, appId);
    // After a reload the chat's picker starts from the app's settings.
    await page.reload();
    await picker.getByLabel('effort').waitFor();
    assert.equal(await picker.getByLabel('Model').inputValue(), 'claude-fable-5-2');
    assert.equal(await picker.getByLabel('effort').inputValue(), 'max');
  });

  await browser.close();
});
