// Integrations end to end on platform-web (external auth, HS256 tokens signed here) with a
// local OAuth provider on 127.0.0.1 written below (authorize → code, token endpoint issuing
// and refreshing tokens, a bearer-protected API, a static-key API), allow-listed for the test
// through PLATFORM_HTTP_ACTION_ALLOW:
// - static secrets are write-only and app-scoped (app B's grant never satisfies app A);
// - only admins and owners manage settings; the app creator may look;
// - OAuth connect → provider → callback stores the account (state single-use, bound to user);
// - a browser's navigation to connect or the callback never ends on JSON: a failure is a 303 to
//   the page it started from with a code the page explains (programs keep the JSON);
// - an expired token is refreshed once, on demand, when an app action needs it;
// - the builder's requirement sync replaces the app's set; workspace-integrations is metadata;
//   both want the capability of the builder run they name, while it has not ended;
// - canary secrets and tokens appear in no response and no log.
// No worker is needed (agents.json edits tolerate an unreachable worker).
//
// Usage: node e2e-integrations.mjs --build DIR
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { harness, identityProvider, runCapability, secretsKeyOf } from './harness.mjs';

const args = process.argv.slice(2);
const buildDir = path.resolve(args[args.indexOf('--build') + 1] ?? 'build');
const web = path.join(buildDir, 'servers/web/platform-web');
const { tmp, check, start, run } = harness('platform-integrations-');

const CANARY = `canary-static-${crypto.randomBytes(8).toString('hex')}`;
const CANARY_B = `canary-app-b-${crypto.randomBytes(8).toString('hex')}`;
const CLIENT_SECRET = `canary-client-${crypto.randomBytes(8).toString('hex')}`;
const tokenCanary = (n) => `canary-token-${n}-${crypto.randomBytes(6).toString('hex')}`;

// ---- identities ----
const { token, issuer, audience, secret: jwtSecret } = identityProvider();
const users = Object.fromEntries(['owner', 'admin', 'creator', 'collab', 'viewer'].map((u) => [u, token(u)]));

// ---- the local provider ----
const provider = {
  codes: new Map(),      // code → { challenge, redirectUri, scope }
  refreshes: 0,
  tokens: new Set(),     // access tokens currently valid
  refreshTokens: new Set(),
  seen: [],              // everything the provider received (to check what the web sends)
  issue(scope, expiresIn) {
    const access = tokenCanary('access');
    const refresh = tokenCanary('refresh');
    this.tokens.add(access);
    this.refreshTokens.add(refresh);
    return { access_token: access, refresh_token: refresh, token_type: 'Bearer', expires_in: expiresIn, scope };
  },
};
const allTokens = () => [...provider.tokens, ...provider.refreshTokens];

function readBody(req) {
  return new Promise((resolve) => {
    let b = '';
    req.on('data', (d) => { b += d; });
    req.on('end', () => resolve(b));
  });
}
function sendJson(res, status, obj) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(obj));
}

