// Custom tools and app actions end to end: platform-web (external auth, roles from memberships)
// with the HTTP executor allow-listed to a local provider on 127.0.0.1 (static-secret, OAuth
// bearer-checking with a token endpoint, and public endpoints). agents.json is seeded and
// approved through the governance routes, secrets and OAuth through the integration settings.
// Every execution rule: secret injection, missing placeholder → no call, input to a tool
// without input placeholders → failure, unconfigured → mock, OAuth without an account → mock,
// staleness and re-approval, internal tool-execute acting as the run's user (and only with the
// run's capability, while the run is live), failure reports creating repair runs with audit
// events whose turns reach the worker (a stand-in recording them, worker-stand-in.mjs) and run
// to their end, the loop guard, canaries never leaving the server,
// also when the provider echoes the key encoded (JSON escapes, twice escaped, percent, base64).
//
// Usage: node e2e-tool-execution.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { harness, identityProvider, runCapability, secretsKeyOf, waitUntil } from './harness.mjs';
import { workerStandIn } from './worker-stand-in.mjs';

const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const buildDir = path.resolve(opt('--build') ?? 'build');
const { tmp, check, start, run } = harness('platform-tools-');

const { token, issuer, audience, secret: jwtSecret } = identityProvider();

// Canaries: none of these may appear in any reply, event or log of platform-web.
const CANARY_KEY = `canary-static-${crypto.randomBytes(8).toString('hex')}`;
const CANARY_CLIENT_SECRET = `canary-client-${crypto.randomBytes(8).toString('hex')}`;
const CANARY_ACCESS = `canary-access-${crypto.randomBytes(8).toString('hex')}`;
const CANARY_REFRESH = `canary-refresh-${crypto.randomBytes(8).toString('hex')}`;
const INTERNAL = crypto.randomBytes(32).toString('hex');
const canaries = [CANARY_KEY, CANARY_CLIENT_SECRET, CANARY_ACCESS, CANARY_REFRESH];

// ---- the local provider ------------------------------------------------------------------------
// The forms a careless provider echoes a key back in, none of them the key's raw bytes: every
// character as \uXXXX (lower and upper hex), mixed escaped and plain, a JSON text holding the
// escaped key put into a JSON string (escaped twice), percent-encoded, in a Basic header's
// base64 and base64url. The platform parses JSON replies before passing them on, so the first
// three would reach the app and the agent in clear if only raw bytes were scrubbed.
const hex4 = (c, upper) => c.charCodeAt(0).toString(16).padStart(4, '0')[upper ? 'toUpperCase' : 'toLowerCase']();
const jsonEscaped = (s, upper = false) => [...s].map((c) => `\\u${hex4(c, upper)}`).join('');
const encodedEchoes = (key) => {
  const half = Math.floor(key.length / 2);
  return `{"escaped":"${jsonEscaped(key)}","upper":"${jsonEscaped(key, true)}",` +
    `"mixed":"${key.slice(0, half)}${jsonEscaped(key.slice(half, half + 3))}${key.slice(half + 3)}",` +
    `"twice":${JSON.stringify(`{"key":"${jsonEscaped(key)}"}`)},` +
    `"url":"https://acme.example/cb?key=${[...key].map((c) => `%${hex4(c).slice(2)}`).join('')}",` +
    `"basic":"Basic ${Buffer.from(`api-user:${key}`).toString('base64')}",` +
    `"blob":"${Buffer.from(`xy${key}tail`).toString('base64url')}"}`;
};
const seen = [];  // every request: {path, headers}
const count = (p) => seen.filter((r) => r.path === p).length;
function startProvider() {
  const srv = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      const url = new URL(req.url, 'http://x');
      seen.push({ path: url.pathname, query: Object.fromEntries(url.searchParams), headers: req.headers, body });
      const send = (status, obj) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(obj));
      };
      if (url.pathname === '/static/deals') {
        if (req.headers['x-api-key'] !== CANARY_KEY) return send(401, { error: 'bad key' });
        // Echoes the key, as careless providers do: the server must scrub it.
        return send(200, { deals: [{ id: 'd1', stage: url.searchParams.get('stage') }], echo: `key ${CANARY_KEY}` });
      }
      if (url.pathname === '/static/echo-encoded') {
        if (req.headers['x-api-key'] !== CANARY_KEY) return send(401, { error: 'bad key' });
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(encodedEchoes(CANARY_KEY));
      }
      if (url.pathname === '/public/status') return send(200, { status: 'green' });
      if (url.pathname === '/oauth/token') {
        return send(200, { access_token: CANARY_ACCESS, refresh_token: CANARY_REFRESH, token_type: 'Bearer',
          expires_in: 3600, scope: 'read' });
      }
      if (url.pathname === '/oauth/me') {
        if (req.headers.authorization !== `Bearer ${CANARY_ACCESS}`) return send(401, { error: 'no bearer' });
        return send(200, { me: 'connected-user' });
      }
      return send(404, { error: 'not found' });
    });
  });
  return new Promise((resolve) => srv.listen(0, '127.0.0.1', () => resolve(srv)));
}

