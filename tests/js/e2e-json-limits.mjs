// JSON bodies at and past their limits on every route of both servers that takes a body (issue
// 14, item 1): generated from one valid template body per route, each request is sent whole
// nested 100,000 levels deep, with each member of the template replaced by such a value, with a
// string member holding a deeply nested JSON text (a route that reads the string as JSON must
// bound it too), wide, with a huge string, over the body limit, and malformed in the ways a
// hand-written scanner could get wrong (escapes, brackets inside strings, bad UTF-8). A body
// the route reads must be refused with a 4xx and the design notes' error body, fast; every
// other answer must be a reply, not a dropped connection or a 500; and the server must still
// answer its health route after every route. Nested documents at the documented limits still
// pass: 64 levels in a body, 100 in agents.json.
//
// platform-web runs with PLATFORM_WORKER_URL pointing at nothing; platform-worker on its own.
//
// Usage: node e2e-json-limits.mjs --build DIR
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import { harness, runCapability, secretsKeyOf } from './harness.mjs';

const args = process.argv.slice(2);
const buildDir = path.resolve(args[args.indexOf('--build') + 1] ?? 'build');
const { tmp, check, start, run } = harness('platform-json-limits-');

const MAX_BODY = 1 << 20;  // PLATFORM_MAX_BODY_BYTES for this test: small enough to send often
const DEEP = 100000;

// node:http with a declared length, so DELETE bodies are framed; a dropped connection (the
// server died) resolves with status 0 instead of throwing.
function send(base, method, p, body, extraHeaders = {}) {
  const u = new URL(base);
  const data = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(body);
  const headers = { ...(data ? { 'content-type': 'application/json', 'content-length': data.length } : {}), ...extraHeaders };
  const began = Date.now();
  return new Promise((resolve) => {
    const req = http.request({ host: u.hostname, port: u.port, method, path: p, headers }, (res) => {
      const chunks = [];
      res.on('data', (d) => chunks.push(d));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json;
        try { json = JSON.parse(text); } catch { json = undefined; }
        resolve({ status: res.statusCode, json, text, ms: Date.now() - began });
      });
      res.on('error', (e) => resolve({ status: 0, text: String(e), ms: Date.now() - began }));
    });
    // Streams (a chat POST that got through) would never end: nothing here waits for one.
    req.setTimeout(20000, () => req.destroy(new Error('no answer in 20 s')));
    req.on('error', (e) => resolve({ status: 0, text: String(e), ms: Date.now() - began }));
    req.end(data);
  });
}

const deepArray = (n) => '['.repeat(n) + ']'.repeat(n);
const deepObject = (n) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
// A template's JSON with member `key` replaced by raw JSON text.
const withRaw = (template, key, raw) => JSON.stringify({ ...template, [key]: '\u0000RAW\u0000' })
  .replace('"\\u0000RAW\\u0000"', () => raw);

