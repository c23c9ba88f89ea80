// Budgets on the page (issue 37), in a real browser against the real servers, the real Claude
// Code CLI and the scripted model server whose every step costs $0.40 and never ends. An admin
// sets the workspace's defaults in the Budgets dialog ($1.00 a builder turn); a builder turn
// then runs away and is stopped at its cap: the chat says why in the budget's words (not as a
// failure) and the Runs tab lists the run as "Budget reached". The Runs tab shows the app's
// month against its limit; an admin lowers the app's monthly limit in Edit limits, and the
// banner says it is spent and new runs are refused; the next turn sent from the page is
// refused with that sentence. Screenshots budgets-runs-desktop, budgets-runs-phone,
// budgets-settings-desktop, budgets-stopped-chat.
//
// Usage: node browser/e2e-budgets-page.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { toolTurn, use } from '../harness.mjs';
import { apiClient, browserTest, launchBrowser, requireChromium, screenshot, startPlatform } from './platform.mjs';

requireChromium();
const t = browserTest('platform-budgets-page-e2e-');
const { tmp, check, run, watch, buildDir, projectDir } = t;

const ws = 'default';
const stepUsage = { input_tokens: 100000, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 1000 };
const scenario = {
  turns: [{ ...toolTurn(use('t_loop', 'Bash', { command: 'echo again', description: 'Loop' })), usage: stepUsage }],
  aux: { blocks: [{ type: 'text', text: 'Title' }], stop_reason: 'end_turn' },
};

run(async () => {
  const scenarioFile = path.join(tmp, 'budgets-page-scenario.json');
  fs.writeFileSync(scenarioFile, JSON.stringify(scenario));
  const p = await startPlatform(t, { buildDir, projectDir, scenarioFile });
  const call = apiClient(p.web);
  const app = await call('POST', `/api/workspaces/${ws}/apps`, { name: 'Spend' });
  const A = `/api/workspaces/${ws}/apps/${app.id}`;
  const browser = await launchBrowser();
  const desktop = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = watch(await desktop.newPage());
  let runId;

  await check('an admin sets the workspace defaults in the Budgets dialog; the API has them', async () => {
    await page.goto(`${p.web}/w/${ws}/apps/${app.id}/runs`);
    await page.getByTestId('budgets-button').click();
    const dialog = page.getByTestId('workspace-budget-dialog');
    await dialog.getByTestId('workspace-month-text').waitFor();
    assert.equal(await dialog.getByTestId('workspace-month-text').innerText(), '$0.00 · no limit');
    await dialog.getByTestId('workspace-monthly-usd').fill('50');
    await dialog.getByTestId('app-monthly-usd').fill('10');
    await dialog.getByTestId('builder-turn-usd').fill('1');
    await dialog.getByTestId('agent-run-tokens').fill('200000');
    await screenshot(page, tmp, 'budgets-settings-desktop');
    await dialog.getByTestId('save-workspace-budget').click();
    await dialog.waitFor({ state: 'detached' });
    const saved = await call('GET', `/api/workspaces/${ws}/budget`);
    assert.deepEqual(saved.settings, {
      workspaceMonthly: { usd: 50, tokens: null }, appMonthly: { usd: 10, tokens: null },
      builderTurn: { usd: 1, tokens: null }, agentRun: { usd: null, tokens: 200000 },
    });
    // The Runs tab follows the new defaults without a reload.
    await page.getByTestId('run-caps').filter({ hasText: 'Each builder turn: up to $1.00 · each agent run: up to 200,000 tokens' }).waitFor();
  });

  await check('a bad limit is refused with the field named; nothing is saved', async () => {
    await page.getByTestId('budgets-button').click();
    const dialog = page.getByTestId('workspace-budget-dialog');
    await dialog.getByTestId('builder-turn-usd').fill('-3');
    await dialog.getByTestId('save-workspace-budget').click();
    await dialog.getByText(/builderTurn\.usd/i).waitFor();
    assert.deepEqual((await call('GET', `/api/workspaces/${ws}/budget`)).settings.builderTurn, { usd: 1, tokens: null });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  await check('a runaway builder turn is stopped at its $1.00 cap: the chat says why, in amber, and keeps what it did', async () => {
    runId = (await call('POST', `${A}/runs`, {})).id;
    const res = await fetch(`${p.web}${A}/runs/${runId}/chat`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Keep going' }] }] }),
    });
    await res.text();
    const stored = await call('GET', `${A}/runs/${runId}/chat`);
    assert.equal(stored.stopReason, 'budget');
    await page.goto(`${p.web}/w/${ws}/apps/${app.id}/runs/${runId}`);
    const notice = page.getByTestId('run-budget-stopped');
    await notice.waitFor();
    assert.match(await notice.innerText(), /^Stopped: this run reached its \$1\.00 cap\. What it wrote so far is kept\./);
    assert.equal(await page.getByTestId('run-failed').count(), 0, 'not shown as a failure');
    await screenshot(page, tmp, 'budgets-stopped-chat');
  });

  await check('the Runs tab: the app\'s month against its limit, the run as "Budget reached"', async () => {
    await page.goto(`${p.web}/w/${ws}/apps/${app.id}/runs`);
    await page.getByTestId('app-month-text').waitFor();
    assert.match(await page.getByTestId('app-month-text').innerText(), /^\$1\.20 of \$10\.00$/);
    assert.equal(await page.getByTestId('app-month').getAttribute('data-warning'), 'false');
    await page.getByTestId('runs-list').getByText('Budget reached').waitFor();
    await screenshot(page, tmp, 'budgets-runs-desktop');
  });

  await check('an admin lowers the app\'s monthly limit in Edit limits: the banner says it is spent, and the next turn is refused', async () => {
    await page.getByTestId('edit-app-budget').click();
    const dialog = page.getByTestId('app-budget-dialog');
    await dialog.getByTestId('app-monthly-mode').selectOption('custom');
    await dialog.getByTestId('app-monthly-usd').fill('1');
    await dialog.getByTestId('save-app-budget').click();
    await dialog.waitFor({ state: 'detached' });
    const banner = page.getByTestId('budget-banner-app');
    await banner.waitFor();
    assert.match(await banner.innerText(), /This app's monthly budget of \$1\.00 is spent: new builder turns and agent runs are refused until next month\. Edit limits raises it\./);
    assert.deepEqual((await call('GET', `${A}/budget`)).overrides.appMonthly, { usd: 1, tokens: null });
    // The turn sent from the page is refused with the server's sentence.
    await page.goto(`${p.web}/w/${ws}/apps/${app.id}/runs/${runId}`);
    await page.getByTestId('composer').fill('One more');
    await page.getByTestId('send').click();
    await page.getByText("This app's monthly budget of $1.00 is spent. A workspace admin can raise it on the app's Runs tab.").waitFor();
  });

  await check('at 390 px the Runs tab\'s budget fits the width', async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const small = watch(await phone.newPage());
    await small.goto(`${p.web}/w/${ws}/apps/${app.id}/runs`);
    await small.getByTestId('budget-banner-app').waitFor();
    const overflow = await small.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `scrolls sideways by ${overflow}px`);
    await screenshot(small, tmp, 'budgets-runs-phone');
    await phone.close();
  });
  await browser.close();
});
