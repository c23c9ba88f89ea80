// The agents card and the integration setup card, in a real browser against the real servers
// (spec "Approval stops", "Agent config approval", Errors 3; research/browser.md §5 scenarios
// 9–11). Covers, as the owner in local mode: an invalid agents.json makes a needs-changes card
// that lists its problems, offers no approval and leaves the composer free; a valid one, written
// by a Bash heredoc and presented, blocks the composer until "Approve agents", which records the
// approval with the card's approvalHash and only then sends the follow-up message; the setup
// card of present_integration_setup opens the secrets dialog, and saving a secret flips it to
// Configured while its value never stays in the page. As a collaborator in external mode (a
// second platform: sign-in through POST /api/session), the Approve button is disabled with the
// reason.
//
// Usage: node browser/e2e-agents-setup.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import { identityProvider, toolTurn, use, endTurn } from '../harness.mjs';
import { apiClient, browserTest, createRun, launchBrowser, requireChromium, screenshot, startPlatform } from './platform.mjs';

requireChromium();
const t = browserTest('platform-agents-setup-e2e-');
const { check, watch, run, tmp } = t;

const weatherTool = {
  type: 'custom',
  name: 'weather_now',
  displayName: 'Current weather',
  description: 'Current weather for a city. Input: {"city": "Oslo"}.',
  enabled: true,
  recommended: true,
  integration: { name: 'Weather Demo', domain: 'weather.example.org' },
  endpoint: { method: 'GET', url: 'https://weather.example.org/v1/current', headers: { 'X-Api-Key': '{{secrets.WEATHER_KEY}}' }, queryParams: { city: '{{city}}' } },
  mockData: [{ tempC: 21 }, { tempC: 5 }, { tempC: -3 }],
};
const agentsDoc = {
  agents: [{ id: 'forecaster', name: 'Forecaster', description: 'Writes a short forecast.', systemPrompt: 'Call weather_now, then write one sentence.', tools: [weatherTool] }],
};
// Two violations: a custom tool without its endpoint, and the reserved tool name.
const invalidDoc = {
  agents: [
    {
      ...agentsDoc.agents[0],
      tools: [
        { ...weatherTool, endpoint: undefined },
        { ...weatherTool, name: 'report_tool_call_failed', displayName: undefined },
      ],
    },
  ],
};
const setupDoc = {
  integrations: [
    {
      name: 'Weather Demo',
      domain: 'weather.example.org',
      keySlug: 'default',
      capabilityLabel: 'Current weather',
      why: 'The forecaster reads the current weather.',
      secrets: [{ name: 'WEATHER_KEY', label: 'API key', description: 'Account > API keys', required: true }],
    },
  ],
};
const heredoc = (file, doc) => `cat > ${file} <<'EOF'\n${JSON.stringify(doc, null, 2)}\nEOF`;

// The owner's conversation (local mode), one run: present the invalid file (put there through
// PATCH agents before the run) → needs changes; "fix it" → a heredoc writes the valid file,
// present → approval stop; the approval's follow-up → the setup file, its card, a build.
const localTurns = [
  toolTurn(use('t_pa_bad', 'mcp__platform__present_agents', {})),
  endTurn('agents.json needs the fixes listed on the card.'),
  toolTurn(use('t_fix', 'Bash', { command: heredoc('agents.json', agentsDoc), description: 'Write agents.json' })),
  toolTurn(use('t_pa', 'mcp__platform__present_agents', {})),
  toolTurn(use('t_setup_file', 'Bash', { command: heredoc('integration-setup.json', setupDoc), description: 'Write integration-setup.json' })),
  toolTurn(use('t_setup', 'mcp__platform__present_integration_setup', {})),
  toolTurn(use('t_done', 'mcp__platform__done_building', { summary: 'Forecaster' })),
  endTurn('Add the weather key to go live.'),
];
// The collaborator's conversation (external mode): the valid file, then its card.
const externalTurns = [
  toolTurn(use('t_write', 'Bash', { command: heredoc('agents.json', agentsDoc), description: 'Write agents.json' })),
  toolTurn(use('t_pa', 'mcp__platform__present_agents', {})),
];