// Every body a route is sent: { name, body, must: 'refuse' | 'answer' }. 'refuse': 4xx and the
// error body from a route that reads its body. 'answer': a reply that is not a 500 or a dropped
// connection (a string member may legitimately hold any text; a wide body may be fine).
function variants(template, limit) {
  const out = [
    { name: 'deep array', body: deepArray(DEEP), must: 'refuse' },
    { name: 'deep object', body: deepObject(DEEP), must: 'refuse' },
    { name: 'deep mixed', body: '[{"a":'.repeat(DEEP / 2) + '0' + '}]'.repeat(DEEP / 2), must: 'refuse' },
    { name: 'one level past the route\'s limit', body: withRaw(template, Object.keys(template)[0] ?? 'x', deepArray(limit)),
      must: 'refuse' },
    { name: 'over the body limit', body: JSON.stringify({ ...template, pad: 'x'.repeat(MAX_BODY) }), must: 'refuse' },
    { name: 'wide array', body: `[${'0,'.repeat(200000)}0]`, must: 'refuse' },
    { name: 'wide object', body: withRaw(template, 'wide',
      `{${Array.from({ length: 50000 }, (_, i) => `"k${i}":${i}`).join(',')}}`), must: 'answer' },
    // Malformed: truncated, trailing garbage, brackets inside strings, escaped quotes and
    // backslashes before brackets, a lone surrogate, bytes that are not UTF-8, NUL.
    { name: 'truncated', body: '{"a":', must: 'refuse' },
    { name: 'trailing comma', body: '{"a":1,}', must: 'refuse' },
    { name: 'trailing garbage', body: '{"a":1} x', must: 'refuse' },
    { name: 'unclosed deep', body: '['.repeat(DEEP), must: 'refuse' },
    { name: 'brackets in an unclosed string', body: `{"a":"${'['.repeat(DEEP)}`, must: 'refuse' },
    { name: 'escaped quote then brackets', body: `{"a":"\\"${'['.repeat(DEEP)}`, must: 'refuse' },
    { name: 'escaped backslash then brackets', body: `{"a":"\\\\"${'['.repeat(DEEP)}`, must: 'refuse' },
    { name: 'closers first', body: ']'.repeat(DEEP) + '['.repeat(DEEP), must: 'refuse' },
    { name: 'lone surrogate', body: '{"a":"\\ud800"}', must: 'refuse' },
    { name: 'invalid UTF-8', body: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), must: 'refuse' },
    { name: 'NUL byte', body: Buffer.from([0x7b, 0x00, 0x7d]), must: 'refuse' },
  ];
  for (const key of Object.keys(template)) {
    out.push({ name: `${key} nested deep`, body: withRaw(template, key, deepArray(DEEP)), must: 'refuse' });
    out.push({ name: `${key} an object nested deep`, body: withRaw(template, key, deepObject(DEEP)), must: 'refuse' });
    out.push({ name: `${key} a deeply nested JSON text`, body: JSON.stringify({ ...template, [key]: deepArray(DEEP) }),
      must: 'answer' });
    out.push({ name: `${key} a huge string`, body: JSON.stringify({ ...template, [key]: 'x'.repeat(MAX_BODY - 4096) }),
      must: 'answer' });
  }
  return out;
}

// The design notes' error body; the MCP endpoint answers in JSON-RPC's own error shape.
const errorBody = (r) => (typeof r.json?.error?.code === 'string' && typeof r.json?.error?.message === 'string') ||
  (r.json?.jsonrpc === '2.0' && typeof r.json?.error?.code === 'number');

// Sends every variant to one route (with `headers`), then checks the server is still up.
async function hammer(base, health, [method, p, template, reads, extra = [], limit = 64, headers = {}]) {
  const seen = [];
  for (const v of [...variants(template, limit), ...extra]) {
    const r = await send(base, method, p, v.body, headers);
    const where = `${method} ${p} (${v.name}): ${r.status} ${r.text.slice(0, 200)}`;
    assert.notEqual(r.status, 0, `no reply: ${where}`);
    assert.ok(r.status !== 500 && r.status !== 503, where);
    if (r.status >= 400) assert.ok(errorBody(r), `no error body: ${where}`);
    if (reads && v.must === 'refuse') {
      assert.ok(r.status >= 400 && r.status < 500, `not refused: ${where}`);
      assert.ok(r.ms < 5000, `slow refusal (${r.ms} ms): ${where}`);
    }
    seen.push({ v: v.name, status: r.status, code: r.json?.error?.code, ms: r.ms });
  }
  const up = await send(base, 'GET', health);
  assert.equal(up.status, 200, `${method} ${p}: the server no longer answers ${health}`);
  return seen;
}