async function providerHandler(req, res) {
  const u = new URL(req.url, 'http://127.0.0.1');
  provider.seen.push(`${req.method} ${u.pathname}`);
  if (u.pathname === '/authorize') {
    const q = u.searchParams;
    if (q.get('response_type') !== 'code' || q.get('client_id') !== 'client-e2e' || q.get('code_challenge_method') !== 'S256') {
      return sendJson(res, 400, { error: 'invalid_request' });
    }
    const code = crypto.randomBytes(12).toString('hex');
    provider.codes.set(code, { challenge: q.get('code_challenge'), redirectUri: q.get('redirect_uri'), scope: q.get('scope') });
    const back = new URL(q.get('redirect_uri'));
    back.searchParams.set('code', code);
    back.searchParams.set('state', q.get('state'));
    res.writeHead(302, { location: back.toString() });
    return res.end();
  }
  if (u.pathname === '/token' && req.method === 'POST') {
    const f = new URLSearchParams(await readBody(req));
    if (f.get('client_id') !== 'client-e2e' || f.get('client_secret') !== CLIENT_SECRET) return sendJson(res, 401, { error: 'invalid_client' });
    if (f.get('grant_type') === 'authorization_code') {
      const c = provider.codes.get(f.get('code'));
      provider.codes.delete(f.get('code'));
      const challenge = crypto.createHash('sha256').update(f.get('code_verifier') ?? '').digest('base64url');
      if (!c || c.challenge !== challenge || c.redirectUri !== f.get('redirect_uri')) return sendJson(res, 400, { error: 'invalid_grant' });
      return sendJson(res, 200, provider.issue(c.scope, 30));  // inside the web's expiry margin: refreshed on first use
    }
    if (f.get('grant_type') === 'refresh_token') {
      if (!provider.refreshTokens.has(f.get('refresh_token'))) return sendJson(res, 400, { error: 'invalid_grant' });
      provider.refreshes += 1;
      return sendJson(res, 200, provider.issue('contacts.read', 3600));
    }
    return sendJson(res, 400, { error: 'unsupported_grant_type' });
  }
  if (u.pathname === '/api/contacts') {
    const bearer = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    if (!provider.tokens.has(bearer)) return sendJson(res, 401, { error: 'invalid_token' });
    return sendJson(res, 200, { contacts: [{ id: 'c1', q: u.searchParams.get('q') }] });
  }
  if (u.pathname === '/api/static') {
    if (req.headers['x-api-key'] !== CANARY) return sendJson(res, 401, { error: 'bad key' });
    return sendJson(res, 200, { items: [{ id: 's1', q: u.searchParams.get('q') }] });
  }
  sendJson(res, 404, { error: 'no route' });
}

