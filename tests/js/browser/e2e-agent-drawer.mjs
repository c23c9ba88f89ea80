// The Agent Runs drawer, in a real browser against the real servers (spec "App agent trigger
// flow": viewing is separate from running; research/browser.md §5 scenario 16; the custom tool
// card of "Rendering of message parts"). An app agent with an approved custom tool runs on the
// real Claude Code CLI; its tool answers mock data (no secret configured). Covers: opening the
// run in the drawer makes exactly one viewer stream, which shows the live transcript, with the
// mcp__app_tools__ card (integration, display name, method and host, Input and Output on
// demand); closing the drawer aborts only that fetch (no stop request) and the run keeps going,
// then completes; a finished run opens from its stored messages, without a stream.
//
// Usage: node browser/e2e-agent-drawer.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import { endTurn, toolTurn, use } from '../harness.mjs';
import { apiClient, browserTest, launchBrowser, requireChromium, screenshot, startPlatform } from './platform.mjs';

requireChromium();
const t = browserTest('platform-agent-drawer-e2e-');
const { check, watch, run, tmp } = t;

const agentsDoc = {
  agents: [
    {
      id: 'forecaster',
      name: 'Forecaster',
      description: 'Writes a short forecast.',
      systemPrompt: 'Call weather_now, then write one sentence.',
      tools: [
        {
          type: 'custom',
          name: 'weather_now',
          displayName: 'Current weather',
          description: 'Current weather for a city. Input: {"city": "Oslo"}.',
          enabled: true,
          integration: { name: 'Weather Demo', domain: 'weather.example.org' },
          endpoint: { method: 'GET', url: 'https://weather.example.org/v1/current', headers: { 'X-Api-Key': '{{secrets.WEATHER_KEY}}' }, queryParams: { city: '{{city}}' } },
          mockData: [{ tempC: 21 }, { tempC: 21 }, { tempC: 21 }],
        },
      ],
    },
  ],
};
// The only conversation on this model server is the agent's: the tool, then an answer held at
// `agent` until the test has opened and closed the drawer.
const turns = [
  toolTurn({ type: 'text', text: 'Checking the weather.' }, use('t_weather', 'mcp__app_tools__weather_now', { input: JSON.stringify({ city: 'Oslo' }) })),
  { blocks: [{ type: 'text', text: 'Oslo is ' }, { type: 'pause', name: 'agent' }, { type: 'text', text: 'mild today.' }], stop_reason: 'end_turn' },
  endTurn('Nothing more.'),
];
const ws = 'default';

run(async () => {
  const p = await startPlatform(t, { buildDir: t.buildDir, projectDir: t.projectDir, turns });
  const call = apiClient(p.web);
  const app = await call('POST', `/api/workspaces/${ws}/apps`, { name: 'Forecast' });
  const appPath = `/api/workspaces/${ws}/apps/${app.id}`;
  const patched = await call('PATCH', `${appPath}/agents`, agentsDoc);
  assert.equal(patched.valid, true, JSON.stringify(patched.problems));
  await call('POST', `${appPath}/agents/approval`, { approvalHash: (await call('GET', `${appPath}/agents`)).draftHash });
  // Triggered the way the preview's bridge does: create, then start without a stream.
  const agentRun = await call('POST', `${appPath}/agent-runs`, { agentId: 'forecaster', prompt: 'Forecast for Oslo', draft: true });
  await call('POST', `${appPath}/agent-runs/${agentRun.id}/stream?startOnly=1`, undefined, 202);
  const runPath = `${appPath}/agent-runs/${agentRun.id}`;
  const summary = () => call('GET', runPath);

  const browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = watch(await context.newPage());
  const requests = [];
  context.on('request', (r) => requests.push({ method: r.method(), path: new URL(r.url()).pathname, request: r }));
  const streams = () => requests.filter((r) => r.method === 'GET' && r.path === `${runPath}/stream`);
  const stops = () => requests.filter((r) => r.method === 'POST' && r.path === `${runPath}/stop`);
  const drawer = page.getByTestId('agent-run-drawer');

  await check('opening the run in the drawer makes exactly one viewer stream, showing the live transcript', async () => {
    await page.goto(`${p.web}/w/${ws}/apps/${app.id}/runs`);
    await page.getByTestId(`agent-run-${agentRun.id}`).click();
    await drawer.getByTestId('agent-run-messages').getByText('Oslo is').waitFor();
    // The model holds the answer: what the drawer shows came through the stream, live.
    assert.ok(['running', 'streaming'].includes((await summary()).status));
    assert.equal(await drawer.getByTestId('agent-run-messages').getAttribute('data-mode'), 'stream');
    assert.equal(streams().length, 1);
    assert.equal(await drawer.getByTestId('agent-run-summary').getAttribute('data-status'), 'running');
  });

  await check('the custom tool card: integration, display name, method and host; Input and Output on demand', async () => {
    const card = drawer.locator('[data-card="app-tool"]');
    assert.equal(await card.count(), 1);
    assert.equal(await card.getByTestId('app-tool-integration').innerText(), 'Weather Demo');
    assert.equal(await card.getByTestId('app-tool-name').innerText(), 'Current weather');
    assert.equal((await card.getByTestId('app-tool-endpoint').innerText()).trim(), 'GET weather.example.org');
    await card.getByRole('button').first().click();
    const blocks = await card.locator('pre').allInnerTexts();
    assert.equal(blocks.length, 2);
    assert.deepEqual(JSON.parse(blocks[0]), { input: JSON.stringify({ city: 'Oslo' }) });
    // No secret is configured: the platform answered one of the tool's mock entries.
    const output = JSON.parse(blocks[1]);
    assert.equal(output.mock, true);
    assert.deepEqual(output.data, { tempC: 21 });
    await screenshot(page, tmp, 'agent-run-drawer');
  });

  await check('closing the drawer aborts only its fetch: no stop, the run goes on and completes', async () => {
    const [viewer] = streams();
    const aborted = page.waitForEvent('requestfailed', (r) => r === viewer.request);
    await drawer.getByTestId('agent-run-drawer-close').click();
    await aborted;
    await drawer.waitFor({ state: 'detached' });
    assert.equal(stops().length, 0);
    // The viewer owned the run's stream: its id is cleared, the run itself keeps running.
    await page.waitForFunction(async (route) => (await (await fetch(route, { cache: 'no-store' })).json()).activeStreamId === null, runPath);
    assert.ok(['running', 'streaming'].includes((await summary()).status));
    await p.model.release('agent');
    // The list follows the run's end (its run.completed event).
    await page.getByTestId(`agent-run-${agentRun.id}`).getByText('Completed').waitFor();
    const done = await summary();
    assert.equal(done.status, 'completed');
    assert.match(JSON.stringify(done.result), /mild today/);
    assert.equal(streams().length, 1);
    assert.equal(stops().length, 0);
  });

  await check('a finished run opens from its stored messages, without a stream', async () => {
    await page.getByTestId(`agent-run-${agentRun.id}`).click();
    await drawer.getByTestId('agent-run-messages').getByText('mild today.').waitFor();
    assert.equal(await drawer.getByTestId('agent-run-messages').getAttribute('data-mode'), 'stored');
    assert.equal(await drawer.getByTestId('agent-run-summary').getAttribute('data-status'), 'completed');
    assert.equal(await drawer.locator('[data-card="app-tool"]').count(), 1);
    assert.equal(streams().length, 1);
    assert.equal(requests.filter((r) => r.method === 'GET' && r.path === `${runPath}/messages`).length, 1);
  });

  await browser.close();
});