/** The output of a tool call in the persisted messages, unwrapped from its text block. */
function toolOutput(messages, toolCallId) {
  const part = messages.flatMap((m) => m.parts).find((x) => x.toolCallId === toolCallId);
  assert.ok(part, `no part for ${toolCallId}`);
  const out = part.output;
  return JSON.parse(Array.isArray(out) ? out.map((b) => b.text).join('') : typeof out === 'string' ? out : JSON.stringify(out));
}

run(async () => {
  const idp = identityProvider();
  const [local, external] = await Promise.all([
    startPlatform(t, { buildDir: t.buildDir, projectDir: t.projectDir, turns: localTurns, name: 'local' }),
    startPlatform(t, { buildDir: t.buildDir, projectDir: t.projectDir, turns: externalTurns, name: 'ext', webEnv: idp.env }),
  ]);
  const browser = await launchBrowser();

  // ---- owner, local mode ----
  const call = apiClient(local.web);
  const routes = await createRun(local.web, 'Forecast', { call });
  const appPath = `/api/workspaces/default/apps/${routes.app.id}`;
  const patched = await call('PATCH', `${appPath}/agents`, invalidDoc);
  assert.equal(patched.valid, false);
  const context = await browser.newContext({ viewport: { width: 1300, height: 1000 } });
  const page = watch(await context.newPage());
  const composerFree = () => page.waitForSelector('[data-testid="composer"]:not([disabled])');
  const send = async (text) => {
    await composerFree();
    await page.getByTestId('composer').fill(text);
    await page.getByTestId('send').click();
  };

  await check('needs-changes agents card: the problems listed, no Approve, the composer free', async () => {
    await page.goto(routes.page);
    await send('Give the app a forecaster agent');
    await page.getByText('agents.json needs the fixes listed on the card.').waitFor();
    await composerFree();
    const persisted = await call('GET', routes.chat);
    assert.equal(persisted.status, 'completed');
    const out = toolOutput(persisted.messages, 't_pa_bad');
    assert.equal(out.status, 'needs_changes');
    assert.equal(out.problems.length, 2);
    const card = page.locator('[data-card="agents"]');
    assert.equal(await card.getAttribute('data-status'), 'needs_changes');
    await card.getByText('Needs changes', { exact: true }).waitFor();
    const items = await card.getByTestId('agents-problems').locator('li').allInnerTexts();
    assert.deepEqual(
      items.map((s) => s.replace(/\s+/g, ' ')),
      out.problems.map((p) => `${p.path} ${p.message}`.replace(/\s+/g, ' ')),
    );
    assert.ok(items.some((s) => s.includes('agents[0].tools[0].endpoint')));
    assert.ok(items.some((s) => s.includes('reserved')));
    assert.equal(await page.getByRole('button', { name: 'Approve agents' }).count(), 0);
    assert.equal(await page.getByTestId('composer-blocked').count(), 0);
  });

  await check('valid agents card (Bash heredoc, present_agents): Approve posts the card hash, then the follow-up', async () => {
    await send('Fix agents.json');
    const card = page.locator('[data-card="agents"][data-status="awaiting_approval"]');
    await card.waitFor();
    await page.getByTestId('composer-blocked').waitFor();
    assert.equal(await page.getByTestId('composer').isDisabled(), true);
    assert.match(await card.innerText(), /Forecaster/);
    assert.match(await card.innerText(), /Current weather/);
    assert.match(await card.innerText(), /GET weather\.example\.org/);
    const persisted = await call('GET', routes.chat);
    const hash = toolOutput(persisted.messages, 't_pa').approvalHash;
    assert.match(hash, /^v1:[0-9a-f]{64}$/);
    assert.equal((await call('GET', `${appPath}/agents`)).approvalStatus, 'none');

    // The page's two POSTs pass through here in the order the page makes them: the approval is
    // answered (by the server, then to the page) before the chat POST can be seen.
    const order = [];
    const approvalPath = `${appPath}/agents/approval`;
    await page.route(`${local.web}${approvalPath}`, async (route) => {
      order.push({ what: 'approval sent', body: route.request().postDataJSON() });
      const response = await route.fetch();
      order.push({ what: 'approval answered', status: response.status() });
      await route.fulfill({ response });
    });
    await page.route(`${local.web}${routes.chat}`, async (route) => {
      if (route.request().method() === 'POST') order.push({ what: 'chat sent' });
      await route.continue();
    });
    await card.getByRole('button', { name: 'Approve agents' }).click();
    await page.locator('[data-role="user"]').getByText('Agents approved. Continue building.').waitFor();
    assert.deepEqual(order, [
      { what: 'approval sent', body: { approvalHash: hash } },
      { what: 'approval answered', status: 200 },
      { what: 'chat sent' },
    ]);
    await page.unrouteAll();
    const view = await call('GET', `${appPath}/agents`);
    assert.equal(view.approvalStatus, 'approved');
  });

  await check('setup card → the dialog → saving a secret flips it to Configured; the value never stays in the page', async () => {
    const setup = page.locator('[data-card="setup"]');
    await setup.getByText('Weather Demo').waitFor({ timeout: 120000 });
    await page.getByText('Add the weather key to go live.').waitFor({ timeout: 120000 });
    await composerFree();
    assert.equal((await call('GET', routes.chat)).status, 'completed');
    assert.match(await setup.innerText(), /WEATHER_KEY/);
    await setup.getByRole('button', { name: 'Set up integrations' }).click();
    const row = page.getByRole('dialog').getByTestId('secret-WEATHER_KEY');
    await row.getByText('Not set').waitFor();
    assert.equal(await row.getAttribute('data-configured'), 'false');
    const value = `weather-secret-${Date.now()}-do-not-show`;
    await row.getByTestId('secret-input-WEATHER_KEY').fill(value);
    // While typed, the value is in the input (the check below would see it there).
    assert.equal(await page.evaluate((v) => [...document.querySelectorAll('input')].filter((el) => el.value.includes(v)).length, value), 1);
    await row.getByTestId('secret-save-WEATHER_KEY').click();
    await row.getByText('Configured').waitFor();
    assert.equal(await row.getAttribute('data-configured'), 'true');
    await screenshot(page, tmp, 'setup-dialog-configured');
    const leaks = await page.evaluate(
      (v) => ({
        html: document.documentElement.outerHTML.includes(v),
        inputs: [...document.querySelectorAll('input, textarea')].filter((el) => el.value.includes(v)).length,
      }),
      value,
    );
    assert.deepEqual(leaks, { html: false, inputs: 0 });
    const listed = JSON.stringify(await call('GET', `${appPath}/integrations`));
    assert.ok(!listed.includes(value));
    assert.match(listed, /WEATHER_KEY/);
  });

  // ---- collaborator, external mode ----
  await check('a collaborator (external mode) sees Approve agents disabled, with the reason', async () => {
    const as = (who) => apiClient(external.web, { authorization: `Bearer ${idp.token(who)}` });
    const owner = as('owner');
    await as('collab')('GET', '/api/workspaces');
    const extWs = (await owner('POST', '/api/workspaces', { name: 'Team' })).id;
    await owner('POST', `/api/workspaces/${extWs}/members`, { userId: 'collab', role: 'collaborator' });
    const collab = watch(await (await browser.newContext({ viewport: { width: 1300, height: 900 } })).newPage());
    await collab.goto(`${external.web}/`);
    // The page signs in the way a deployment's front door would: the identity token once, then
    // the HttpOnly session cookie on every request.
    const signedIn = await collab.evaluate(async (token) => {
      const r = await fetch('/api/session', { method: 'POST', headers: { authorization: `Bearer ${token}` } });
      return { status: r.status, cookieVisible: document.cookie.includes('platform_session') };
    }, idp.token('collab'));
    assert.deepEqual(signedIn, { status: 200, cookieVisible: false });
    await collab.goto(`${external.web}/w/${extWs}`);
    await collab.getByLabel('Name').fill('Team forecast');
    await collab.getByLabel('What should it do?').fill('A forecast with an agent');
    await collab.getByTestId('create-app').click();
    const card = collab.locator('[data-card="agents"][data-status="awaiting_approval"]');
    await card.waitFor({ timeout: 60000 });
    const approve = card.getByRole('button', { name: 'Approve agents' });
    assert.equal(await approve.isDisabled(), true);
    assert.equal(await approve.getAttribute('title'), 'Only a workspace admin or owner can approve agents');
    await card.getByText('Only a workspace admin or owner can approve agents. You can request changes.').waitFor();
    assert.equal(await card.getByRole('button', { name: 'Request Changes' }).isEnabled(), true);
    await collab.getByTestId('composer-blocked').waitFor();
    await screenshot(collab, tmp, 'agents-card-collaborator');
  });

  await browser.close();
});
