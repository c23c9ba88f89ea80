// The integrations settings page (issue 16: "this app's grants as the builder synced them,
// write-only secrets, OAuth connect") in a real browser against the real servers in external
// sign-in mode, with an OAuth authorization server stand-in on 127.0.0.1 written below (a
// consent page with Allow and Deny, a token endpoint checking the client secret and PKCE),
// allow-listed for the web's token client through PLATFORM_HTTP_ACTION_ALLOW. The browser
// reaches its consent page as `localhost`, another site than the page's 127.0.0.1, so it comes
// back to the callback without the SameSite=Strict session cookie, as from a real provider.
// Covers:
// - the grants appear as the builder synced them: a collaborator's builder turn (the real
//   Claude Code CLI) writes integration-setup.json and calls present_integration_setup, and the
//   owner's page shows each integration's name, domain and key slug, capability, why, key name,
//   permission groups, setup steps and secrets;
// - a secret saved by the owner is Configured and its value is in no part of the page, before
//   and after a reload; the app's creator (a collaborator) sees no inputs, and why;
// - the owner registers the provider's OAuth client in a dialog (errors as sentences, the
//   redirect URI to register shown); the client secret is not in the page after saving, nor
//   when the dialog opens again to change the client; a collaborator has no such button, and
//   reads why nobody can connect yet;
// - Connect is a navigation through the stand-in's consent page and back: with a wrong client
//   secret, after Deny, and with a forged state the page says in a sentence what happened and
//   who can fix it (never JSON); with the right client, Allow connects (PKCE and the client
//   secret checked by the stand-in) and the page says so, also after a reload.
//
// Usage: node browser/e2e-integrations-page.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import http from 'node:http';
import { endTurn, identityProvider, toolTurn, use } from '../harness.mjs';
import { apiClient, browserTest, launchBrowser, requireChromium, screenshot, signedInContext, startPlatform } from './platform.mjs';

requireChromium();
const t = browserTest('platform-integrations-page-e2e-');
const { check, watch, run, tmp } = t;

const CLIENT_ID = 'crm-client-e2e';
const CLIENT_SECRET = `client-secret-${crypto.randomBytes(8).toString('hex')}-do-not-show`;
const WRONG_SECRET = `mistyped-secret-${crypto.randomBytes(8).toString('hex')}-do-not-show`;
const API_KEY = `acme-key-${crypto.randomBytes(8).toString('hex')}-do-not-show`;

// ---- the OAuth authorization server stand-in ----
const provider = { codes: new Map(), exchanges: [], tokens: new Set() };
const readBody = (req) => new Promise((resolve) => {
  let b = '';
  req.on('data', (d) => { b += d; });
  req.on('end', () => resolve(b));
});
const sendJson = (res, status, obj) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(obj));
};
const escape = (s) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

async function providerHandler(req, res) {
  const u = new URL(req.url, 'http://127.0.0.1');
  if (u.pathname === '/authorize') {
    const q = u.searchParams;
    if (q.get('response_type') !== 'code' || q.get('client_id') !== CLIENT_ID || q.get('code_challenge_method') !== 'S256' || !q.get('state')) {
      return sendJson(res, 400, { error: 'invalid_request' });
    }
    const code = crypto.randomBytes(12).toString('hex');
    provider.codes.set(code, { challenge: q.get('code_challenge'), redirectUri: q.get('redirect_uri'), scope: q.get('scope') });
    const back = (params) => {
      const to = new URL(q.get('redirect_uri'));
      for (const [k, v] of Object.entries({ ...params, state: q.get('state') })) to.searchParams.set(k, v);
      return escape(to.toString());
    };
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    return res.end(`<!doctype html><title>Local CRM</title><h1>Local CRM</h1>
<p>The platform asks to: <code id="scope">${escape(q.get('scope') ?? '')}</code></p>
<a id="allow" href="${back({ code })}">Allow</a> <a id="deny" href="${back({ error: 'access_denied' })}">Deny</a>`);
  }
  if (u.pathname === '/token' && req.method === 'POST') {
    const f = new URLSearchParams(await readBody(req));
    provider.exchanges.push({ grant: f.get('grant_type'), clientSecretOk: f.get('client_secret') === CLIENT_SECRET });
    if (f.get('client_id') !== CLIENT_ID || f.get('client_secret') !== CLIENT_SECRET) return sendJson(res, 401, { error: 'invalid_client' });
    const c = provider.codes.get(f.get('code'));
    provider.codes.delete(f.get('code'));
    const challenge = crypto.createHash('sha256').update(f.get('code_verifier') ?? '').digest('base64url');
    if (f.get('grant_type') !== 'authorization_code' || !c || c.challenge !== challenge || c.redirectUri !== f.get('redirect_uri')) {
      return sendJson(res, 400, { error: 'invalid_grant' });
    }
    const access = `access-${crypto.randomBytes(8).toString('hex')}`;
    provider.tokens.add(access);
    return sendJson(res, 200, { access_token: access, refresh_token: `refresh-${crypto.randomBytes(8).toString('hex')}`, token_type: 'Bearer', expires_in: 3600, scope: c.scope });
  }
  sendJson(res, 404, { error: 'no route' });
}

