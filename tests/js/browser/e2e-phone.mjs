// The builder page on a phone (issue 34): every screen at 390x844 and at 1440x900, with no
// sideways scrolling (document.documentElement.scrollWidth <= innerWidth, and no visible element
// reaching past the viewport's edges unless a scrolling or clipping box holds it). At phone
// width the sidebar is a drawer behind a labelled menu button: it takes focus, leaves the page
// behind it inert, and closes on Escape, on a tap outside, on its Close button and on
// navigation (and Back does not reopen it), focus going back to the button; on an app page chat
// and preview are two tabs of the Builder tab, each usable (the built app runs in the preview,
// the composer takes text), and the composer is on screen. At desktop width the sidebar is in
// the page and there is no menu button, no chat/preview tabs: chat and preview side by side, as
// before. A person builds the app on the phone (the demo provider's scenario: plan, approval,
// a real build, the agents card). Three platforms, one per scripted conversation: the build;
// an integrations sync (the integrations page and the OAuth client dialog); an app agent run
// (the run drawer). Screenshots phone-*.png and desktop-*.png of each screen
// (scripts/screenshots.sh puts them in docs/screenshots).
//
// Usage: node browser/e2e-phone.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import path from 'node:path';
import { endTurn, toolTurn, use, waitUntil } from '../harness.mjs';
import { apiClient, browserTest, launchBrowser, requireChromium, screenshot as save, startPlatform } from './platform.mjs';

requireChromium();
const t = browserTest('platform-phone-e2e-');
const { tmp, check, run, watch, buildDir, projectDir } = t;

const phone = { width: 390, height: 844 };
const desktop = { width: 1440, height: 900 };
const ws = 'default';

// ---- layout checks (run in the page) ----

/** What sticks out sideways: the document's scroll width, and each visible element whose box
 *  reaches past the viewport's left or right edge with no scrolling or clipping ancestor. */
function measureOverflow() {
  const vw = window.innerWidth;
  const held = (el) => {
    for (let a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
      if (getComputedStyle(a).overflowX !== 'visible') return true;
    }
    return false;
  };
  const name = (el) => {
    const id = el.id ? `#${el.id}` : '';
    const testId = el.dataset?.testid ? `[data-testid=${el.dataset.testid}]` : '';
    const cls = typeof el.className === 'string' && el.className ? `.${el.className.trim().split(/\s+/).slice(0, 4).join('.')}` : '';
    return `${el.tagName.toLowerCase()}${id}${testId}${cls}`;
  };
  const outside = [];
  for (const el of document.body.querySelectorAll('*')) {
    if (!el.checkVisibility({ visibilityProperty: true })) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if ((r.left < -1 || r.right > vw + 1 || r.width > vw + 1) && !held(el)) {
      outside.push(`${name(el)} (left ${Math.round(r.left)}, width ${Math.round(r.width)})`);
      if (outside.length >= 10) break;
    }
  }
  return { scrollWidth: document.documentElement.scrollWidth, innerWidth: vw, outside };
}

async function assertFits(page, what) {
  const m = await page.evaluate(measureOverflow);
  assert.ok(m.scrollWidth <= m.innerWidth, `${what}: the page scrolls sideways (scrollWidth ${m.scrollWidth} > ${m.innerWidth})`);
  assert.deepEqual(m.outside, [], `${what}: elements past the viewport's edges`);
}

const frames = (page, n = 2) => page.evaluate((k) => new Promise((r) => {
  const step = (i) => (i === 0 ? r() : requestAnimationFrame(() => step(i - 1)));
  step(k);
}), n);

async function resize(page, size) {
  await page.setViewportSize(size);
  await page.waitForFunction((w) => window.innerWidth === w, size.width);
  await frames(page);
}

/** A screenshot once no CSS transition runs (a button's colour, the drawer sliding in), with
 *  the mouse off the page's controls (a phone has no hover). */
async function screenshot(page, dir, name) {
  await page.mouse.move(page.viewportSize().width - 1, page.viewportSize().height - 1);
  await page.waitForFunction(() => document.getAnimations().every((a) => !(a instanceof CSSTransition) || a.playState !== 'running'));
  // A preview frame shown: the app in it loaded (it may have been loading while hidden) and painted.
  const preview = page.getByTestId('preview-frame');
  if ((await preview.count()) === 1 && (await preview.isVisible())) {
    const frame = await (await preview.elementHandle()).contentFrame();
    await frame?.waitForFunction(() => document.readyState === 'complete');
    await frame?.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  }
  return save(page, dir, name);
}