const templates = {
  agents: (base) => ({
    appTools: [{ type: 'custom', name: 'lookup', description: 'Looks up.', enabled: true, recommended: false,
      integration: { name: 'Acme', domain: 'api.acme.example', keySlug: 'acme' },
      endpoint: { method: 'GET', url: 'https://api.acme.example/find', headers: { 'X-Api-Key': '{{secrets.ACME_KEY}}' },
        queryParams: { q: '{{q}}' } },
      mockData: [{ n: 1 }, { n: 2 }, { n: 3 }] }],
    agents: [{ id: 'helper', name: 'Helper', description: 'Helps.', systemPrompt: 'Help.', tools: [] }],
    ...base,
  }),
};

await run(async () => {
  const web = (await start('web', path.join(buildDir, 'servers/web/platform-web'), [], {
    PLATFORM_WEB_PORT: '0', PLATFORM_DATA_DIR: path.join(tmp, 'web'), PLATFORM_WORKER_URL: 'http://127.0.0.1:9',
    PLATFORM_MAX_BODY_BYTES: String(MAX_BODY),
  }, /listening on (http:\S+)/)).match[1];
  const worker = (await start('worker', path.join(buildDir, 'servers/worker/platform-worker'), [], {
    PLATFORM_WORKER_PORT: '0', PLATFORM_DATA_DIR: path.join(tmp, 'worker'),
  }, /listening on (http:\S+)/)).match[1];
  const json = async (method, p, body, status = 200) => {
    const r = await send(web, method, p, body === undefined ? undefined : JSON.stringify(body));
    assert.equal(r.status, status, `${method} ${p}: ${r.text}`);
    return r.json;
  };

  // What the routes need to exist so that each one reaches its body: an app with approved
  // agents.json, a builder run, a draft agent run.
  const W = '/api/workspaces/default';
  const app = (await json('POST', `${W}/apps`, { name: 'Limits' }, 201)).id;
  const A = `${W}/apps/${app}`;
  const agentsDoc = templates.agents({});
  assert.equal((await json('PATCH', `${A}/agents`, agentsDoc, 200)).valid, true);
  const view = await json('GET', `${A}/agents`);
  await json('POST', `${A}/agents/approval`, { approvalHash: view.draftHash }, 200);
  const runId = (await json('POST', `${A}/runs`, {}, 201)).id;
  const agentRun = (await json('POST', `${A}/agent-runs`, { agentId: 'helper', prompt: 'p', draft: true }, 201)).id;
  const runBody = { workspaceId: 'default', appId: app, runId: agentRun, agentId: 'helper' };
  // The internal routes read the body, then want the capability of the run it names (403
  // otherwise): sent along, the agent run's (the integration routes: the builder run's), a valid
  // body goes on to the handler as before.
  const secretsKey = secretsKeyOf(path.join(tmp, 'web'));
  const agentCap = { 'x-run-capability': runCapability(secretsKey, 'agent', 'default', app, agentRun) };
  const builderCap = { 'x-run-capability': runCapability(secretsKey, 'builder', 'default', app, runId) };
  const message = { id: 'm1', role: 'user', parts: [{ type: 'text', text: 'hi' }], metadata: { from: 'test' } };

  // [method, path, template, reads its body, extra variants, the route's depth limit]
  const webRoutes = [
    ['POST', '/api/session', {}, false],
    ['DELETE', '/api/session', {}, false],
    ['POST', '/api/workspaces', { name: 'w' }, true],
    ['POST', `${W}/members`, { userId: 'u1', role: 'viewer' }, true],
    ['POST', `${W}/apps`, { name: 'a' }, true],
    ['PATCH', A, { name: 'Limits' }, true],
    ['POST', `${A}/runs`, {}, false],
    ['POST', `${A}/runs/${runId}/chat`, { messages: [message] }, true, [
      { name: 'metadata nested deep', body: withRaw({ messages: 0 }, 'messages',
        `[{"id":"m1","role":"user","parts":[{"type":"text","text":"hi"}],"metadata":${deepArray(DEEP)}}]`), must: 'refuse' },
      { name: 'a part nested deep', body: withRaw({ messages: 0 }, 'messages',
        `[{"id":"m1","role":"user","parts":[{"type":"text","text":"hi"},${deepObject(DEEP)}]}]`), must: 'refuse' },
    ]],
    ['POST', `${A}/runs/${runId}/stop`, {}, false],
    ['PUT', '/api/setup/provider-keys/ANTHROPIC_API_KEY', { value: 'k' }, true],
    ['PATCH', `${A}/agents`, agentsDoc, true, [], 100],
    ['POST', `${A}/agents/approval`, { approvalHash: view.draftHash }, true],
    ['POST', `${A}/publish`, {}, false],
    ['POST', `${A}/reviews`, { note: 'n' }, true],
    ['POST', `${A}/reviews/rev_x/approve`, { note: 'n' }, true],
    ['POST', `${A}/reviews/rev_x/reject`, { note: 'n' }, true],
    ['POST', `${A}/data`, { op: 'insert', collection: 'notes', scope: 'draft', data: { a: 1 } }, true],
    ['POST', '/api/internal/app-data', { ...runBody, action: 'write',
      request: { op: 'insert', collection: 'notes', data: { a: 1 } } }, true, [], 64, agentCap],
    ['POST', `${A}/agent-runs`, { agentId: 'helper', prompt: 'p', draft: true }, true],
    ['POST', `${A}/agent-runs/${agentRun}/stream?startOnly=1`, {}, false],
    ['POST', `${A}/agent-runs/${agentRun}/stop`, {}, false],
    ['PUT', `${A}/integrations/secrets`, { domain: 'api.acme.example', keySlug: 'acme', name: 'ACME_KEY', value: 'v' }, true],
    ['DELETE', `${A}/integrations/secrets?domain=api.acme.example&keySlug=acme&name=NONE`, {}, false],
    ['PUT', `${W}/integrations/oauth-providers/github`, { clientId: 'c', clientSecret: 's',
      authorizationUrl: 'https://github.com/login/oauth/authorize', tokenUrl: 'https://github.com/login/oauth/access_token' }, true],
    ['DELETE', `${W}/integrations/oauth-providers/github`, {}, false],
    ['DELETE', `${A}/integrations/oauth/github`, {}, false],
    ['POST', `${A}/app-tools/lookup/execute`, { draft: true, input: { q: 'x' } }, true],
    ['POST', `${A}/app-tools/lookup/report-failure`, { input: { q: 'x' }, result: { success: false, errorCode: 'X' },
      description: 'd', attemptedTask: 't' }, true],
    ['POST', '/api/internal/tool-execute', { ...runBody, toolName: 'lookup', input: '{"q":"x"}' }, true, [], 64, agentCap],
    ['POST', '/api/internal/tool-failure-report', { ...runBody, toolName: 'lookup', description: '"d"',
      attemptedTask: '"t"', failures: [{ toolName: 'lookup', input: {}, error: { errorCode: 'X' } }] }, true, [], 64, agentCap],
    ['POST', '/api/internal/agent-run-complete', { ...runBody, status: 'completed', summary: 's' }, true, [], 64, agentCap],
    ['POST', '/api/internal/integration-requirements', { workspaceId: 'default', appId: app, runId,
      setup: { integrations: [] } }, true, [], 64, builderCap],
    ['POST', '/api/internal/workspace-integrations', { workspaceId: 'default', appId: app, runId }, true, [], 64, builderCap],
  ];
  // The worker's templates are invalid in a harmless way (no runId, a bad path, an unknown
  // key), so a body that gets through starts no runtime and writes nothing. Its bodies come from
  // the web and carry runtime output back, so they may nest as deep as stored JSON (1024).
  const workerRoutes = [
    ['POST', '/sessions/app_x/messages', { prompt: 'p', messages: [message], runtimeId: 'runtime-a', runCapability: 'cap-x' },
      true, [], 1024],
    ['POST', '/sessions/app_x/agent-run', { prompt: 'p', runtimeId: 'runtime-a', runCapability: 'cap-x' }, true, [], 1024],
    ['POST', '/sessions/app_x/agent-run/arun_x/stop', {}, false],
    ['PUT', '/sessions/app_x/files', { path: '../outside', content: 'c' }, true, [], 1024],
    ['PUT', '/provider-keys/NOT_A_KEY', { value: 'v' }, true],
    ['POST', '/mcp/platform', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, false],
  ];

  const refusals = {};
  await check('platform-web: every route that reads a body refuses deep, malformed and oversized bodies with a 4xx', async () => {
    for (const route of webRoutes) {
      const seen = await hammer(web, '/api/health', route);
      refusals[`${route[0]} ${route[1]}`] = seen;
    }
    // The routes whose body reaches a parser answer too_deep itself (not a 404 of a check
    // before the body), so the bound is what answered.
    for (const key of [`POST ${A}/runs/${runId}/chat`, `PATCH ${A}/agents`, `POST ${A}/data`,
      `POST ${A}/app-tools/lookup/execute`, '/api/internal/tool-failure-report', `POST ${W}/apps`]) {
      const seen = Object.entries(refusals).find(([k]) => k.endsWith(key))?.[1];
      assert.ok(seen, key);
      assert.equal(seen.find((s) => s.v === 'deep array').code, 'too_deep', `${key}: ${JSON.stringify(seen[0])}`);
    }
    const all = Object.entries(refusals).flatMap(([route, seen]) => seen.map((s) => ({ route, ...s })));
    const slowest = all.reduce((a, b) => (b.ms > a.ms ? b : a));
    const deep = all.filter((s) => s.code === 'too_deep');
    console.log(`     web: ${all.length} requests, ${deep.length} answered too_deep (slowest ${Math.max(...deep.map((s) => s.ms))} ms); ` +
      `slowest answer ${slowest.ms} ms (${slowest.route}, ${slowest.v})`);
  });

  await check('platform-worker: every route that reads a body refuses deep, malformed and oversized bodies with a 4xx', async () => {
    const all = [];
    for (const route of workerRoutes) all.push(...await hammer(worker, '/health', route));
    const deep = all.filter((s) => s.code === 'too_deep');
    console.log(`     worker: ${all.length} requests, ${deep.length} answered too_deep (slowest ${Math.max(...deep.map((s) => s.ms))} ms)`);
  });

  await check('documents at the limits still pass: 64 levels in a body, 100 in agents.json', async () => {
    // A chat message's metadata 60 levels down (the message adds 3, the body 1).
    const meta = withRaw({ messages: 0 }, 'messages',
      `[{"id":"m1","role":"user","parts":[{"type":"text","text":"hi"}],"metadata":${deepArray(60)}}]`);
    const chat = await send(web, 'POST', `${A}/runs/${runId}/chat`, meta);
    assert.notEqual(chat.json?.error?.code, 'too_deep', chat.text);
    assert.equal(chat.status, 200, chat.text);  // the turn starts (and fails on the missing worker)
    // agents.json 100 levels deep is stored and reported by validation, 101 is refused.
    const at = (n) => withRaw(templates.agents({}), 'extra', deepArray(n - 1));
    const ok = await send(web, 'PATCH', `${A}/agents`, at(100));
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.json.valid, false);
    assert.ok(ok.json.problems.some((p) => p.code === 'unknown_field'), ok.text);
    const deep = await send(web, 'PATCH', `${A}/agents`, at(101));
    assert.equal(deep.status, 400, deep.text);
    assert.equal(deep.json.error.code, 'too_deep');
    // The document that was valid before is still what GET shows after the refusal.
    await json('PATCH', `${A}/agents`, agentsDoc, 200);
    assert.equal((await json('GET', `${A}/agents`)).valid, true);
  });
});