// ---- what the builder and the app ask for ----
const setupDoc = {
  integrations: [
    {
      name: 'Acme CRM',
      domain: 'acme-crm.example',
      keySlug: 'default',
      keyName: 'Acme CRM API key',
      capabilityLabel: 'Read and annotate CRM deals',
      why: 'The deal summarizer reads open deals and adds notes.',
      permissionGroups: [{ name: 'Deals', description: 'Read deals and write notes', permissions: ['deals.read', 'notes.write'] }],
      secrets: [
        { name: 'ACME_API_KEY', label: 'API key', description: 'Settings > API > New key', required: true },
        { name: 'ACME_REGION', label: 'Region', description: 'eu or us', required: false },
      ],
      setupInstructions: {
        overview: 'Create an API key with the Deals permission group.',
        steps: [{ title: 'Open API settings', description: 'Sign in as an admin.', url: 'https://app.acme-crm.example/settings/api' }],
        links: [{ label: 'API docs', url: 'https://docs.acme-crm.example/api#keys' }],
      },
    },
    {
      name: 'Weather Demo',
      domain: 'weather.example.org',
      keySlug: 'reporting',
      capabilityLabel: 'Current weather',
      why: 'The forecaster reads the current weather.',
      secrets: [{ name: 'WEATHER_KEY', label: 'Weather key', required: true }],
    },
  ],
};
const agentsDoc = (port) => ({
  appTools: [
    {
      type: 'custom', name: 'contacts', description: 'Lists the viewer’s CRM contacts.', enabled: true,
      integration: {
        name: 'Local CRM', domain: '127.0.0.1',
        auth: { type: 'oauth2', providerKey: 'localcrm', identity: 'triggering_user', authorizationUrl: `http://127.0.0.1:${port}/authorize`, tokenUrl: `http://127.0.0.1:${port}/token`, scopes: ['contacts.read'] },
      },
      endpoint: { method: 'GET', url: `http://127.0.0.1:${port}/api/contacts`, queryParams: { q: '{{q}}' } },
      mockData: [{ id: 1 }, { id: 2 }, { id: 3 }],
    },
  ],
  agents: [],
});
const heredoc = (file, doc) => `cat > ${file} <<'EOF'\n${JSON.stringify(doc, null, 2)}\nEOF`;
const turns = [
  toolTurn(use('t_setup_file', 'Bash', { command: heredoc('integration-setup.json', setupDoc), description: 'Write integration-setup.json' })),
  toolTurn(use('t_setup', 'mcp__platform__present_integration_setup', {})),
  endTurn('Add the keys on the Integrations page.'),
];

/** Whether `value` is anywhere in the page: its markup, or any input's current value. */
const inPage = (page, value) =>
  page.evaluate((v) => document.documentElement.outerHTML.includes(v) || [...document.querySelectorAll('input, textarea')].some((el) => el.value.includes(v)), value);