// ---- agents.json ---------------------------------------------------------------------------------
function agentsDoc(base) {
  const integration = { name: 'Acme', domain: '127.0.0.1', keySlug: 'acme' };
  const mock = [{ deals: [{ id: 'm1' }] }, { deals: [{ id: 'm2' }] }, { deals: [{ id: 'm3' }] }];
  const staticDeals = (name) => ({
    type: 'custom', name, description: 'Deals by stage.', enabled: true, recommended: false, integration,
    endpoint: { method: 'GET', url: `${base}/static/deals`, headers: { 'X-Api-Key': '{{secrets.ACME_KEY}}' },
      queryParams: { stage: '{{stage}}' } },
    mockData: mock,
  });
  const oauthMe = (name) => ({
    type: 'custom', name, description: 'Who am I.', enabled: true, recommended: false,
    integration: { name: 'Acme OAuth', domain: '127.0.0.1', keySlug: 'oauth',
      auth: { type: 'oauth2', providerKey: 'acmeoauth', identity: 'triggering_user',
        authorizationUrl: `${base}/oauth/authorize`, tokenUrl: `${base}/oauth/token`, scopes: ['read'] } },
    endpoint: { method: 'GET', url: `${base}/oauth/me` },
    mockData: [{ me: 'mock-1' }, { me: 'mock-2' }, { me: 'mock-3' }],
  });
  const encodedEcho = (name) => ({ ...staticDeals(name), description: 'Echoes the key, encoded.',
    endpoint: { method: 'GET', url: `${base}/static/echo-encoded`, headers: { 'X-Api-Key': '{{secrets.ACME_KEY}}' } } });
  return {
    appTools: [
      staticDeals('static_deals'),
      { type: 'custom', name: 'public_status', description: 'Status.', enabled: true, recommended: false,
        integration: { name: 'Status', domain: '127.0.0.1', keySlug: 'public' },
        endpoint: { method: 'GET', url: `${base}/public/status` }, mockData: [{ s: 1 }, { s: 2 }, { s: 3 }] },
      { ...staticDeals('unconfigured_deals'), integration: { ...integration, keySlug: 'other' },
        endpoint: { method: 'GET', url: `${base}/static/deals`, headers: { 'X-Api-Key': '{{secrets.OTHER_KEY}}' },
          queryParams: { stage: '{{stage}}' } } },
      oauthMe('oauth_me'),
      encodedEcho('echo_encoded'),
    ],
    agents: [{ id: 'helper', name: 'Helper', description: 'Finds deals.', systemPrompt: 'You find deals.',
      tools: [staticDeals('agent_deals'), oauthMe('agent_me'), encodedEcho('agent_echo_encoded')] }],
  };
}

