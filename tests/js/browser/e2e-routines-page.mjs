// Routines on the page (issue 37), in a real browser against the real servers, the real Claude
// Code CLI and the scripted model. An app's published agents.json has a scheduled agent and a
// webhook agent; the draft adds a third trigger. The Runs tab lists the routines (in words:
// "Weekdays at 08:00"), when each fires next and who it runs as; the draft's trigger says it
// fires once published; a tick (the scheduler's clock is a file the test moves) adds a run
// marked "scheduled" whose summary says it ran as the approver; an admin shows the webhook's
// secret and switches a routine off and on. Screenshots routines-desktop, routines-phone,
// routines-run.
//
// Usage: node browser/e2e-routines-page.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { endTurn, toolTurn, use, waitUntil } from '../harness.mjs';
import { apiClient, browserTest, launchBrowser, requireChromium, screenshot, startPlatform } from './platform.mjs';

requireChromium();
const t = browserTest('platform-routines-page-e2e-');
const { tmp, check, run, watch, buildDir, projectDir } = t;

const agent = (id, name, triggers) => ({ id, name, description: `${name}.`, systemPrompt: 'Do it.', triggers });
const published = {
  agents: [
    agent('digest', 'Deal digest', { schedule: { cron: '0 8 * * 1-5', timezone: 'Europe/Paris', prompt: 'Summarize the open deals.' } }),
    agent('hook', 'Deal watcher', { webhook: { prompt: 'A deal changed:' } }),
  ],
};
const draft = { agents: [...published.agents, agent('weekly', 'Weekly report', { schedule: { cron: '0 9 * * 1', timezone: 'UTC', prompt: 'Report.' } })] };
const heredoc = (file, text) => `cat > ${file} <<'EOF'\n${text}EOF`;
const scenario = {
  turns: [
    toolTurn(use('t_write', 'Bash', { command: heredoc('src/App.tsx', 'export default function App() {\n  return <h1>Deals</h1>;\n}\n'), description: 'Write' })),
    toolTurn(use('t_build', 'mcp__platform__done_building', { summary: 'Deals' })),
    endTurn('Built.'),
  ],
  agent: [endTurn('The digest is ready.')],
  aux: { blocks: [{ type: 'text', text: 'Title' }], stop_reason: 'end_turn' },
};

run(async () => {
  const scenarioFile = path.join(tmp, 'routines-page-scenario.json');
  fs.writeFileSync(scenarioFile, JSON.stringify(scenario));
  const clockFile = path.join(tmp, 'clock');
  fs.writeFileSync(clockFile, String(Date.now()));
  const token = 'internal-token-for-routines-page-0123456789';
  const p = await startPlatform(t, {
    buildDir, projectDir, scenarioFile,
    webEnv: { INTERNAL_API_TOKEN: token, PLATFORM_ROUTINE_TICK_MS: '100', PLATFORM_ROUTINE_CLOCK_FILE: clockFile },
    workerEnv: { INTERNAL_API_TOKEN: token },
  });
  const call = apiClient(p.web);
  const app = await call('POST', '/api/workspaces/default/apps', { name: 'Deals' });
  const A = `/api/workspaces/default/apps/${app.id}`;
  const builder = await call('POST', `${A}/runs`, {});
  await (await fetch(`${p.web}${A}/runs/${builder.id}/chat`, { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Build it.' }] }] }) })).text();
  const patched = await call('PATCH', `${A}/agents`, published);
  await call('POST', `${A}/agents/approval`, { approvalHash: patched.hash });
  await call('POST', `${A}/publish`, {});
  await call('PATCH', `${A}/agents`, draft);
  const digest = (await call('GET', `${A}/routines`)).routines.find((r) => r.agentId === 'digest');

  const browser = await launchBrowser();
  const desktop = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = watch(await desktop.newPage());
  const runsTab = `${p.web}/w/default/apps/${app.id}/runs`;

  await check('the Runs tab lists the routines in words, when each fires next and who it runs as; the draft\'s fires once published', async () => {
    await page.goto(runsTab);
    const row = page.getByTestId('routine-digest');
    await row.waitFor();
    await row.getByText('Weekdays at 08:00').waitFor();
    assert.match(await page.getByTestId('routine-facts-digest').innerText(), /^Europe\/Paris · next .* · runs as /);
    await page.getByTestId('routine-hook').getByText('Webhook', { exact: true }).waitFor();
    assert.match(await page.getByTestId('routine-draft-weekly').innerText(), /Weekly report · Every Monday at 09:00 · in the draft: fires once published/);
    await screenshot(page, tmp, 'routines-desktop');
  });

  await check('a tick adds a run marked "scheduled"; its summary says it ran as the approver', async () => {
    fs.writeFileSync(clockFile, String(digest.nextFireAt + 500));
    const runs = await waitUntil('the tick\'s run', async () => {
      const l = (await call('GET', `${A}/agent-runs`)).runs.filter((r) => r.routineId === digest.id && (r.status === 'completed' || r.status === 'failed'));
      return l.length ? l : null;
    }, 60000, 200);
    await page.reload();
    const item = page.getByTestId(`agent-run-${runs[0].id}`);
    await item.getByText('scheduled').waitFor();
    await item.click();
    await page.getByTestId('agent-run-summary').getByText(/its routine \(its schedule\), running as .*, who approved its agents/).waitFor();
    await screenshot(page, tmp, 'routines-run');
    await page.keyboard.press('Escape');
  });

  await check('an admin shows the webhook\'s secret, and switches a routine off and on', async () => {
    await page.goto(runsTab);
    await page.getByTestId('routine-secret-hook').click();
    const value = await page.getByTestId('webhook-secret-value').innerText();
    const hook = (await call('GET', `${A}/routines`)).routines.find((r) => r.agentId === 'hook');
    assert.equal(value, (await call('POST', `${A}/routines/${hook.id}/webhook-secret`)).secret);
    assert.match(value, /^whsec_[0-9a-f]{64}$/);
    await page.getByTestId('routine-switch-digest').click();
    await page.getByTestId('routine-digest').getByText('Switched off').waitFor();
    assert.equal((await call('GET', `${A}/routines`)).routines.find((r) => r.agentId === 'digest').enabled, false);
    await page.getByTestId('routine-switch-digest').click();
    await page.locator('[data-testid=routine-digest][data-enabled=true]').waitFor();
  });

  await check('at 390 px the routines fit the width', async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const small = watch(await phone.newPage());
    await small.goto(runsTab);
    await small.getByTestId('routine-digest').waitFor();
    const overflow = await small.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `scrolls sideways by ${overflow}px`);
    await small.getByTestId('routines-list').scrollIntoViewIfNeeded();
    await screenshot(small, tmp, 'routines-phone');
    await phone.close();
  });
  await browser.close();
});