run(async () => {
  const providerServer = http.createServer((req, res) => { providerHandler(req, res).catch(() => sendJson(res, 500, {})); });
  await new Promise((r) => providerServer.listen(0, '127.0.0.1', r));
  const port = providerServer.address().port;
  const idp = identityProvider();
  const p = await startPlatform(t, { buildDir: t.buildDir, projectDir: t.projectDir, turns, name: 'ext', webEnv: { ...idp.env, PLATFORM_HTTP_ACTION_ALLOW: '127.0.0.1' } });
  const as = (who) => apiClient(p.web, { authorization: `Bearer ${idp.token(who)}` });
  const owner = as('owner');
  const collab = as('collab');
  await collab('GET', '/api/workspaces');
  const ws = (await owner('POST', '/api/workspaces', { name: 'Team' })).id;
  await owner('POST', `/api/workspaces/${ws}/members`, { userId: 'collab', role: 'collaborator' });
  // The collaborator makes the app (so it may look at its integrations, not change them).
  const app = await collab('POST', `/api/workspaces/${ws}/apps`, { name: 'Deals' });
  const A = `/api/workspaces/${ws}/apps/${app.id}`;
  const patched = await collab('PATCH', `${A}/agents`, agentsDoc(port));
  assert.equal(patched.valid, true, JSON.stringify(patched.problems));
  const pagePath = `/w/${ws}/apps/${app.id}/integrations`;
  const pageUrl = `${p.web}${pagePath}`;

  const browser = await launchBrowser();
  const signedInPage = async (who) => watch((await signedInContext(browser, p.web, idp.token(who), { viewport: { width: 1300, height: 1000 } })).page);
  const ownerPage = await signedInPage('owner');
  const collabPage = await signedInPage('collab');
  const card = (page, domain, slug) => page.getByTestId(`integration-${domain}-${slug}`);
  const crmRow = (page) => page.getByTestId('oauth-localcrm');
  const outcome = (page) => page.getByTestId('connect-outcome');

  await check('the builder syncs integration-setup.json and the page lists each grant as it was described', async () => {
    const runId = (await collab('POST', `${A}/runs`, {})).id;
    const chat = `${A}/runs/${runId}/chat`;
    const res = await fetch(`${p.web}${chat}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${idp.token('collab')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Summarize deals with the CRM and the weather' }] }] }),
    });
    assert.equal(res.status, 200);
    await res.text();
    // The turn ends `failed` (it wrote a file and never called done_building, which building
    // the app would): only its present_integration_setup matters here.
    const persisted = await collab('GET', chat);
    assert.ok(['completed', 'failed'].includes(persisted.status), persisted.status);
    const part = persisted.messages.flatMap((m) => m.parts).find((x) => x.toolCallId === 't_setup');
    assert.match(JSON.stringify(part?.output), /\\?"synced\\?":true/);

    const page = ownerPage;
    await page.goto(pageUrl);
    await page.getByTestId('integrations-page').waitFor();
    const crm = card(page, 'acme-crm.example', 'default');
    await crm.waitFor();
    assert.equal(await page.locator('[data-testid="integrations-page"] [data-testid^="integration-"]').count(), 2);
    const crmText = (await crm.innerText()).replace(/\s+/g, ' ');
    for (const s of ['Acme CRM', 'acme-crm.example', 'Read and annotate CRM deals.', 'The deal summarizer reads open deals and adds notes.',
      'Key: Acme CRM API key', 'Deals — Read deals and write notes', 'deals.read', 'notes.write', 'API key', 'Settings > API > New key', 'Region', 'Needs setup']) {
      assert.ok(crmText.includes(s), `"${s}" not in: ${crmText}`);
    }
    assert.equal(await crm.getByTestId('secret-ACME_API_KEY').getAttribute('data-configured'), 'false');
    await crm.getByTestId('secret-ACME_API_KEY').getByText('Not set').waitFor();
    await crm.getByTestId('secret-ACME_REGION').getByText('Optional').waitFor();
    await crm.getByText('How to get it').click();
    await crm.getByText('Create an API key with the Deals permission group.').waitFor();
    assert.equal(await crm.getByRole('link', { name: 'Open API settings' }).getAttribute('href'), 'https://app.acme-crm.example/settings/api');
    assert.equal(await crm.getByRole('link', { name: 'API docs' }).getAttribute('href'), 'https://docs.acme-crm.example/api#keys');
    const weather = card(page, 'weather.example.org', 'reporting');
    const weatherText = (await weather.innerText()).replace(/\s+/g, ' ');
    for (const s of ['Weather Demo', 'weather.example.org · reporting', 'Current weather.', 'The forecaster reads the current weather.', 'Weather key']) {
      assert.ok(weatherText.includes(s), `"${s}" not in: ${weatherText}`);
    }
    // The OAuth tool of the app's agents.json: a provider nobody registered yet.
    assert.equal(await crmRow(page).getAttribute('data-configured'), 'false');
    await crmRow(page).getByText('Needs: contacts.read').waitFor();
    await screenshot(page, tmp, 'integrations-page-synced');
  });

  await check('a saved secret is Configured and its value is nowhere in the page, also after a reload', async () => {
    const page = ownerPage;
    const row = card(page, 'acme-crm.example', 'default').getByTestId('secret-ACME_API_KEY');
    await row.getByTestId('secret-input-ACME_API_KEY').fill(API_KEY);
    assert.equal(await inPage(page, API_KEY), true);  // the check sees a typed value
    await row.getByTestId('secret-save-ACME_API_KEY').click();
    await row.getByText('Configured').waitFor();
    assert.equal(await row.getAttribute('data-configured'), 'true');
    assert.equal(await inPage(page, API_KEY), false);
    await page.reload();
    const again = card(page, 'acme-crm.example', 'default').getByTestId('secret-ACME_API_KEY');
    await again.getByText('Configured').waitFor();
    assert.equal(await inPage(page, API_KEY), false);
    await again.getByTestId('secret-replace-ACME_API_KEY').click();
    assert.equal(await again.getByTestId('secret-input-ACME_API_KEY').inputValue(), '');
    await again.getByRole('button', { name: 'Cancel' }).click();
    await card(page, 'acme-crm.example', 'default').getByText('Ready').waitFor();
    const listed = JSON.stringify(await owner('GET', `${A}/integrations`));
    assert.ok(!listed.includes(API_KEY));
  });

  await check('the app’s creator (a collaborator) sees the grants without inputs, and why; no OAuth client button', async () => {
    const page = collabPage;
    await page.goto(pageUrl);
    await card(page, 'acme-crm.example', 'default').getByTestId('secret-ACME_API_KEY').getByText('Configured').waitFor();
    await page.getByText('Only an admin or owner can manage integrations.').waitFor();
    assert.equal(await page.locator('[data-testid="integrations-page"] input').count(), 0);
    assert.equal(await page.getByTestId('oauth-client-localcrm').count(), 0);
    assert.equal(await page.getByTestId('oauth-connect-localcrm').count(), 0);
    assert.equal(await page.getByTestId('oauth-why-localcrm').innerText(), 'Nobody can connect yet: a workspace admin or owner must first register this provider’s OAuth client.');
    await screenshot(page, tmp, 'integrations-page-collaborator');
  });

  await check('the owner registers the OAuth client: sentences for bad fields, the redirect URI shown, the secret gone once saved', async () => {
    const page = ownerPage;
    await crmRow(page).getByTestId('oauth-client-localcrm').click();
    const dialog = page.getByRole('dialog');
    await dialog.getByTestId('oauth-client-form').waitFor();
    assert.equal(await dialog.getByTestId('oauth-redirect-uri').innerText(), `${p.web}/api/integrations/oauth/callback`);
    await dialog.getByTestId('oauth-client-save').click();
    await dialog.getByRole('alert').getByText('Enter the client ID localcrm gave this platform.').waitFor();
    await dialog.getByTestId('oauth-client-id').fill(CLIENT_ID);
    await dialog.getByTestId('oauth-client-secret').fill(WRONG_SECRET);
    await dialog.getByTestId('oauth-authorization-url').fill(`http://localhost:${port}/authorize`);
    await dialog.getByTestId('oauth-token-url').fill('127.0.0.1/token');
    await dialog.getByTestId('oauth-client-save').click();
    await dialog.getByRole('alert').getByText('The token URL must be a full http(s) address, such as https://provider.example/oauth/token.').waitFor();
    await dialog.getByTestId('oauth-token-url').fill(`http://127.0.0.1:${port}/token`);
    await screenshot(page, tmp, 'oauth-client-dialog');
    await dialog.getByTestId('oauth-client-save').click();
    await dialog.waitFor({ state: 'detached' });
    await crmRow(page).getByText('Not connected').waitFor();
    assert.equal(await crmRow(page).getAttribute('data-configured'), 'true');
    assert.equal(await inPage(page, WRONG_SECRET), false);
    const clients = await owner('GET', `/api/workspaces/${ws}/integrations/oauth-providers`);
    assert.deepEqual(clients.providers.map((c) => [c.providerKey, c.clientId, c.clientSecretConfigured]), [['localcrm', CLIENT_ID, true]]);
    assert.ok(!JSON.stringify(clients).includes(WRONG_SECRET));
  });

  /** Clicks Connect on the owner's page and answers on the stand-in's consent page with `choice`. */
  const connectAt = async (page, choice) => {
    await crmRow(page).getByTestId('oauth-connect-localcrm').click();
    await page.waitForURL(`http://localhost:${port}/authorize?**`);
    assert.equal(await page.locator('#scope').innerText(), 'contacts.read');
    if (choice) await page.locator(choice).click();
  };
  /** The page the browser came back to: the integrations page, no JSON, the query taken out of the address. */
  const backOnPage = async (page, sentence) => {
    await page.waitForURL((u) => u.pathname === pagePath);
    await outcome(page).getByText(sentence).waitFor();
    assert.equal(new URL(page.url()).search, '');
    assert.ok(!(await page.content()).includes('"error"'));
    await page.getByTestId('integrations-page').waitFor();
  };

  await check('a connect the provider’s token endpoint refuses (wrong client secret) comes back with a sentence', async () => {
    const page = ownerPage;
    await connectAt(page, '#allow');
    await backOnPage(page, 'localcrm refused this workspace’s OAuth client while finishing the connection. A workspace admin or owner should check its client ID and secret.');
    assert.equal(await outcome(page).getAttribute('data-ok'), 'false');
    assert.deepEqual(provider.exchanges.at(-1), { grant: 'authorization_code', clientSecretOk: false });
    assert.equal(await crmRow(page).getAttribute('data-connected'), 'false');
    await screenshot(page, tmp, 'oauth-connect-refused');
  });

  await check('changing the client: the dialog holds the client id and URLs, never the secret; the right secret is saved', async () => {
    const page = ownerPage;
    await outcome(page).getByRole('button', { name: 'Dismiss' }).click();
    await outcome(page).waitFor({ state: 'detached' });
    await crmRow(page).getByRole('button', { name: 'Change client' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByTestId('oauth-client-form').waitFor();
    assert.equal(await dialog.getByTestId('oauth-client-id').inputValue(), CLIENT_ID);
    assert.equal(await dialog.getByTestId('oauth-token-url').inputValue(), `http://127.0.0.1:${port}/token`);
    assert.equal(await dialog.getByTestId('oauth-client-secret').inputValue(), '');
    assert.equal(await inPage(page, WRONG_SECRET), false);
    await dialog.getByTestId('oauth-client-save').click();
    await dialog.getByRole('alert').getByText('Enter the client secret again: changing the client replaces it too.').waitFor();
    await dialog.getByTestId('oauth-client-secret').fill(CLIENT_SECRET);
    await dialog.getByTestId('oauth-client-save').click();
    await dialog.waitFor({ state: 'detached' });
    assert.equal(await inPage(page, CLIENT_SECRET), false);
    await page.reload();
    await crmRow(page).getByText('Not connected').waitFor();
    assert.equal(await inPage(page, CLIENT_SECRET), false);
  });

  await check('Deny at the provider comes back with a sentence, never JSON', async () => {
    const page = ownerPage;
    await connectAt(page, '#deny');
    await backOnPage(page, 'Access was not granted at localcrm, so nothing was connected. Click Connect and allow access to use its tools.');
    assert.equal(await crmRow(page).getAttribute('data-connected'), 'false');
    await screenshot(page, tmp, 'oauth-connect-denied');
  });

  await check('a callback with a forged state comes back to the page it started from with a sentence', async () => {
    const page = ownerPage;
    await connectAt(page, null);
    const allow = new URL(await page.locator('#allow').getAttribute('href'));
    allow.searchParams.set('state', 'forged-state');
    await page.goto(allow.toString());
    await backOnPage(page, 'That localcrm connect attempt expired or was already used. Click Connect to start again.');
    assert.equal(await crmRow(page).getAttribute('data-connected'), 'false');
  });

  await check('Connect → the stand-in’s consent page → Allow comes back connected (PKCE and client secret checked)', async () => {
    const page = ownerPage;
    const exchanges = provider.exchanges.length;
    await connectAt(page, '#allow');
    await backOnPage(page, 'Connected your localcrm account. Its tools now act as you.');
    assert.equal(await outcome(page).getAttribute('data-ok'), 'true');
    await crmRow(page).getByText('Connected', { exact: true }).waitFor();
    assert.equal(await crmRow(page).getAttribute('data-connected'), 'true');
    await crmRow(page).getByText('Granted: contacts.read').waitFor();
    assert.deepEqual(provider.exchanges.slice(exchanges), [{ grant: 'authorization_code', clientSecretOk: true }]);
    await screenshot(page, tmp, 'oauth-connected');
    await page.reload();
    await crmRow(page).getByText('Connected', { exact: true }).waitFor();
    assert.equal(await outcome(page).count(), 0);
    for (const secret of [CLIENT_SECRET, WRONG_SECRET, API_KEY, ...provider.tokens]) assert.equal(await inPage(page, secret), false);
  });

  await browser.close();
  providerServer.close();
});
