// Runtimes without credentials (issue 34), in a real browser against the real servers and CLIs.
// The worker has no OpenAI key, no Codex login and no opencode provider config: /api/runtimes
// marks Codex, and opencode's models without a route, as not ready with the worker's sentence, and the picker says "needs setup"
// with a link to Model providers. A turn on Codex is refused before any codex process starts,
// the run fails with that sentence and the link, and both stay after a reload. A key entered on
// Model providers makes Codex ready ("Ready" badge, no mark), without a model call.
//
// Usage: node browser/e2e-runtime-setup.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import { waitUntil } from '../harness.mjs';
import { apiClient, browserTest, createRun, launchBrowser, requireChromium, screenshot, startPlatform } from './platform.mjs';

requireChromium();
const t = browserTest('platform-runtime-setup-e2e-');
const { tmp, check, watch, run } = t;
const ws = 'default';
const turns = [{ blocks: [{ type: 'text', text: 'Hello from Claude Code.' }], stop_reason: 'end_turn' }];

run(async () => {
  const p = await startPlatform(t, { buildDir: t.buildDir, projectDir: t.projectDir, turns });
  const call = apiClient(p.web);
  const health = async () => (await fetch(`${p.worker}/health`)).json();
  const browser = await launchBrowser();
  const desktop = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = watch(await desktop.newPage());
  let refused;

  await check('/api/runtimes: Claude Code ready, Codex not, opencode\'s Zen models not: each with a sentence that names what it lacks', async () => {
    // runtime-c's readiness is known once the worker discovered opencode's models (seconds).
    let runtimes;
    await waitUntil('runtime-c readiness', async () => {
      ({ runtimes } = await call('GET', '/api/runtimes'));
      return runtimes.find((r) => r.id === 'runtime-c')?.ready !== undefined;
    }, 60000, 500);
    const byId = Object.fromEntries(runtimes.map((r) => [r.id, r]));
    assert.equal(byId['runtime-a'].ready, true);
    assert.equal(byId['runtime-a'].notReadyReason, undefined);
    assert.equal(byId['runtime-b'].ready, false);
    assert.match(byId['runtime-b'].notReadyReason, /^Codex has no OpenAI API key on this worker\. Enter one on Model providers/);
    // opencode: the worker's ANTHROPIC_API_KEY serves its anthropic models, so it is ready; its
    // free Zen models have no route out of the sandbox, and each is marked with its sentence.
    const c = byId['runtime-c'];
    assert.equal(c.ready, true);
    const zen = c.models.filter((m) => m.id.startsWith('opencode/'));
    const anthropic = c.models.filter((m) => m.id.startsWith('anthropic/'));
    assert.ok(zen.length > 0 && anthropic.length > 0, `opencode lists both (${c.models.map((m) => m.id).join(', ')})`);
    for (const m of anthropic) assert.equal(m.notReadyReason, undefined, m.id);
    for (const m of zen) assert.ok(m.notReadyReason?.startsWith(`opencode cannot reach the provider opencode of ${m.id} from the sandbox`), `${m.id}: ${m.notReadyReason}`);
  });

  await check('the picker marks Codex "needs setup" and, once chosen, says why with a link to Model providers', async () => {
    await page.goto(`${p.web}/w/${ws}`);
    const picker = page.getByTestId('runtime-picker').first();
    await picker.getByLabel('Runtime').locator('option', { hasText: 'Codex (needs setup)' }).waitFor({ state: 'attached' });
    assert.equal(await picker.getByTestId('runtime-not-ready').count(), 0, 'Claude Code, the default, is ready');
    await picker.getByLabel('Runtime').selectOption('runtime-b');
    const note = picker.getByTestId('runtime-not-ready');
    await note.getByText(/Codex has no OpenAI API key/).waitFor();
    assert.equal(await note.getByTestId('model-providers-link').getAttribute('href'), '/onboarding/provider');
    await screenshot(page, tmp, 'runtime-needs-setup');
  });

  await check('a turn on Codex without a key is refused before codex starts; the run keeps the sentence and the link after a reload', async () => {
    const r = await createRun(p.web, 'Codex app', { call });
    await call('PATCH', `/api/workspaces/${ws}/apps/${r.app.id}`, { runtimeId: 'runtime-b' });
    const before = await health();
    await page.goto(r.page);
    await page.getByTestId('composer').fill('Build me a tracker');
    const sentAt = Date.now();
    await page.getByTestId('composer').press('Enter');
    const notice = page.getByTestId('run-runtime-not-ready');
    await notice.getByText(/This turn did not start\. Codex has no OpenAI API key on this worker/).waitFor();
    console.log(`runtime setup: the refusal showed ${Date.now() - sentAt} ms after send`);
    const after = await health();
    assert.equal(after.codexProcessesStarted, before.codexProcessesStarted, 'no codex process started');
    assert.equal(after.turnsStarted, before.turnsStarted, 'no runtime turn started');
    const stored = await call('GET', r.chat);
    assert.equal(stored.status, 'failed');
    assert.equal(stored.stopReason, 'runtime_not_ready');
    assert.match(stored.stopMessage, /^Codex has no OpenAI API key on this worker/);
    // The error chunk's text is not shown a second time beside the run's own notice.
    assert.equal(await page.getByText(/Codex has no OpenAI API key/).count(), 2, 'the run notice and the picker note');
    await page.reload();
    await notice.getByText(/Codex has no OpenAI API key/).waitFor();
    await screenshot(page, tmp, 'runtime-refused');
    refused = r;
  });

  await check('at 390 px the refusal and its link fit the phone', async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const small = watch(await phone.newPage());
    await small.goto(refused.page);
    await small.getByTestId('run-runtime-not-ready').getByTestId('model-providers-link').waitFor();
    const overflow = await small.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `no sideways scrolling (${overflow} px)`);
    await screenshot(small, tmp, 'phone-runtime-refused');
    await phone.close();
  });

  await check('the link opens Model providers in the page; a Codex key entered there makes Codex ready', async () => {
    await page.getByTestId('run-runtime-not-ready').getByTestId('model-providers-link').click();
    await page.waitForURL(`${p.web}/onboarding/provider`);
    const codex = page.getByTestId('runtime-runtime-b');
    await codex.getByText('Needs credentials').waitFor();
    await codex.getByTestId('not-ready-runtime-b').getByText(/Codex has no OpenAI API key/).waitFor();
    await codex.locator('#key-CODEX_API_KEY').fill('sk-test-codex-key');
    await codex.getByRole('button', { name: /save/i }).click();
    await codex.getByText('Ready', { exact: true }).waitFor();
    await screenshot(page, tmp, 'onboarding-codex-key');
    // The key never comes back: not in the page, not in the API.
    assert.equal(await page.getByText('sk-test-codex-key').count(), 0);
    assert.equal(await page.locator('#key-CODEX_API_KEY').inputValue(), '');
    const { runtimes } = await call('GET', '/api/runtimes');
    const codexRuntime = runtimes.find((x) => x.id === 'runtime-b');
    assert.equal(codexRuntime.ready, true);
    assert.ok(!JSON.stringify(runtimes).includes('sk-test-codex-key'));
    await page.goto(refused.page);
    const picker = page.getByTestId('runtime-picker');
    // The registry loaded (the picker shows names, not ids), and Codex has no mark any more.
    await picker.getByLabel('Runtime').locator('option[value="runtime-b"]', { hasText: 'Codex' }).waitFor({ state: 'attached' });
    assert.equal((await picker.getByLabel('Runtime').locator('option[value="runtime-b"]').textContent()).trim(), 'Codex');
    assert.equal(await picker.getByTestId('runtime-not-ready').count(), 0);
  });
});