// ---- calls (every response text kept for the canary check) ----
const responses = [];
let base;
async function call(who, method, p, body, { redirect = 'follow', internal = false, capability, headers: extra = {} } = {}) {
  const headers = { ...extra };
  if (who) headers.authorization = `Bearer ${users[who]}`;
  if (internal) headers.authorization = `Bearer ${INTERNAL}`;
  if (capability) headers['x-run-capability'] = capability;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(p.startsWith('http') ? p : base + p, { method, headers, redirect, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  responses.push(text, res.headers.get('location') ?? '');
  let json;
  try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: res.status, json, text, location: res.headers.get('location'), setCookie: res.headers.get('set-cookie') };
}
const ok = (r, status = 200) => {
  assert.equal(r.status, status, r.text);
  return r.json;
};
function assertError(r, status, code) {
  assert.equal(r.status, status, r.text);
  assert.equal(r.json?.error?.code, code, r.text);
}
const INTERNAL = crypto.randomBytes(32).toString('hex');

function agentsDoc(port) {
  const mock = [{ mocked: 1 }, { mocked: 2 }, { mocked: 3 }];
  return {
    appTools: [
      {
        type: 'custom', name: 'static_search', description: 'Searches with a static key.', enabled: true,
        integration: { name: 'Local static', domain: '127.0.0.1', keySlug: 'default' },
        endpoint: { method: 'GET', url: `http://127.0.0.1:${port}/api/static`, headers: { 'X-Api-Key': '{{secrets.API_KEY}}' }, queryParams: { q: '{{q}}' } },
        mockData: mock,
      },
      {
        type: 'custom', name: 'contacts', description: 'Lists contacts of the viewer.', enabled: true,
        integration: {
          name: 'Local CRM', domain: '127.0.0.1',
          auth: { type: 'oauth2', providerKey: 'localcrm', identity: 'triggering_user', authorizationUrl: `http://127.0.0.1:${port}/authorize`, tokenUrl: `http://127.0.0.1:${port}/token`, scopes: ['contacts.read'] },
        },
        endpoint: { method: 'GET', url: `http://127.0.0.1:${port}/api/contacts`, queryParams: { q: '{{q}}' } },
        mockData: mock,
      },
    ],
    agents: [],
  };
}

async function main() {
  const providerServer = http.createServer((req, res) => { providerHandler(req, res).catch(() => sendJson(res, 500, {})); });
  await new Promise((r) => providerServer.listen(0, '127.0.0.1', r));
  const port = providerServer.address().port;
  const dataDir = path.join(tmp, 'data');
  base = (await start('web', web, [], {
    PLATFORM_WEB_PORT: '0',
    PLATFORM_DATA_DIR: dataDir,
    PLATFORM_WORKER_URL: 'http://127.0.0.1:1',
    PLATFORM_AUTH_MODE: 'external',
    PLATFORM_JWT_ISSUER: issuer,
    PLATFORM_JWT_AUDIENCE: audience,
    PLATFORM_JWT_HS256_SECRET: jwtSecret,
    INTERNAL_API_TOKEN: INTERNAL,
    PLATFORM_HTTP_ACTION_ALLOW: '127.0.0.1',
  }, /listening on (http:\S+)/)).match[1];

  const ws = ok(await call('owner', 'POST', '/api/workspaces', { name: 'Integrations' }), 201).id;
  for (const [u, role] of [['admin', 'admin'], ['creator', 'collaborator'], ['collab', 'collaborator'], ['viewer', 'viewer']]) {
    ok(await call('owner', 'POST', `/api/workspaces/${ws}/members`, { userId: u, role }), 200);
  }
  const appA = ok(await call('creator', 'POST', `/api/workspaces/${ws}/apps`, { name: 'A' }), 201).id;
  const appB = ok(await call('owner', 'POST', `/api/workspaces/${ws}/apps`, { name: 'B' }), 201).id;
  const runA = ok(await call('creator', 'POST', `/api/workspaces/${ws}/apps/${appA}/runs`, {}), 201).id;
  const appPath = `/api/workspaces/${ws}/apps/${appA}`;
  const secretsA = `${appPath}/integrations/secrets`;
  // The internal routes: the internal token and the capability the web mints for the builder
  // run the body names (from the secrets key in its data dir).
  const builderCapability = (appId, runId) => runCapability(secretsKeyOf(dataDir), 'builder', ws, appId, runId);
  const asTurnA = { internal: true, capability: builderCapability(appA, runA) };

  await check('the secrets key file is created 0600 in the data dir', async () => {
    const st = fs.statSync(path.join(dataDir, 'secrets.key'));
    assert.equal(st.mode & 0o777, 0o600);
  });

  await check('settings roles: only admins and owners write; the creator may look; others may not', async () => {
    for (const who of ['creator', 'collab', 'viewer']) {
      assertError(await call(who, 'PUT', secretsA, { domain: '127.0.0.1', name: 'API_KEY', value: 'x' }), 403, 'forbidden');
      assertError(await call(who, 'PUT', `/api/workspaces/${ws}/integrations/oauth-providers/localcrm`, { clientId: 'a', clientSecret: 'b', authorizationUrl: 'http://x/a', tokenUrl: 'http://x/t' }), 403, 'forbidden');
    }
    for (const who of ['collab', 'viewer']) assertError(await call(who, 'GET', `${appPath}/integrations`), 403, 'forbidden');
    ok(await call('creator', 'GET', `${appPath}/integrations`));
    assertError(await call(null, 'GET', `${appPath}/integrations`), 401, 'unauthenticated');
    assertError(await call('admin', 'PUT', secretsA, { domain: '127.0.0.1', name: 'API_KEY' }), 400, 'invalid_body');
  });

  await check('requirements sync replaces the app\'s set; workspace-integrations returns metadata', async () => {
    const setup = (integrations) => ({ workspaceId: ws, appId: appA, runId: runA, setup: { integrations } });
    const one = (domain, secrets) => ({ name: domain, domain, keySlug: 'default', keyName: 'Key', capabilityLabel: 'x', why: 'y',
      permissionGroups: [{ name: 'read', description: 'Read', permissions: ['read'] }],
      secrets: secrets.map((s) => ({ name: s, label: s, description: s, required: true })),
      setupInstructions: { overview: 'o', steps: [{ title: 't', description: 'd', url: 'https://example.test' }], links: [] } });
    assertError(await call(null, 'POST', '/api/internal/integration-requirements', setup([]), { capability: asTurnA.capability }), 401, 'unauthenticated');
    assertError(await call(null, 'POST', '/api/internal/integration-requirements', setup([]), { internal: true }), 403, 'invalid_run_capability');
    assertError(await call(null, 'POST', '/api/internal/workspace-integrations', { workspaceId: ws, appId: appA, runId: runA }, { internal: true }),
      403, 'invalid_run_capability');
    let r = ok(await call(null, 'POST', '/api/internal/integration-requirements', setup([one('old.example.com', ['OLD_KEY']), one('127.0.0.1', ['API_KEY'])]), asTurnA));
    assert.equal(r.ok, true);
    assert.deepEqual(r.integrations.map((i) => i.domain).sort(), ['127.0.0.1', 'old.example.com']);
    r = ok(await call(null, 'POST', '/api/internal/integration-requirements', setup([one('127.0.0.1', ['API_KEY'])]), asTurnA));
    assert.deepEqual(r.integrations.map((i) => i.domain), ['127.0.0.1']);
    assertError(await call(null, 'POST', '/api/internal/integration-requirements', setup([{ name: 'bad' }]), asTurnA), 422, 'invalid_setup');
    // Run A's capability does not name app B; one minted for app B finds no such run there.
    assertError(await call(null, 'POST', '/api/internal/integration-requirements', { ...setup([]), appId: appB }, asTurnA), 403, 'invalid_run_capability');
    assertError(await call(null, 'POST', '/api/internal/integration-requirements', { ...setup([]), appId: appB },
      { internal: true, capability: builderCapability(appB, runA) }), 404, 'not_found');
    const w = ok(await call(null, 'POST', '/api/internal/workspace-integrations', { workspaceId: ws, appId: appA, runId: runA }, asTurnA));
    assert.equal(w.integrations.length, 1);
    assert.deepEqual(w.integrations[0].secrets.map((s) => [s.name, s.configured]), [['API_KEY', false]]);
    assert.equal(w.integrations[0].configured, false);
  });

  await check('a builder run that has ended: its capability syncs and lists nothing (409 run_finished)', async () => {
    const ended = ok(await call('creator', 'POST', `/api/workspaces/${ws}/apps/${appA}/runs`, {}), 201).id;
    // Its turn fails on the missing worker; the stream ends once the run has.
    const chat = await call('creator', 'POST', `${appPath}/runs/${ended}/chat`,
      { messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hi' }] }] });
    assert.equal(chat.status, 200, chat.text);
    assert.equal(ok(await call('creator', 'GET', `${appPath}/runs/${ended}/chat`)).status, 'failed');
    const capability = builderCapability(appA, ended);
    assertError(await call(null, 'POST', '/api/internal/integration-requirements',
      { workspaceId: ws, appId: appA, runId: ended, setup: { integrations: [] } }, { internal: true, capability }), 409, 'run_finished');
    assertError(await call(null, 'POST', '/api/internal/workspace-integrations',
      { workspaceId: ws, appId: appA, runId: ended }, { internal: true, capability }), 409, 'run_finished');
    const list = ok(await call('admin', 'GET', `${appPath}/integrations`));
    assert.deepEqual(list.integrations.map((i) => i.domain), ['127.0.0.1'], 'the requirements run A synced are kept');
  });

  await check('static secrets are write-only and app-scoped', async () => {
    const put = ok(await call('admin', 'PUT', secretsA, { domain: '127.0.0.1', name: 'API_KEY', value: CANARY }));
    assert.deepEqual(put, { ok: true, domain: '127.0.0.1', keySlug: 'default', name: 'API_KEY', configured: true });
    ok(await call('owner', 'PUT', `/api/workspaces/${ws}/apps/${appB}/integrations/secrets`, { domain: '127.0.0.1', name: 'OTHER_KEY', value: CANARY_B }));
    const list = ok(await call('admin', 'GET', `${appPath}/integrations`));
    const entry = list.integrations.find((i) => i.domain === '127.0.0.1');
    assert.deepEqual(entry.secrets.map((s) => [s.name, s.configured]), [['API_KEY', true]]);
    assert.equal(entry.configured, true);
    const w = ok(await call(null, 'POST', '/api/internal/workspace-integrations', { workspaceId: ws, appId: appA, runId: runA }, asTurnA));
    assert.ok(!JSON.stringify(w).includes('OTHER_KEY'), 'app B\'s grant is not listed for app A');
  });

  let draftHash;
  await check('agents.json with a static and an OAuth app action is approved', async () => {
    const patched = ok(await call('owner', 'PATCH', `${appPath}/agents`, agentsDoc(port)));
    assert.equal(patched.valid, true, JSON.stringify(patched.problems));
    draftHash = patched.draftHash;
    ok(await call('owner', 'POST', `${appPath}/agents/approval`, { approvalHash: draftHash }));
  });

  const execute = (who, name, a = appA) => call(who, 'POST', `/api/workspaces/${ws}/apps/${a}/app-tools/${name}/execute`, { draft: true, input: { q: 'x' } });

  await check('a static action uses this app\'s secret; app B\'s secret never satisfies app A', async () => {
    const r = ok(await execute('owner', 'static_search'));
    assert.equal(r.success, true, JSON.stringify(r));
    assert.equal(r.mock, false);
    assert.deepEqual(r.data, { items: [{ id: 's1', q: 'x' }] });
    // App B: same tool, its grant has only OTHER_KEY → not configured → mock.
    ok(await call('owner', 'PATCH', `/api/workspaces/${ws}/apps/${appB}/agents`, agentsDoc(port)));
    const hb = ok(await call('owner', 'GET', `/api/workspaces/${ws}/apps/${appB}/agents`)).draftHash;
    ok(await call('owner', 'POST', `/api/workspaces/${ws}/apps/${appB}/agents/approval`, { approvalHash: hb }));
    const rb = ok(await execute('owner', 'static_search', appB));
    assert.equal(rb.mock, true, JSON.stringify(rb));
    assert.match(rb.mockReason, /integration not configured/);
  });

  await check('OAuth without provider config or account answers with mock data and distinct reasons', async () => {
    let r = ok(await execute('collab', 'contacts'));
    assert.equal(r.mock, true);
    assert.match(r.mockReason, /provider localcrm is not configured/);
    ok(await call('admin', 'PUT', `/api/workspaces/${ws}/integrations/oauth-providers/localcrm`, {
      clientId: 'client-e2e', clientSecret: CLIENT_SECRET, authorizationUrl: `http://127.0.0.1:${port}/authorize`, tokenUrl: `http://127.0.0.1:${port}/token` }));
    r = ok(await execute('collab', 'contacts'));
    assert.equal(r.mock, true);
    assert.match(r.mockReason, /not connected/);
    const providers = ok(await call('admin', 'GET', `/api/workspaces/${ws}/integrations/oauth-providers`));
    assert.deepEqual(providers.providers.map((p) => [p.providerKey, p.clientId, p.clientSecretConfigured]), [['localcrm', 'client-e2e', true]]);
  });

  let callback;
  await check('OAuth connect → provider → callback stores the account (state single-use, bound to its user)', async () => {
    const started = await call('collab', 'GET', `${appPath}/integrations/oauth/localcrm/connect`, undefined, { redirect: 'manual' });
    assert.equal(started.status, 302, started.text);
    const auth = new URL(started.location);
    assert.equal(auth.origin + auth.pathname, `http://127.0.0.1:${port}/authorize`);
    assert.equal(auth.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(auth.searchParams.get('scope'), 'contacts.read');  // from the app's agents.json
    assert.ok(auth.searchParams.get('state').length >= 32);
    const atProvider = await fetch(started.location, { redirect: 'manual' });
    callback = atProvider.headers.get('location');
    assert.ok(callback.startsWith(`${base}/api/integrations/oauth/callback?`), callback);
    // Another user's browser cannot complete it (and burns the state).
    assertError(await call('viewer', 'GET', callback), 403, 'forbidden');
    assertError(await call('collab', 'GET', callback), 400, 'invalid_state');
    // A fresh attempt by the right user.
    const again = await call('collab', 'GET', `${appPath}/integrations/oauth/localcrm/connect`, undefined, { redirect: 'manual' });
    callback = (await fetch(again.location, { redirect: 'manual' })).headers.get('location');
    const done = ok(await call('collab', 'GET', callback));
    assert.deepEqual(done, { ok: true, providerKey: 'localcrm', appId: appA, connected: true, grantedScopes: ['contacts.read'] });
    assertError(await call('collab', 'GET', callback), 400, 'invalid_state');  // replay
    // A person's browser is sent back to the app's integrations page instead of JSON.
    const viaBrowser = await call('collab', 'GET', `${appPath}/integrations/oauth/localcrm/connect`, undefined, { redirect: 'manual' });
    const browserCallback = (await fetch(viaBrowser.location, { redirect: 'manual' })).headers.get('location');
    const landed = await fetch(browserCallback, { redirect: 'manual', headers: { authorization: `Bearer ${users.collab}`, accept: 'text/html,application/xhtml+xml' } });
    assert.equal(landed.status, 303);
    assert.equal(landed.headers.get('location'), `/w/${ws}/apps/${appA}/integrations?connected=localcrm`);
    const list = ok(await call('admin', 'GET', `${appPath}/integrations`));
    assert.deepEqual(list.oauth.find((o) => o.providerKey === 'localcrm').requiredScopes, ['contacts.read']);
  });

  await check('connect and callback failures: a browser goes back to the page with a code, a program gets JSON', async () => {
    const nav = { accept: 'text/html,application/xhtml+xml' };  // Node's fetch sends Sec-Fetch-Mode cors
    const page = `/w/${ws}/apps/${appA}/integrations`;
    const connect = (who, provider, headers) => call(who, 'GET', `${appPath}/integrations/oauth/${provider}/connect`, undefined, { redirect: 'manual', headers });
    const backTo = (r, location) => {
      assert.equal(r.status, 303, r.text);
      assert.equal(r.location, location);
      assert.equal(r.text, '');
    };
    // No client registered for the provider.
    assertError(await connect('collab', 'nocrm'), 404, 'not_found');
    backTo(await connect('collab', 'nocrm', nav), `${page}?oauthError=not_found&provider=nocrm`);
    backTo(await connect(null, 'localcrm', nav), `${page}?oauthError=unauthenticated&provider=localcrm`);
    // A started attempt leaves its page and state in a cookie only the callback gets.
    const started = await connect('collab', 'localcrm', nav);
    assert.equal(started.status, 302);
    const state = new URL(started.location).searchParams.get('state');
    assert.equal(started.setCookie, `platform_oauth_attempt=${ws}.${appA}.localcrm.${state}; Path=/api/integrations/oauth/callback; HttpOnly; SameSite=Lax; Max-Age=600`);
    const cookie = started.setCookie.split(';')[0];
    const callback = (params) => `${base}/api/integrations/oauth/callback?${new URLSearchParams(params)}`;
    // The person declines at the provider: the state names the page.
    backTo(await call('collab', 'GET', callback({ error: 'access_denied', state }), undefined, { redirect: 'manual', headers: nav }), `${page}?oauthError=oauth_denied&provider=localcrm`);
    // The state is used now: only the cookie can say where this browser came from, else "/".
    backTo(await call('collab', 'GET', callback({ code: 'x', state }), undefined, { redirect: 'manual', headers: nav }), '/?oauthError=invalid_state');
    const replay = await call('collab', 'GET', callback({ code: 'x', state }), undefined, { redirect: 'manual', headers: { ...nav, cookie } });
    backTo(replay, `${page}?oauthError=invalid_state&provider=localcrm`);
    assert.match(replay.setCookie, /^platform_oauth_attempt=; .*Max-Age=0/);
    backTo(await call('collab', 'GET', callback({ code: 'x', state: 'forged' }), undefined, { redirect: 'manual', headers: { ...nav, cookie: 'platform_oauth_attempt=../evil.example/x' } }), '/?oauthError=invalid_state');
    // Another provider error; a program gets the JSON.
    const fresh = new URL((await connect('collab', 'localcrm')).location).searchParams.get('state');
    const scopeError = await call('collab', 'GET', callback({ error: 'invalid_scope', state: fresh }), undefined, { redirect: 'manual' });
    assertError(scopeError, 502, 'oauth_provider_error');
    assert.equal(scopeError.json.error.message, 'the provider answered invalid_scope');
    // Another user's attempt, even with its cookie.
    const theirs = await connect('collab', 'localcrm');
    const theirState = new URL(theirs.location).searchParams.get('state');
    backTo(await call('viewer', 'GET', callback({ code: 'x', state: theirState }), undefined, { redirect: 'manual', headers: { ...nav, cookie: theirs.setCookie.split(';')[0] } }), `${page}?oauthError=forbidden&provider=localcrm`);
  });

  await check('back from a provider on another site (no session cookie): only the browser that started the attempt finishes it', async () => {
    const listed = async () => ok(await call('creator', 'GET', `${appPath}/integrations`)).oauth.find((o) => o.providerKey === 'localcrm').connected;
    assert.equal(await listed(), false);
    const started = await call('creator', 'GET', `${appPath}/integrations/oauth/localcrm/connect`, undefined, { redirect: 'manual' });
    const cookie = started.setCookie.split(';')[0];
    const other = (await call('creator', 'GET', `${appPath}/integrations/oauth/localcrm/connect`, undefined, { redirect: 'manual' })).setCookie.split(';')[0];
    const callback = (await fetch(started.location, { redirect: 'manual' })).headers.get('location');
    const nav = { accept: 'text/html,application/xhtml+xml' };
    // Neither a sign-in nor this attempt's cookie: refused, the state left for its browser.
    assertError(await call(null, 'GET', callback, undefined, { redirect: 'manual' }), 401, 'unauthenticated');
    assertError(await call(null, 'GET', callback, undefined, { redirect: 'manual', headers: { cookie: other } }), 401, 'unauthenticated');
    const landed = await call(null, 'GET', callback, undefined, { redirect: 'manual', headers: { ...nav, cookie } });
    assert.equal(landed.status, 303, landed.text);
    assert.equal(landed.location, `/w/${ws}/apps/${appA}/integrations?connected=localcrm`);
    assert.equal(await listed(), true);
    // Signing out ends an attempt this browser started.
    const out = await fetch(`${base}/api/session`, { method: 'DELETE' });
    assert.deepEqual(out.headers.getSetCookie().map((c) => c.split(';')[0]).sort(), ['platform_oauth_attempt=', 'platform_session=']);
  });

  await check('an expired token is refreshed once, on demand, and the action succeeds', async () => {
    assert.equal(provider.refreshes, 0);
    const r1 = ok(await execute('collab', 'contacts'));
    assert.equal(r1.success, true, JSON.stringify(r1));
    assert.equal(r1.mock, false);
    assert.deepEqual(r1.data, { contacts: [{ id: 'c1', q: 'x' }] });
    assert.equal(provider.refreshes, 1);
    const r2 = ok(await execute('collab', 'contacts'));
    assert.equal(r2.success, true);
    assert.equal(provider.refreshes, 1, 'the refreshed token is reused until it expires');
    // The admin has no account of its own: the collaborator's never serves another user.
    const ra = ok(await execute('admin', 'contacts'));
    assert.equal(ra.mock, true);
    assert.match(ra.mockReason, /not connected/);
  });

  await check('disconnect revokes: the next call is mock data', async () => {
    ok(await call('collab', 'DELETE', `${appPath}/integrations/oauth/localcrm`));
    const r = ok(await execute('collab', 'contacts'));
    assert.equal(r.mock, true);
    assert.match(r.mockReason, /revoked/);
    assertError(await call('collab', 'DELETE', `/api/workspaces/${ws}/apps/${appB}/integrations/oauth/localcrm`), 404, 'not_found');
  });

  await check('deleting a secret makes the static action mock data again', async () => {
    assertError(await call('collab', 'DELETE', `${secretsA}?domain=127.0.0.1&name=API_KEY`), 403, 'forbidden');
    ok(await call('admin', 'DELETE', `${secretsA}?domain=127.0.0.1&name=API_KEY`));
    assertError(await call('admin', 'DELETE', `${secretsA}?domain=127.0.0.1&name=API_KEY`), 404, 'not_found');
    const r = ok(await execute('owner', 'static_search'));
    assert.equal(r.mock, true);
  });

  await check('no canary secret, client secret or token appears in a response, a log or the database file', async () => {
    const canaries = [CANARY, CANARY_B, CLIENT_SECRET, ...allTokens()];
    const logs = fs.readdirSync(tmp).filter((f) => f.endsWith('.log')).map((f) => fs.readFileSync(path.join(tmp, f), 'utf8')).join('\n');
    const dbBytes = ['platform.db', 'platform.db-wal'].map((f) => path.join(dataDir, f)).filter((f) => fs.existsSync(f))
      .map((f) => fs.readFileSync(f).toString('latin1')).join('');
    assert.ok(dbBytes.length > 0);
    for (const c of canaries) {
      assert.ok(!responses.some((t) => t.includes(c)), `a response carried ${c.slice(0, 20)}...`);
      assert.ok(!logs.includes(c), `a log carried ${c.slice(0, 20)}...`);
      assert.ok(!dbBytes.includes(c), `the database file holds ${c.slice(0, 20)}... in plaintext`);
    }
  });
  await check('production needs PLATFORM_SECRETS_KEY; a malformed key refuses to start and is not echoed', async () => {
    const env = { PATH: process.env.PATH, PLATFORM_WEB_PORT: '0', PLATFORM_DATA_DIR: path.join(tmp, 'prod'), PLATFORM_WORKER_URL: 'http://127.0.0.1:1',
      PLATFORM_AUTH_MODE: 'external', PLATFORM_JWT_ISSUER: issuer, PLATFORM_JWT_AUDIENCE: audience, PLATFORM_JWT_HS256_SECRET: jwtSecret,
      INTERNAL_API_TOKEN: INTERNAL };
    const refuse = (extra) => new Promise((resolve, reject) => {
      const child = spawn(web, [], { env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
      let err = '';
      child.stderr.on('data', (d) => { err += d; });
      child.stdout.on('data', (d) => { if (/listening on/.test(String(d))) { child.kill(); reject(new Error('platform-web started')); } });
      child.on('exit', (code) => resolve({ code, err }));
    });
    let r = await refuse({ PLATFORM_ENV: 'production' });
    assert.notEqual(r.code, 0);
    assert.match(r.err, /PLATFORM_SECRETS_KEY/);
    r = await refuse({ PLATFORM_SECRETS_KEY: 'not-a-key-canary-value' });
    assert.notEqual(r.code, 0);
    assert.match(r.err, /PLATFORM_SECRETS_KEY/);
    assert.ok(!r.err.includes('not-a-key-canary-value'));
  });
  providerServer.close();
}

run(main);
