// The Agents tab of an app, in a real browser against the real servers in external sign-in
// mode (spec "agents.json" tool fields enabled/recommended, "Agent config approval",
// "Authentication" 2). The agents.json is the builder's: a scripted builder turn writes it with
// a Bash heredoc and presents it (present_agents), and the turn's snapshot makes it the draft.
// Covers: the Agents tab opened while that turn runs shows the agents once it ends (no reload);
// the owner (the app's creator) sees every agent with its tools in the file's order, the Highly
// Recommended badge on exactly the tools marked so, and "Not approved" while nobody approved;
// an admin approves on the page and both see "Approved by ada"; the creator switches a tool
// off: the PATCH carries the whole file with that one tool flipped, the server and the
// builder's workspace have it, the row says Disabled and the approval turns stale with its
// warning, all still so after a reload; a collaborator sees the same agents read-only (every
// switch disabled, no PATCH, the server refuses one too, no Approve) while a collaborator who
// created an app may switch its tools; with the worker gone, a switch is kept in the draft and
// the page warns that the builder's workspace did not get it.
//
// Usage: node browser/e2e-agents-page.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { identityProvider, toolTurn, use } from '../harness.mjs';
import { apiClient, browserTest, createRun, launchBrowser, requireChromium, screenshot, signedInContext, startPlatform } from './platform.mjs';

requireChromium();
const t = browserTest('platform-agents-page-e2e-');
const { check, watch, run, tmp } = t;

const custom = (name, fields) => ({
  type: 'custom',
  name,
  description: `${name} of a city. Input: {"city": "Oslo"}.`,
  integration: { name: 'Weather Demo', domain: 'weather.example.org' },
  endpoint: { method: 'GET', url: `https://weather.example.org/v1/${name}`, headers: { 'X-Api-Key': '{{secrets.WEATHER_KEY}}' }, queryParams: { city: '{{city}}' } },
  mockData: [{ v: 1 }, { v: 2 }, { v: 3 }],
  ...fields,
});
// Two agents (custom tools and builtin tools cannot share one) and an app action; tools with
// recommended true, false and absent, enabled true and absent.
const agentsDoc = {
  agents: [
    {
      id: 'forecaster',
      name: 'Forecaster',
      description: 'Writes a short forecast.',
      systemPrompt: 'Call weather_now, then write one sentence.',
      dataCollections: ['forecasts'],
      tools: [
        custom('weather_now', { displayName: 'Current weather', enabled: true, recommended: true }),
        custom('air_quality', { displayName: 'Air quality', enabled: true }),
      ],
    },
    {
      id: 'researcher',
      name: 'Researcher',
      description: 'Looks things up on the web.',
      systemPrompt: 'Search, then summarize.',
      tools: [
        { type: 'builtin', name: 'WebSearch', displayName: 'Web search', enabled: true, recommended: true },
        { type: 'builtin', name: 'WebFetch', recommended: false },
      ],
    },
  ],
  appTools: [custom('log_reading', { displayName: 'Log a reading', endpoint: { method: 'POST', url: 'https://weather.example.org/v1/readings' }, enabled: true })],
};
const heredoc = (file, doc) => `cat > ${file} <<'EOF'\n${JSON.stringify(doc, null, 2)}\nEOF`;
const turns = [
  toolTurn(use('t_agents', 'Bash', { command: heredoc('agents.json', agentsDoc), description: 'Write agents.json' })),
  // Held after the file is written, before it is presented: the Agents tab is opened meanwhile.
  toolTurn({ type: 'pause', name: 'present' }, use('t_present', 'mcp__platform__present_agents', {})),
];