const appsNav = (page) => page.locator('nav[aria-label="Apps"]');
const menuButton = (page) => page.getByTestId('menu-button');

/** The page frame at desktop width: the sidebar in the page at the left edge, no menu button. */
async function assertDesktopFrame(page) {
  const nav = appsNav(page);
  assert.equal(await nav.isVisible(), true, 'no sidebar at desktop width');
  const box = await nav.boundingBox();
  assert.equal(Math.round(box.x), 0);
  assert.equal(Math.round(box.width), 256);
  assert.equal(await menuButton(page).isVisible(), false, 'a menu button at desktop width');
  assert.equal(await page.getByTestId('top-bar').isVisible(), false);
}

/** The same screen at 1440x900: fits, the desktop frame (where the screen has the sidebar),
 *  `more` checks, a screenshot; then back to the phone. */
async function atDesktop(page, name, { frame = true, more } = {}) {
  await resize(page, desktop);
  try {
    await assertFits(page, `desktop ${name}`);
    if (frame) await assertDesktopFrame(page);
    if (more) await more();
    await screenshot(page, tmp, `desktop-${name}`);
  } finally {
    await resize(page, phone);
  }
}

async function drawerOpen(page) {
  await appsNav(page).waitFor({ state: 'visible' });
  // Slid in all the way (a short transition).
  await page.waitForFunction(() => document.getElementById('sidebar')?.getBoundingClientRect().left === 0);
}

async function drawerClosed(page) {
  await appsNav(page).waitFor({ state: 'hidden' });
  assert.equal(await menuButton(page).getAttribute('aria-expanded'), 'false');
  assert.equal(await page.locator('main').getAttribute('inert'), null);
}

const focused = (page) => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.tagName);

// ---- the scripted conversations of platforms B (integrations) and C (an agent run) ----

const heredoc = (file, doc) => `cat > ${file} <<'EOF'\n${JSON.stringify(doc, null, 2)}\nEOF`;
const setupDoc = {
  integrations: [
    {
      name: 'Acme CRM',
      domain: 'acme-crm.example',
      keySlug: 'default',
      keyName: 'Acme CRM API key',
      capabilityLabel: 'Read and annotate CRM deals',
      why: 'The deal summarizer reads open deals and adds notes to them every morning.',
      permissionGroups: [{ name: 'Deals', description: 'Read deals and write notes', permissions: ['deals.read', 'notes.write', 'pipelines.read'] }],
      secrets: [
        { name: 'ACME_API_KEY', label: 'API key', description: 'Settings > API > New key', required: true },
        { name: 'ACME_REGION', label: 'Region', description: 'eu or us', required: false },
      ],
      setupInstructions: {
        overview: 'Create an API key with the Deals permission group.',
        steps: [{ title: 'Open API settings', description: 'Sign in as an admin.', url: 'https://app.acme-crm.example/settings/api/keys/new-key-with-a-long-address' }],
        links: [{ label: 'API docs', url: 'https://docs.acme-crm.example/api#keys' }],
      },
    },
  ],
};
const dealsAgents = {
  appTools: [
    {
      type: 'custom', name: 'contacts', displayName: 'CRM contacts', description: 'Lists the viewer’s CRM contacts.', enabled: true,
      integration: {
        name: 'Local CRM', domain: 'crm.example.com',
        auth: { type: 'oauth2', providerKey: 'localcrm', identity: 'triggering_user', authorizationUrl: 'https://crm.example.com/authorize', tokenUrl: 'https://crm.example.com/token', scopes: ['contacts.read', 'contacts.write'] },
      },
      endpoint: { method: 'GET', url: 'https://crm.example.com/api/contacts', queryParams: { q: '{{q}}' } },
      mockData: [{ id: 1 }, { id: 2 }, { id: 3 }],
    },
  ],
  agents: [],
};
const integrationTurns = [
  toolTurn(use('t_setup_file', 'Bash', { command: heredoc('integration-setup.json', setupDoc), description: 'Write integration-setup.json' })),
  toolTurn(use('t_setup', 'mcp__platform__present_integration_setup', {})),
  endTurn('Add the keys on the Integrations page.'),
];