async function main() {
  const provider = await startProvider();
  const port = provider.address().port;
  const base = `http://127.0.0.1:${port}`;
  const dataDir = path.join(tmp, 'data');
  // A worker that answers: the repair runs' turns run (one line of text each) and are recorded.
  const worker = await workerStandIn();
  const web = (await start('web', path.join(buildDir, 'servers/web/platform-web'), [], {
    PLATFORM_WEB_PORT: '0',
    PLATFORM_DATA_DIR: dataDir,
    PLATFORM_WORKER_URL: worker.url,
    PLATFORM_AUTH_MODE: 'external',
    PLATFORM_JWT_ISSUER: issuer,
    PLATFORM_JWT_AUDIENCE: audience,
    PLATFORM_JWT_HS256_SECRET: jwtSecret,
    INTERNAL_API_TOKEN: INTERNAL,
    PLATFORM_HTTP_ACTION_ALLOW: `127.0.0.1:${port}`,
    PLATFORM_TOOL_REPAIR_MAX_RUNS: '2',
  }, /listening on (http:\S+)/)).match[1];

  const replies = [];  // every reply body, for the canary check
  const call = async (who, method, p, body, headers = {}) => {
    const h = { ...headers };
    if (who) h.authorization = `Bearer ${token(who)}`;
    if (body !== undefined) h['content-type'] = 'application/json';
    const res = await fetch(web + p, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body),
      redirect: 'manual' });
    const text = await res.text();
    replies.push(text, res.headers.get('location') ?? '');
    let json;
    try { json = JSON.parse(text); } catch { json = undefined; }
    return { status: res.status, json, text, location: res.headers.get('location') };
  };
  // The internal routes: the internal token and the capability the web minted for the run
  // (X-Run-Capability, from the web's secrets key in its data dir).
  const secretsKey = secretsKeyOf(dataDir);
  const agentCapability = (appId, id) => runCapability(secretsKey, 'agent', ws, appId, id);
  const internal = (p, body, tokenValue = INTERNAL, capability) => call(null, 'POST', p, body, {
    ...(tokenValue ? { authorization: `Bearer ${tokenValue}` } : {}), ...(capability ? { 'x-run-capability': capability } : {}) });
  const ok = (r, status = 200) => {
    assert.equal(r.status, status, r.text);
    return r.json;
  };

  const ws = ok(await call('owner', 'POST', '/api/workspaces', { name: 'Tools' }), 201).id;
  for (const [userId, role] of [['collab', 'collaborator'], ['viewer', 'viewer']]) {
    await call(userId, 'GET', '/api/workspaces');
    ok(await call('owner', 'POST', `/api/workspaces/${ws}/members`, { userId, role }));
  }
  const app = ok(await call('owner', 'POST', `/api/workspaces/${ws}/apps`, { name: 'Deals' }), 201).id;
  const other = ok(await call('owner', 'POST', `/api/workspaces/${ws}/apps`, { name: 'Other' }), 201).id;
  const appPath = `/api/workspaces/${ws}/apps/${app}`;
  // Workspace events, read in the background for the canary check and the repair hints.
  let events = '';
  const eventsAbort = new AbortController();
  fetch(`${web}/api/workspaces/${ws}/events`, { headers: { authorization: `Bearer ${token('owner')}` }, signal: eventsAbort.signal })
    .then(async (res) => {
      const reader = res.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        events += Buffer.from(value).toString('utf8');
      }
    }).catch(() => {});
  const exec = (who, name, body) => call(who, 'POST', `${appPath}/app-tools/${name}/execute`, body);
  const approve = async () => {
    const view = ok(await call('owner', 'GET', `${appPath}/agents`));
    ok(await call('owner', 'POST', `${appPath}/agents/approval`, { approvalHash: view.draftHash ?? view.hash }));
  };

  const doc = agentsDoc(base);
  const patched = ok(await call('owner', 'PATCH', `${appPath}/agents`, doc));
  assert.equal(patched.valid, true, JSON.stringify(patched.problems));
  await approve();
  ok(await call('owner', 'PUT', `${appPath}/integrations/secrets`, { domain: '127.0.0.1', keySlug: 'acme', name: 'ACME_KEY', value: CANARY_KEY }));

  await check('static secret: injected server-side, the provider sees it, the reply never does', async () => {
    const before = count('/static/deals');
    const r = ok(await exec('collab', 'static_deals', { draft: true, input: { stage: 'won' } }));
    assert.equal(r.success, true, JSON.stringify(r));
    assert.equal(r.mock, false);
    assert.equal(r.statusCode, 200);
    assert.deepEqual(r.data.deals, [{ id: 'd1', stage: 'won' }]);
    assert.equal(count('/static/deals'), before + 1);
    assert.equal(seen.at(-1).headers['x-api-key'], CANARY_KEY);
    assert.ok(!JSON.stringify(r).includes(CANARY_KEY));
  });

  // What an app or agent could recover from the reply: each encoded echo decoded again.
  const assertNoEncodedKey = (r) => {
    const text = JSON.stringify(r);
    assert.ok(!text.includes(CANARY_KEY), text);
    const d = r.data;
    for (const f of ['escaped', 'upper', 'mixed']) assert.equal(d[f], '[REDACTED]', `${f}: ${d[f]}`);
    assert.equal(JSON.parse(d.twice).key, '[REDACTED]', d.twice);
    assert.ok(!decodeURIComponent(d.url).includes(CANARY_KEY), d.url);
    assert.ok(!d.url.toLowerCase().includes([...CANARY_KEY.slice(0, 6)].map((c) => `%${hex4(c).slice(2)}`).join('')), d.url);
    assert.ok(!d.basic.includes(Buffer.from(CANARY_KEY).toString('base64').slice(0, 12)), d.basic);
    assert.ok(d.basic.includes('[REDACTED]') && d.blob.includes('[REDACTED]'), JSON.stringify(d));
    assert.ok(!Buffer.from(d.basic.slice(6), 'base64').toString('latin1').includes(CANARY_KEY.slice(0, 8)), d.basic);
  };

  await check('a provider echoing the key encoded: app-tools execute answers without it in any form', async () => {
    const r = ok(await exec('collab', 'echo_encoded', { draft: true }));
    assert.equal(r.success, true, JSON.stringify(r));
    assert.equal(r.mock, false);
    assert.equal(seen.at(-1).path, '/static/echo-encoded');
    assertNoEncodedKey(r);
  });

  await check('missing input placeholder: explicit failure, the provider is not called', async () => {
    const before = seen.length;
    const r = ok(await exec('collab', 'static_deals', { draft: true, input: {} }));
    assert.equal(r.success, false);
    assert.equal(r.errorCode, 'MISSING_INPUT');
    assert.equal(r.errorCategory, 'input');
    assert.equal(r.canRequestBuilderRepair, true);
    assert.equal(typeof r.resolution, 'string');
    assert.equal(seen.length, before);
  });

  await check('input to a tool whose endpoint reads none fails; without input it runs', async () => {
    const before = seen.length;
    const bad = ok(await exec('collab', 'public_status', { draft: true, input: { stage: 'x' } }));
    assert.equal(bad.success, false);
    assert.equal(bad.errorCode, 'UNEXPECTED_INPUT');
    assert.equal(seen.length, before);
    const good = ok(await exec('collab', 'public_status', { draft: true }));
    assert.equal(good.success, true, JSON.stringify(good));
    assert.deepEqual(good.data, { status: 'green' });
  });

  await check('unconfigured integration: a mockData entry with mock true and mockReason, no call', async () => {
    const before = seen.length;
    const mocks = doc.appTools[2].mockData.map((m) => JSON.stringify(m));
    for (let i = 0; i < 4; i += 1) {
      const r = ok(await exec('collab', 'unconfigured_deals', { draft: true, input: { stage: 'won' } }));
      assert.equal(r.success, true, JSON.stringify(r));
      assert.equal(r.mock, true);
      assert.equal(typeof r.mockReason, 'string');
      assert.ok(mocks.includes(JSON.stringify(r.data)), JSON.stringify(r.data));
    }
    assert.equal(seen.length, before);
  });

  await check('OAuth app action without a connected account: mock with mockReason', async () => {
    const r = ok(await exec('owner', 'oauth_me', { draft: true }));
    assert.equal(r.success, true, JSON.stringify(r));
    assert.equal(r.mock, true);
    assert.equal(typeof r.mockReason, 'string');
    assert.equal(count('/oauth/me'), 0);
  });

  await check('route refusals: unknown tool, viewer on the draft, unpublished app, no auth', async () => {
    assert.equal((await exec('collab', 'nope', { draft: true })).json.error.code, 'tool_not_found');
    assert.equal((await exec('viewer', 'public_status', { draft: true })).status, 403);
    const pub = await exec('viewer', 'public_status', {});
    assert.equal(pub.status, 403);
    assert.equal(pub.json.error.code, 'not_published');
    assert.equal((await exec(null, 'public_status', { draft: true })).status, 401);
    assert.equal((await exec('collab', 'agent_deals', { draft: true })).status, 404);  // agent tools are not app actions
  });

  // An agent run of the draft, triggered by collab: internal calls act as collab.
  const runId = ok(await call('collab', 'POST', `${appPath}/agent-runs`, { agentId: 'helper', prompt: 'find deals', draft: true }), 201).id;
  const runCap = agentCapability(app, runId);
  const toolExecute = (extra, tokenValue = INTERNAL, capability = runCap) => internal('/api/internal/tool-execute',
    { workspaceId: ws, appId: app, runId, agentId: 'helper', toolName: 'agent_deals', input: JSON.stringify({ stage: 'lost' }), ...extra },
    tokenValue, capability);
  const refusedCapability = (r, what) => {
    assert.equal(r.status, 403, `${what}: ${r.text}`);
    assert.equal(r.json.error.code, 'invalid_run_capability', what);
  };

  await check('internal tool-execute: the approved agent tool runs for the run; refusals', async () => {
    const r = ok(await toolExecute({}));
    assert.equal(r.success, true, JSON.stringify(r));
    assert.equal(r.data.deals[0].stage, 'lost');
    assert.equal((await toolExecute({}, null)).status, 401);
    assert.equal((await toolExecute({}, 'wrong-token')).status, 401);
    assert.equal((await toolExecute({ agentId: 'someone' })).status, 403);
    // The run's capability names its app and run: for any other it is refused before the lookup.
    refusedCapability(await toolExecute({ appId: other }), 'the run\'s capability for another app');
    // A capability minted for a run that does not exist reaches the lookup.
    const nope = await toolExecute({ appId: other }, INTERNAL, agentCapability(other, runId));
    assert.equal(nope.status, 404, nope.text);
    assert.equal(nope.json.error.code, 'not_found');
    const notMine = await toolExecute({ toolName: 'static_deals' });
    assert.equal(notMine.status, 403);
    assert.equal(notMine.json.error.code, 'tool_not_approved');
  });

  await check('internal tool-execute wants the run\'s own capability: none, a wrong one, another run\'s, a builder one are 403', async () => {
    const before = seen.length;
    refusedCapability(await toolExecute({}, INTERNAL, null), 'the right bearer, no X-Run-Capability');
    refusedCapability(await toolExecute({}, INTERNAL, `${runCap.slice(0, -1)}${runCap.at(-1) === '0' ? '1' : '0'}`), 'a tampered capability');
    refusedCapability(await toolExecute({}, INTERNAL, runCapability(secretsKey, 'builder', ws, app, runId)), 'a builder capability');
    refusedCapability(await toolExecute({}, INTERNAL, runCapability(crypto.randomBytes(32), 'agent', ws, app, runId)), 'another key\'s capability');
    const runB = ok(await call('collab', 'POST', `${appPath}/agent-runs`, { agentId: 'helper', prompt: 'find more deals', draft: true }), 201).id;
    refusedCapability(await toolExecute({}, INTERNAL, agentCapability(app, runB)), 'run B\'s capability for run A');
    refusedCapability(await toolExecute({ runId: runB }), 'run A\'s capability for run B');
    // With neither the token nor a capability, the token is what is checked first.
    assert.equal((await toolExecute({}, null, null)).status, 401);
    assert.equal(seen.length, before, 'the provider was never called');
  });

  await check('a finished agent run\'s capability: tool-execute and tool-failure-report are 409 run_finished', async () => {
    const runC = ok(await call('collab', 'POST', `${appPath}/agent-runs`, { agentId: 'helper', prompt: 'and more', draft: true }), 201).id;
    const capC = agentCapability(app, runC);
    const ofC = { workspaceId: ws, appId: app, runId: runC, agentId: 'helper' };
    assert.equal(ok(await toolExecute({ runId: runC }, INTERNAL, capC)).success, true, 'live, it runs the tool');
    const completion = { workspaceId: ws, appId: app, runId: runC, status: 'completed', result: 'done' };
    refusedCapability(await internal('/api/internal/agent-run-complete', completion), 'agent-run-complete without the capability');
    assert.equal(ok(await internal('/api/internal/agent-run-complete', completion, INTERNAL, capC)).duplicate, false);
    const before = seen.length;
    const finished = (r, what) => {
      assert.equal(r.status, 409, `${what}: ${r.text}`);
      assert.equal(r.json.error.code, 'run_finished', what);
    };
    finished(await toolExecute({ runId: runC }, INTERNAL, capC), 'tool-execute');
    finished(await internal('/api/internal/tool-failure-report', { ...ofC, toolName: 'agent_deals',
      description: JSON.stringify('the tool keeps failing'), attemptedTask: JSON.stringify('list deals'),
      failures: [{ toolName: 'agent_deals', input: {}, executeStatus: 200, error: { errorCode: 'MISSING_INPUT', errorCategory: 'input' } }] },
    INTERNAL, capC), 'tool-failure-report');
    assert.equal(seen.length, before, 'the provider was not called for the finished run');
    // The worker's retried callback still answers 200.
    assert.equal(ok(await internal('/api/internal/agent-run-complete', completion, INTERNAL, capC)).duplicate, true);
  });

  await check('a provider echoing the key encoded: internal tool-execute answers the agent without it in any form', async () => {
    const r = ok(await toolExecute({ toolName: 'agent_echo_encoded', input: '{}' }));
    assert.equal(r.success, true, JSON.stringify(r));
    assert.equal(r.mock, false);
    assertNoEncodedKey(r);
  });

  let oauthConnected = false;
  await check('OAuth: the run\'s triggering user is used (connected collab → bearer), a body userId is ignored', async () => {
    ok(await call('owner', 'PUT', `/api/workspaces/${ws}/integrations/oauth-providers/acmeoauth`, {
      clientId: 'client-1', clientSecret: CANARY_CLIENT_SECRET, authorizationUrl: `${base}/oauth/authorize`, tokenUrl: `${base}/oauth/token` }));
    const start = await call('collab', 'GET', `${appPath}/integrations/oauth/acmeoauth/connect`);
    assert.equal(start.status, 302, start.text);
    const state = new URL(start.location).searchParams.get('state');
    const done = await call('collab', 'GET', `/api/integrations/oauth/callback?code=code-1&state=${state}`);
    assert.equal(done.status, 200, done.text);
    oauthConnected = true;
    const r = ok(await toolExecute({ toolName: 'agent_me', input: '{}', userId: 'owner' }));
    assert.equal(r.success, true, JSON.stringify(r));
    assert.equal(r.mock, false);
    assert.deepEqual(r.data, { me: 'connected-user' });
    assert.equal(seen.at(-1).headers.authorization, `Bearer ${CANARY_ACCESS}`);
    // The app action acts as the current viewer: owner has no account → mock.
    const mine = ok(await exec('owner', 'oauth_me', { draft: true }));
    assert.equal(mine.mock, true);
    const theirs = ok(await exec('collab', 'oauth_me', { draft: true }));
    assert.equal(theirs.mock, false, JSON.stringify(theirs));
  });

  await check('stale agents.json blocks app actions and agent tools; re-approval allows them', async () => {
    const edited = structuredClone(doc);
    edited.appTools[1].description = 'Status of the service.';
    ok(await call('owner', 'PATCH', `${appPath}/agents`, edited));
    const blocked = await exec('collab', 'public_status', { draft: true });
    assert.equal(blocked.status, 409, blocked.text);  // one status per code: approval_stale is a 409
    assert.equal(blocked.json.error.code, 'approval_stale');
    const agentBlocked = await toolExecute({});
    assert.equal(agentBlocked.status, 409);
    assert.equal(agentBlocked.json.error.code, 'approval_stale');
    await approve();
    assert.equal(ok(await exec('collab', 'public_status', { draft: true })).success, true);
    assert.equal(ok(await toolExecute({})).success, true);
  });

  const builderRun = async (id) => ok(await call('owner', 'GET', `${appPath}/runs/${id}/chat`));
  const audit = async () => ok(await call('owner', 'GET', `${appPath}/tool-audit`)).events;
  // The repair run's turn as the worker got it (the run's first and only user message is the
  // repair prompt), and the run once that turn ended: completed, still a repair run.
  const repairTurn = async (runId, source, toolName, errorCode) => {
    const turn = await worker.waitFor(`the repair turn of ${runId}`, () => worker.turns().find((b) => b.runId === runId));
    assert.equal(turn.appId, app);
    assert.equal(turn.workspaceId, ws);
    assert.equal(turn.runCapability, runCapability(secretsKey, 'builder', ws, app, runId));
    assert.match(turn.prompt, /^\[platform: automatic tool failure repair\]/);
    assert.ok(turn.prompt.includes(`\`${toolName}\` (errorCode ${errorCode})`), turn.prompt);
    assert.ok(turn.prompt.includes(`"source":"${source}"`), turn.prompt);
    assert.deepEqual(turn.messages.map((m) => m.role), ['user']);
    assert.equal(turn.messages[0].parts[0].text, turn.prompt);
    const ended = await waitUntil(`the repair run ${runId} to end`, async () => {
      const r = await builderRun(runId);
      return r.status !== 'streaming' && r.status !== 'pending' && r;
    });
    assert.equal(ended.status, 'completed', JSON.stringify(ended));
    assert.equal(ended.runReason, 'app_tool_failure');
    assert.equal(ended.messages.at(-1).role, 'assistant');
    return turn;
  };

  await check('report-failure: editable draft access, creates a repair run and an audit event', async () => {
    const failed = ok(await exec('collab', 'static_deals', { draft: true, input: {} }));
    const body = { input: {}, result: failed, description: `my key is ${CANARY_KEY}`, attemptedTask: 'list deals' };
    assert.equal((await call('viewer', 'POST', `${appPath}/app-tools/static_deals/report-failure`, body)).status, 403);
    const r = ok(await call('collab', 'POST', `${appPath}/app-tools/static_deals/report-failure`, body), 202);
    assert.equal(r.ok, true, JSON.stringify(r));
    assert.equal(r.status, 'repair_started');
    const runRec = await builderRun(r.builderRunId);
    assert.equal(runRec.runReason, 'app_tool_failure');
    // The repair run's turn reached the worker and ran to its end; what the person pasted is
    // only in it as the redacted report.
    const turn = await repairTurn(r.builderRunId, 'app_action', 'static_deals', 'MISSING_INPUT');
    assert.ok(!turn.prompt.includes(CANARY_KEY), 'the pasted key reached the worker');
    const events = await audit();
    const ev = events.find((e) => e.builderRunId === r.builderRunId);
    assert.ok(ev, JSON.stringify(events));
    assert.equal(ev.outcome, 'repair_started');
    assert.equal(ev.toolName, 'static_deals');
    assert.match(ev.fingerprint, /^[0-9a-f]{64}$/);
    assert.match(ev.metadata.reportSha256, /^[0-9a-f]{64}$/);
    assert.ok(!JSON.stringify(ev).includes('my key'));
    // Owner-fixable failures are not builder repairs.
    const cred = ok(await call('collab', 'POST', `${appPath}/app-tools/static_deals/report-failure`,
      { input: {}, result: { success: false, errorCode: 'PROVIDER_UNAUTHORIZED', errorCategory: 'credentials' }, description: 'x' }));
    assert.equal(cred.ok, false);
    assert.equal(cred.status, 'not_repairable');
  });

  await check('internal tool-failure-report: verifies the run, repair run + audit; the loop guard stops the third', async () => {
    const failures = [{ toolName: 'agent_deals', input: {}, executeStatus: 200,
      integration: { name: 'Acme', domain: '127.0.0.1', keySlug: 'acme' },
      endpoint: { method: 'GET', url: `${base}/static/deals` },
      error: { error: 'missing input', errorCode: 'MISSING_INPUT', errorCategory: 'input' } }];
    const body = { workspaceId: ws, appId: app, runId, agentId: 'helper', toolName: 'agent_deals',
      description: JSON.stringify('the tool keeps failing'), attemptedTask: JSON.stringify('list deals'), failures };
    const report = (b, tokenValue = INTERNAL, capability = runCap) => internal('/api/internal/tool-failure-report', b, tokenValue, capability);
    assert.equal((await report(body, 'wrong-token')).status, 401);
    refusedCapability(await report(body, INTERNAL, null), 'no capability');
    refusedCapability(await report({ ...body, appId: other }), 'the run\'s capability for another app');
    assert.equal((await report({ ...body, appId: other }, INTERNAL, agentCapability(other, runId))).status, 404);
    const first = ok(await report(body), 202);
    assert.equal(first.ok, true, JSON.stringify(first));
    assert.equal((await builderRun(first.builderRunId)).runReason, 'app_tool_failure');
    const turn = await repairTurn(first.builderRunId, 'agent_tool', 'agent_deals', 'MISSING_INPUT');
    assert.ok(turn.prompt.includes(`"agentRunId":"${runId}"`), turn.prompt);
    const second = ok(await report(body), 202);
    assert.equal(second.ok, true);
    await repairTurn(second.builderRunId, 'agent_tool', 'agent_deals', 'MISSING_INPUT');
    const turnsBefore = worker.turns().length;
    const third = ok(await report(body));
    assert.equal(third.ok, false);
    assert.equal(third.status, 'loop_guard');
    assert.match(third.error, /repair/);
    assert.equal(worker.turns().length, turnsBefore, 'the loop guard started no turn');
    const events = await audit();
    assert.ok(events.some((e) => e.builderRunId === first.builderRunId && e.actor === `agent_run:${runId}`));
    assert.ok(events.some((e) => e.outcome === 'loop_guard' && e.actor === `agent_run:${runId}`));
  });

  await check('canary secrets and tokens never appear in replies or the server log', async () => {
    const log = fs.readFileSync(path.join(tmp, 'web.log'), 'utf8');
    for (const c of canaries) {
      if (!oauthConnected && (c === CANARY_ACCESS || c === CANARY_REFRESH)) continue;
      assert.ok(!replies.some((t) => t.includes(c)), `a reply carried ${c.slice(0, 14)}`);
      assert.ok(!log.includes(c), `the log carried ${c.slice(0, 14)}`);
    }
    assert.ok(log.includes('tool=static_deals'), 'tool outcomes are logged (ids only)');
    assert.ok(!log.includes(runCap), 'the log carried a run capability');
    for (const c of canaries) assert.ok(!events.includes(c), `an event carried ${c.slice(0, 14)}`);
    for (const c of canaries) assert.ok(!worker.requests.some((r) => JSON.stringify(r.body ?? '').includes(c)), `a worker request carried ${c.slice(0, 14)}`);
    assert.match(events, /"runReason":"app_tool_failure"/);
    eventsAbort.abort();
  });

  provider.close();
  worker.server.close();
}

run(main);