/** What the page shows of each section: its tools by name, with the badge, state and switch. */
const shownTools = (page, section) =>
  page
    .getByTestId(section)
    .locator('li[data-testid^="tool-"]')
    .evaluateAll((rows) =>
      rows.map((row) => {
        const name = row.dataset.testid.slice('tool-'.length);
        const toggle = row.querySelector('[role="switch"]');
        return {
          name,
          enabled: row.dataset.enabled === 'true',
          recommended: [...row.querySelectorAll('span')].some((s) => s.textContent === 'Highly Recommended'),
          checked: toggle.getAttribute('aria-checked') === 'true',
          disabled: toggle.disabled,
        };
      }),
    );
/** The same, as the file says it should be. */
const expectedTools = (tools, { disabled, off = [] }) =>
  tools.map((tool) => ({ name: tool.name, enabled: !off.includes(tool.name), recommended: tool.recommended === true, checked: !off.includes(tool.name), disabled }));

run(async () => {
  const idp = identityProvider();
  const p = await startPlatform(t, { buildDir: t.buildDir, projectDir: t.projectDir, turns, name: 'ext', webEnv: idp.env });
  const as = (who) => apiClient(p.web, { authorization: `Bearer ${idp.token(who)}` });
  const owner = as('owner');
  const ws = (await owner('POST', '/api/workspaces', { name: 'Team' })).id;
  await owner('POST', `/api/workspaces/${ws}/members`, { userId: 'ada', role: 'admin' });
  await owner('POST', `/api/workspaces/${ws}/members`, { userId: 'collab', role: 'collaborator' });
  const routes = await createRun(p.web, 'Forecast', { ws, call: owner });
  const A = `/api/workspaces/${ws}/apps/${routes.app.id}`;
  const agentsTab = `${p.web}/w/${ws}/apps/${routes.app.id}/agents`;
  const workspaceFile = path.join(p.dataDir, 'worker', 'workspaces', routes.app.id, 'agents.json');

  const browser = await launchBrowser();
  const signedInPage = async (who) => watch((await signedInContext(browser, p.web, idp.token(who), { viewport: { width: 1300, height: 1100 } })).page);
  const ownerPage = await signedInPage('owner');
  const agentsPatches = (page) => {
    const seen = [];
    page.on('request', (r) => {
      if (r.method() === 'PATCH' && new URL(r.url()).pathname.endsWith('/agents')) seen.push(r);
    });
    return seen;
  };
  const ownerPatches = agentsPatches(ownerPage);
  const state = (page) => page.getByTestId('approval-state');

  await check('the builder writes agents.json in a turn: the Agents tab, opened meanwhile, shows it once the turn ends', async () => {
    await ownerPage.goto(routes.page);
    await ownerPage.getByTestId('composer').fill('Give the app a forecaster and a researcher');
    await ownerPage.getByTestId('send').click();
    await ownerPage.locator('[data-card="terminal"]').waitFor({ timeout: 120000 });
    // The card shows as soon as the command starts; `cat >` creates the file before it writes it,
    // so wait for a document that parses, not for the file (a cut one never parses).
    const written = () => {
      try {
        return JSON.parse(fs.readFileSync(workspaceFile, 'utf8'));
      } catch {
        return undefined;
      }
    };
    for (let i = 0; i < 100 && written() === undefined; i++) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(written(), agentsDoc);
    // The turn goes on without the chat on screen; its snapshot is not the draft yet.
    await ownerPage.getByTestId('tab-agents').click();
    await ownerPage.waitForURL(agentsTab);
    await ownerPage.getByTestId('agents-empty').waitFor();
    // Text written for the model (the validator's "call present_agents again") is not shown to a person.
    const tab = await ownerPage.getByTestId('agents-page').innerText();
    assert.ok(!/present_agents|mcp__/.test(tab), tab);
    assert.equal(await ownerPage.getByTestId('agents-page-problems').count(), 0);
    assert.match(tab, /This app has no agents yet/);
    assert.equal((await owner('GET', routes.chat)).status, 'streaming');
    await p.model.release('present');
    // The turn ends (the builder presents the agents: an approval stop) and the tab follows.
    await ownerPage.getByTestId('agent-forecaster').waitFor({ timeout: 60000 });
    assert.equal(await ownerPage.getByTestId('agents-empty').count(), 0);
    assert.equal((await owner('GET', routes.chat)).status, 'completed');
    const view = await owner('GET', `${A}/agents`);
    assert.equal(view.scope, 'draft');
    assert.equal(view.valid, true, JSON.stringify(view.problems));
    assert.deepEqual(view.agentsJson, agentsDoc);
    assert.equal(view.approvalStatus, 'none');
    await ownerPage.getByTestId('tab-chat').click();
    await ownerPage.locator('[data-card="agents"][data-status="awaiting_approval"]').waitFor();
    await ownerPage.getByTestId('composer-blocked').waitFor();
  });

  await check('owner: every agent with its tools in order, Highly Recommended on exactly the marked tools, Not approved', async () => {
    await ownerPage.getByTestId('tab-agents').click();
    await ownerPage.waitForURL(agentsTab);
    await ownerPage.getByTestId('agent-forecaster').waitFor();
    const sections = await ownerPage.locator('[data-testid="agents-page"] section').evaluateAll((els) => els.map((el) => el.dataset.testid));
    assert.deepEqual(sections, ['agent-forecaster', 'agent-researcher', 'app-actions']);
    for (const agent of agentsDoc.agents) {
      const section = ownerPage.getByTestId(`agent-${agent.id}`);
      assert.equal(await section.locator('h3').innerText(), agent.name);
      await section.getByText(agent.description).waitFor();
      assert.deepEqual(await shownTools(ownerPage, `agent-${agent.id}`), expectedTools(agent.tools, { disabled: false }));
    }
    assert.deepEqual(await shownTools(ownerPage, 'app-actions'), expectedTools(agentsDoc.appTools, { disabled: false }));
    // The badge is on two tools of the five, and nowhere else on the page.
    assert.equal(await ownerPage.getByTestId('agents-page').getByText('Highly Recommended', { exact: true }).count(), 2);
    assert.equal(await ownerPage.getByTestId('tool-endpoint-weather_now').innerText(), 'GET weather.example.org');
    assert.equal(await ownerPage.getByTestId('tool-endpoint-log_reading').innerText(), 'POST weather.example.org');
    await ownerPage.getByTestId('agent-forecaster').getByText('Data: forecasts').waitFor();

    assert.equal(await state(ownerPage).getAttribute('data-status'), 'none');
    await state(ownerPage).getByText('Not approved', { exact: true }).waitFor();
    await state(ownerPage).getByText(/stay blocked until a workspace admin or owner approves these agents/).waitFor();
    assert.equal(await ownerPage.getByTestId('approval-stale').count(), 0);
    await ownerPage.getByTestId('approve-agents').waitFor();
    assert.equal(ownerPatches.length, 0);
    await screenshot(ownerPage, tmp, 'agents-page-not-approved');
  });

  const adaPage = await signedInPage('ada');
  await check('an admin approves on the page: Approved by ada, for the admin and the owner', async () => {
    await adaPage.goto(agentsTab);
    await adaPage.getByTestId('agent-forecaster').waitFor();
    assert.equal(await state(adaPage).getAttribute('data-status'), 'none');
    await adaPage.getByTestId('approve-agents').click();
    await adaPage.locator('[data-testid="approval-state"][data-status="approved"]').getByText(/^by you on /).waitFor();
    await state(adaPage).getByText('Approved', { exact: true }).waitFor();
    assert.equal(await adaPage.getByTestId('approve-agents').count(), 0);
    const view = await owner('GET', `${A}/agents`);
    assert.equal(view.approvalStatus, 'approved');
    assert.equal(view.approvedBy, 'ada');
    assert.equal(view.approvedHash, view.draftHash);

    await ownerPage.reload();
    await ownerPage.locator('[data-testid="approval-state"][data-status="approved"]').getByText(/^by ada on /).waitFor();
    assert.equal(await ownerPage.getByTestId('approve-agents').count(), 0);
    assert.equal(await ownerPage.getByTestId('approval-stale').count(), 0);
  });

  await check('the creator switches a tool off: the PATCH reaches the server and the workspace, the approval turns stale; both stay after a reload', async () => {
    const toggle = ownerPage.getByTestId('tool-toggle-air_quality');
    const [response] = await Promise.all([
      ownerPage.waitForResponse((r) => r.url() === `${p.web}${A}/agents` && r.request().method() === 'PATCH'),
      toggle.click(),
    ]);
    assert.equal(response.status(), 200);
    const expected = structuredClone(agentsDoc);
    expected.agents[0].tools[1].enabled = false;
    // The whole file goes back, with this one tool flipped and every other field as it was.
    assert.deepEqual(response.request().postDataJSON(), expected);
    const reply = await response.json();
    assert.equal(reply.workerSynced, true);
    assert.equal(reply.approvalStatus, 'stale');
    assert.equal(ownerPatches.length, 1);

    const row = ownerPage.getByTestId('tool-air_quality');
    await ownerPage.locator('[data-testid="tool-air_quality"][data-enabled="false"]').getByText('Disabled', { exact: true }).waitFor();
    assert.equal(await toggle.getAttribute('aria-checked'), 'false');
    assert.match(await row.innerText(), /Air quality/);
    const stale = ownerPage.getByTestId('approval-stale');
    await stale.waitFor();
    assert.equal(await state(ownerPage).getAttribute('data-status'), 'stale');
    await state(ownerPage).getByText('Stale', { exact: true }).waitFor();
    assert.match(await stale.innerText(), /^Stale: an admin must re-approve\./);
    assert.match(await stale.innerText(), /changed after it was approved by ada on /);
    assert.match(await stale.innerText(), /custom HTTP tools, the app actions and agent data tools stay blocked/);
    assert.equal(await ownerPage.getByTestId('worker-sync-warning').count(), 0);
    // The owner may approve the changed file again.
    await ownerPage.getByTestId('approve-agents').waitFor();
    await screenshot(ownerPage, tmp, 'agents-page-stale');

    const view = await owner('GET', `${A}/agents`);
    assert.deepEqual(view.agentsJson, expected);
    assert.equal(view.approvalStatus, 'stale');
    assert.notEqual(view.draftHash, view.approvedHash);
    // The builder's next turn starts from the workspace: it has the switch too.
    assert.deepEqual(JSON.parse(fs.readFileSync(workspaceFile, 'utf8')), expected);

    await ownerPage.reload();
    await ownerPage.locator('[data-testid="approval-state"][data-status="stale"]').waitFor();
    await ownerPage.getByTestId('approval-stale').waitFor();
    assert.deepEqual(await shownTools(ownerPage, 'agent-forecaster'), expectedTools(agentsDoc.agents[0].tools, { disabled: false, off: ['air_quality'] }));
    assert.deepEqual(await shownTools(ownerPage, 'agent-researcher'), expectedTools(agentsDoc.agents[1].tools, { disabled: false }));
    assert.equal(ownerPatches.length, 1);
  });

  await check('a collaborator sees the agents read-only: switches disabled, no PATCH (the server refuses one), no Approve', async () => {
    const collabPage = await signedInPage('collab');
    const collabPatches = agentsPatches(collabPage);
    await collabPage.goto(agentsTab);
    await collabPage.getByTestId('agent-forecaster').waitFor();
    await collabPage.locator('[data-testid="approval-state"][data-status="stale"]').waitFor();
    await collabPage.getByTestId('approval-stale').waitFor();
    assert.deepEqual(await shownTools(collabPage, 'agent-forecaster'), expectedTools(agentsDoc.agents[0].tools, { disabled: true, off: ['air_quality'] }));
    assert.deepEqual(await shownTools(collabPage, 'agent-researcher'), expectedTools(agentsDoc.agents[1].tools, { disabled: true }));
    assert.deepEqual(await shownTools(collabPage, 'app-actions'), expectedTools(agentsDoc.appTools, { disabled: true }));
    assert.equal(await collabPage.getByTestId('agents-page').getByText('Highly Recommended', { exact: true }).count(), 2);
    const toggle = collabPage.getByTestId('tool-toggle-weather_now');
    assert.equal(await toggle.getAttribute('title'), 'Only a workspace admin or owner, or the app’s creator, can switch tools');
    await collabPage.getByText('Only a workspace admin or owner, or the app’s creator, can switch tools.', { exact: true }).waitFor();
    await collabPage.getByText('Only a workspace admin or owner can approve agents.', { exact: true }).waitFor();
    assert.equal(await collabPage.getByTestId('approve-agents').count(), 0);
    // A click on the disabled switch does nothing.
    await toggle.click({ force: true });
    await collabPage.waitForTimeout(300);
    assert.equal(collabPatches.length, 0);
    assert.equal(await collabPage.getByTestId('tool-weather_now').getAttribute('data-enabled'), 'true');
    await screenshot(collabPage, tmp, 'agents-page-collaborator');
    // The page's rule is the server's.
    const collab = as('collab');
    const refused = structuredClone(agentsDoc);
    refused.agents[0].tools[0].enabled = false;
    await collab('PATCH', `${A}/agents`, refused, 403);
    assert.equal((await owner('GET', `${A}/agents`)).agentsJson.agents[0].tools[0].enabled, true);

    // The app's creator may switch tools even as a collaborator.
    const own = await collab('POST', `/api/workspaces/${ws}/apps`, { name: 'Own forecast' });
    await collab('PATCH', `/api/workspaces/${ws}/apps/${own.id}/agents`, agentsDoc);
    await collabPage.goto(`${p.web}/w/${ws}/apps/${own.id}/agents`);
    await collabPage.getByTestId('agent-forecaster').waitFor();
    assert.deepEqual(await shownTools(collabPage, 'agent-forecaster'), expectedTools(agentsDoc.agents[0].tools, { disabled: false }));
    assert.equal(await collabPage.getByText('Only a workspace admin or owner, or the app’s creator, can switch tools.', { exact: true }).count(), 0);
  });

  await check('with the worker gone, a switch is kept in the draft and the page warns that the builder’s workspace did not get it', async () => {
    p.workerProcess.kill('SIGKILL');
    await new Promise((resolve) => (p.workerProcess.exitCode !== null || p.workerProcess.signalCode !== null ? resolve() : p.workerProcess.once('exit', resolve)));
    const [response] = await Promise.all([
      ownerPage.waitForResponse((r) => r.url() === `${p.web}${A}/agents` && r.request().method() === 'PATCH'),
      ownerPage.getByTestId('tool-toggle-air_quality').click(),
    ]);
    assert.equal(response.status(), 200);
    assert.equal((await response.json()).workerSynced, false);
    const warning = ownerPage.getByTestId('worker-sync-warning');
    await warning.waitFor();
    // Said for the person, not as the reply's code (worker_unreachable).
    assert.match(await warning.innerText(), /^Saved in the draft, but the builder’s workspace was not updated: its worker did not answer\./);
    assert.doesNotMatch(await warning.innerText(), /worker_unreachable/);
    assert.match(await warning.innerText(), /The next builder turn would undo this change\./);
    await ownerPage.locator('[data-testid="tool-air_quality"][data-enabled="true"]').waitFor();
    assert.equal((await owner('GET', `${A}/agents`)).agentsJson.agents[0].tools[1].enabled, true);
    // The workspace still has the switch off.
    assert.equal(JSON.parse(fs.readFileSync(workspaceFile, 'utf8')).agents[0].tools[1].enabled, false);
    await screenshot(ownerPage, tmp, 'agents-page-worker-sync');
  });

  await browser.close();
});