const forecastAgents = {
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
const agentTurns = [
  toolTurn({ type: 'text', text: 'Checking the weather.' }, use('t_weather', 'mcp__app_tools__weather_now', { input: JSON.stringify({ city: 'Oslo' }) })),
  endTurn('Oslo is mild today: 21 °C, a light breeze from the fjord, no rain until the evening.'),
  endTurn('Nothing more.'),
];

run(async () => {
  const browser = await launchBrowser();

  // ---- platform A: the demo provider's build, on a phone ----
  const a = await startPlatform(t, { buildDir, projectDir, name: 'demo', scenarioFile: path.join(projectDir, 'examples/demo-provider/scenario.json'), demoProvider: true });
  const page = watch(await (await browser.newContext({ viewport: phone })).newPage());
  let appId;

  await check('phone: the new-app form fits 390 px, the sidebar is hidden behind a labelled menu button; desktop: the sidebar, no menu button', async () => {
    await page.goto(`${a.web}/`);
    await page.getByTestId('create-app').waitFor();
    await page.getByTestId('demo-banner').waitFor();
    const menu = page.getByRole('button', { name: 'Open menu' });
    assert.equal(await menu.isVisible(), true);
    assert.equal(await menu.getAttribute('aria-expanded'), 'false');
    assert.equal(await menu.getAttribute('aria-controls'), 'sidebar');
    assert.equal(await appsNav(page).isVisible(), false, 'the sidebar shows at phone width');
    await page.getByLabel('Name').fill('Tasks');
    await page.getByLabel('What should it do?').fill('A small task list where I can add tasks and tick them off.');
    // The form has the width of the phone, not of what the sidebar left (one word a line).
    const form = await page.locator('form').boundingBox();
    assert.ok(form.width >= 350, `the form is ${form.width} px wide`);
    await assertFits(page, 'phone new-app form');
    await screenshot(page, tmp, 'phone-new-app');
    await atDesktop(page, 'new-app', {
      more: async () => assert.ok((await page.locator('form').boundingBox()).x > 256),
    });
  });

  await check('phone: the menu opens the drawer (focus in it, the page behind inert); Escape, a tap outside and Close close it, focus back on the button', async () => {
    const menu = menuButton(page);
    await menu.click();
    await drawerOpen(page);
    assert.equal(await menu.getAttribute('aria-expanded'), 'true');
    await page.getByRole('dialog', { name: 'Menu' }).waitFor();
    assert.equal(await focused(page), 'menu-close');
    assert.equal(await page.locator('main').getAttribute('inert'), '');
    await assertFits(page, 'phone drawer');
    await page.keyboard.press('Escape');
    await drawerClosed(page);
    assert.equal(await focused(page), 'menu-button');

    await menu.click();
    await drawerOpen(page);
    // A tap on the page beside the drawer (the backdrop over it).
    await page.mouse.click(phone.width - 30, phone.height / 2);
    await drawerClosed(page);
    assert.equal(await focused(page), 'menu-button');

    await menu.click();
    await drawerOpen(page);
    await page.getByRole('button', { name: 'Close menu' }).click();
    await drawerClosed(page);
    // Still the new-app page, with what was typed.
    assert.equal(await page.getByLabel('Name').inputValue(), 'Tasks');
  });

  await check('phone: a person builds the app on a phone: plan, Approve & Build, the build cards, the agents card, all within 390 px', async () => {
    await page.getByTestId('create-app').click();
    const approve = page.getByRole('button', { name: 'Approve & Build' });
    await approve.waitFor({ timeout: 60000 });
    appId = new URL(page.url()).pathname.split('/')[4];
    await assertFits(page, 'phone plan card');
    await screenshot(page, tmp, 'phone-plan');
    await approve.click();
    await page.locator('[data-card="done-building"]').getByText('Built').waitFor({ timeout: 180000 });
    const agents = page.locator('[data-card="agents"][data-status="awaiting_approval"]');
    await agents.waitFor({ timeout: 60000 });
    await page.getByTestId('composer-blocked').waitFor();
    await assertFits(page, 'phone agents card');
    await screenshot(page, tmp, 'phone-agents-card');
    await agents.getByRole('button', { name: 'Approve agents' }).click();
    await page.getByText('the Planner agent is approved').waitFor({ timeout: 60000 });
    await page.waitForSelector('[data-testid="composer"]:not([disabled])');
    // The terminal cards (open, as they streamed): command and output wrap or scroll inside.
    assert.ok(await page.getByTestId('terminal-output').first().isVisible());
    await assertFits(page, 'phone terminal cards');
    await page.getByTestId('messages').evaluate((el) => { el.scrollTop = el.scrollHeight; });
    await frames(page);
    const composer = await page.getByTestId('composer').boundingBox();
    assert.ok(composer.y >= 0 && composer.y + composer.height <= phone.height, `the composer is off screen: ${JSON.stringify(composer)}`);
    assert.ok(composer.width >= 330, `the composer is ${composer.width} px wide`);
    await assertFits(page, 'phone app chat');
    await screenshot(page, tmp, 'phone-app-chat');
  });

  await check('phone: chat and preview are two tabs; the built app runs in the preview; the composer is one tap away. Desktop: side by side, no tabs', async () => {
    const preview = page.getByRole('region', { name: 'Preview' });
    const messages = page.getByTestId('messages');
    assert.equal(await preview.isVisible(), false);
    assert.equal(await page.getByTestId('pane-chat').getAttribute('aria-selected'), 'true');
    await page.getByRole('tab', { name: 'Preview' }).click();
    assert.equal(await page.getByTestId('pane-preview').getAttribute('aria-selected'), 'true');
    const frame = page.frameLocator('[data-testid="preview-frame"]');
    await frame.getByRole('heading', { name: 'Tasks' }).waitFor();
    assert.equal(await messages.isVisible(), false);
    const box = await page.getByTestId('preview-frame').boundingBox();
    assert.ok(box.x >= 0 && box.x + box.width <= phone.width && box.width >= 340, `the preview frame: ${JSON.stringify(box)}`);
    assert.ok(box.height >= 500, `the preview frame is ${box.height} px high`);
    await frame.getByPlaceholder('Add a task').fill('Tap it on a phone');
    await frame.getByRole('button', { name: 'Add' }).click();
    await frame.getByText('Tap it on a phone').waitFor();
    await assertFits(page, 'phone app preview');
    await screenshot(page, tmp, 'phone-app-preview');

    await page.getByRole('tab', { name: 'Chat' }).click();
    await messages.waitFor({ state: 'visible' });
    assert.equal(await preview.isVisible(), false);
    const composer = page.getByTestId('composer');
    await composer.fill('Make the checkboxes bigger');
    assert.equal(await page.getByTestId('send').isEnabled(), true);
    await composer.fill('');

    await atDesktop(page, 'app', {
      more: async () => {
        assert.equal(await page.getByTestId('pane-switch').isVisible(), false);
        assert.equal(await preview.isVisible(), true);
        assert.equal(await messages.isVisible(), true);
        const chatBox = await messages.boundingBox();
        const previewBox = await preview.boundingBox();
        assert.ok(previewBox.x >= chatBox.x + chatBox.width, 'the preview is not beside the chat');
        assert.ok(previewBox.x + previewBox.width <= desktop.width + 1);
        await frame.getByText('Tap it on a phone').waitFor();
      },
    });
    // Between md and lg (a tablet): the sidebar in the page, chat and preview still two tabs.
    await resize(page, { width: 820, height: 1180 });
    try {
      await assertFits(page, 'tablet app');
      assert.equal(await appsNav(page).isVisible(), true);
      assert.equal(await menuButton(page).isVisible(), false);
      assert.equal(await page.getByTestId('pane-switch').isVisible(), true);
      assert.equal(await messages.isVisible(), true);
      assert.equal(await preview.isVisible(), false);
      await screenshot(page, tmp, 'tablet-app');
    } finally {
      await resize(page, phone);
    }
    // Preview chosen on the phone, then the desktop: both again; back on the phone, the preview tab.
    await page.getByRole('tab', { name: 'Preview' }).click();
    await resize(page, desktop);
    assert.equal(await messages.isVisible(), true);
    assert.equal(await preview.isVisible(), true);
    await resize(page, phone);
    assert.equal(await messages.isVisible(), false);
    await page.getByRole('tab', { name: 'Chat' }).click();
  });

  await check('phone: the drawer lists the app and navigates (+ New app, the app, Model providers), closing each time; Back does not reopen it', async () => {
    await menuButton(page).click();
    await drawerOpen(page);
    const drawer = page.getByRole('dialog', { name: 'Menu' });
    const link = drawer.getByRole('link', { name: 'Tasks' });
    assert.equal(await link.getAttribute('aria-current'), 'page');
    await assertFits(page, 'phone drawer');
    await screenshot(page, tmp, 'phone-drawer');
    await drawer.getByRole('button', { name: '+ New app' }).click();
    await page.waitForURL(`${a.web}/w/${ws}`);
    await drawerClosed(page);
    await page.getByTestId('create-app').waitFor();

    await menuButton(page).click();
    await drawerOpen(page);
    await link.click();
    await page.waitForURL(`${a.web}/w/${ws}/apps/${appId}`);
    await drawerClosed(page);
    await page.getByTestId('app-name').waitFor();
    await page.goBack();
    await page.waitForURL(`${a.web}/w/${ws}`);
    await page.getByTestId('create-app').waitFor();
    assert.equal(await appsNav(page).isVisible(), false, 'Back reopened the drawer');
    await page.goForward();
    await page.getByTestId('app-name').waitFor();
    assert.equal(await appsNav(page).isVisible(), false, 'Forward reopened the drawer');
  });

  await check('phone and desktop: the Runs and Agents tabs fit', async () => {
    await page.getByTestId('tab-runs').click();
    await page.getByTestId('runs-list').getByText('Completed').waitFor();
    assert.equal(await page.getByTestId('pane-switch').count(), 0, 'chat/preview tabs on the Runs tab');
    await assertFits(page, 'phone runs');
    await screenshot(page, tmp, 'phone-runs');
    await atDesktop(page, 'runs');

    await page.getByTestId('tab-agents').click();
    await page.getByTestId('agent-planner').waitFor();
    await assertFits(page, 'phone agents');
    await screenshot(page, tmp, 'phone-agents');
    await atDesktop(page, 'agents');

    await page.getByTestId('tab-integrations').click();
    await page.getByTestId('integrations-page').getByText('This app needs no secrets yet.').waitFor();
    await assertFits(page, 'phone integrations (none)');
  });

  await check('phone and desktop: the Members and Publish dialogs fit; publishing from the phone; the published page fits', async () => {
    await page.getByTestId('tab-chat').click();
    await page.getByTestId('members-button').click();
    const members = page.getByTestId('members-dialog');
    await members.locator('li').first().waitFor();
    await assertFits(page, 'phone members dialog');
    await screenshot(page, tmp, 'phone-members-dialog');
    await atDesktop(page, 'members-dialog');
    await page.keyboard.press('Escape');
    await members.waitFor({ state: 'detached' });

    await page.getByTestId('publish-button').click();
    const dialog = page.getByTestId('publish-dialog');
    await dialog.getByTestId('publish-readiness').waitFor();
    await assertFits(page, 'phone publish dialog');
    await screenshot(page, tmp, 'phone-publish-dialog');
    await atDesktop(page, 'publish-dialog');
    await dialog.getByTestId('publish-now').click();
    await dialog.getByTestId('publish-done').waitFor({ timeout: 60000 });
    await dialog.getByTestId('published-link').waitFor();
    await assertFits(page, 'phone publish dialog, published');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    await page.goto(`${a.web}/w/${ws}/apps/${appId}/live`);
    const live = page.frameLocator('[data-testid="preview-frame"]');
    await live.getByRole('heading', { name: 'Tasks' }).waitFor({ timeout: 30000 });
    await assertFits(page, 'phone published page');
    await screenshot(page, tmp, 'phone-published');
    await atDesktop(page, 'published', { frame: false });
  });

  await check('phone and desktop: the Model providers page fits (reached from the drawer)', async () => {
    await page.goto(`${a.web}/w/${ws}/apps/${appId}`);
    await page.getByTestId('app-name').waitFor();
    await menuButton(page).click();
    await drawerOpen(page);
    await page.getByRole('dialog', { name: 'Menu' }).getByRole('link', { name: 'Model providers' }).click();
    await page.waitForURL(`${a.web}/onboarding/provider`);
    await page.getByTestId('runtime-runtime-a').waitFor({ timeout: 60000 });
    await page.getByTestId('demo-note').waitFor();
    await assertFits(page, 'phone model providers');
    await screenshot(page, tmp, 'phone-onboarding');
    await atDesktop(page, 'onboarding', { frame: false });
  });

  // ---- platform B: an integrations sync (the builder's turn) and an OAuth app tool ----
  const b = await startPlatform(t, { buildDir, projectDir, name: 'int', turns: integrationTurns });
  const callB = apiClient(b.web);
  const deals = await callB('POST', `/api/workspaces/${ws}/apps`, { name: 'Deals' });
  const dealsPath = `/api/workspaces/${ws}/apps/${deals.id}`;
  const intPage = watch(await (await browser.newContext({ viewport: phone })).newPage());

  await check('phone and desktop: the integrations page (grants as the builder synced them, OAuth accounts) and the OAuth client dialog fit', async () => {
    const patched = await callB('PATCH', `${dealsPath}/agents`, dealsAgents);
    assert.equal(patched.valid, true, JSON.stringify(patched.problems));
    const runId = (await callB('POST', `${dealsPath}/runs`, {})).id;
    const res = await fetch(`${b.web}${dealsPath}/runs/${runId}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Summarize my CRM deals every morning' }] }] }),
    });
    assert.equal(res.status, 200);
    await res.text();

    await intPage.goto(`${b.web}/w/${ws}/apps/${deals.id}/integrations`);
    const crm = intPage.getByTestId('integration-acme-crm.example-default');
    await crm.waitFor({ timeout: 30000 });
    await crm.getByText('How to get it').click();
    await crm.getByText('Create an API key with the Deals permission group.').waitFor();
    await intPage.getByTestId('oauth-localcrm').waitFor();
    await assertFits(intPage, 'phone integrations');
    await screenshot(intPage, tmp, 'phone-integrations');
    await atDesktop(intPage, 'integrations');

    await intPage.getByTestId('oauth-client-localcrm').click();
    const dialog = intPage.getByRole('dialog');
    await dialog.getByTestId('oauth-client-form').waitFor();
    await assertFits(intPage, 'phone OAuth client dialog');
    await screenshot(intPage, tmp, 'phone-oauth-client-dialog');
    await atDesktop(intPage, 'oauth-client-dialog');
    await intPage.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  // ---- platform C: an app agent run, opened in the run drawer ----
  const c = await startPlatform(t, { buildDir, projectDir, name: 'agent', turns: agentTurns });
  const callC = apiClient(c.web);
  const forecast = await callC('POST', `/api/workspaces/${ws}/apps`, { name: 'Forecast' });
  const forecastPath = `/api/workspaces/${ws}/apps/${forecast.id}`;
  const runPage = watch(await (await browser.newContext({ viewport: phone })).newPage());

  await check('phone and desktop: the Runs tab lists the agent run and the run drawer fits', async () => {
    const patched = await callC('PATCH', `${forecastPath}/agents`, forecastAgents);
    assert.equal(patched.valid, true, JSON.stringify(patched.problems));
    await callC('POST', `${forecastPath}/agents/approval`, { approvalHash: (await callC('GET', `${forecastPath}/agents`)).draftHash });
    const agentRun = await callC('POST', `${forecastPath}/agent-runs`, { agentId: 'forecaster', prompt: 'Forecast for Oslo', draft: true });
    await callC('POST', `${forecastPath}/agent-runs/${agentRun.id}/stream?startOnly=1`, undefined, 202);
    await waitUntil('the agent run completed', async () => (await callC('GET', `${forecastPath}/agent-runs/${agentRun.id}`)).status === 'completed', 60000, 200);

    await runPage.goto(`${c.web}/w/${ws}/apps/${forecast.id}/runs`);
    const row = runPage.getByTestId(`agent-run-${agentRun.id}`);
    await row.getByText('Completed').waitFor();
    await assertFits(runPage, 'phone runs with an agent run');
    await row.click();
    const drawer = runPage.getByTestId('agent-run-drawer');
    await drawer.getByTestId('agent-run-messages').getByText('mild today').waitFor();
    const card = drawer.locator('[data-card="app-tool"]');
    await card.getByRole('button').first().click();
    await card.locator('pre').first().waitFor();
    const box = await drawer.boundingBox();
    assert.ok(box.x >= 0 && box.width <= phone.width, `the drawer: ${JSON.stringify(box)}`);
    await assertFits(runPage, 'phone run drawer');
    await screenshot(runPage, tmp, 'phone-run-drawer');
    await atDesktop(runPage, 'run-drawer');
    await drawer.getByTestId('agent-run-drawer-close').click();
    await drawer.waitFor({ state: 'detached' });
  });

  await browser.close();
});
