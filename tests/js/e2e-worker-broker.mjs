// The worker's MCP broker end to end with the real Claude Code CLI and the scripted model
// server: an app-agent run whose model calls a custom tool (run by the web server's
// tool-execute route, with the runId and no user id), a data tool, a failing tool and
// report_tool_call_failed (with the run's bounded, redacted failure record); the real MCP
// TypeScript SDK client lists and calls the tools of a live turn with its token and is refused
// with a wrong one and after the turn; canary secrets given to the worker never reach the
// runtime's environment, its config files, the worker's log or the transcript.
// A small HTTP server here stands in for the web server's internal routes.
//
// Usage: node e2e-worker-broker.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { harness, use } from './harness.mjs';

const args = process.argv.slice(2);
const opt = (name) => args[args.indexOf(name) + 1];
const buildDir = path.resolve(opt('--build'));
const projectDir = path.resolve(opt('--project'));
const { tmp, check, start, run } = harness('platform-broker-e2e-');

const canary = {
  internal: 'canary-internal-token-7f3a9c1e5b2d4f6a8091',
  database: 'postgres://canary-db-user:canary-db-pass-5521@127.0.0.1:1/canary',
  redis: 'redis://:canary-redis-pass-8812@127.0.0.1:1',
  identity: 'canary-identity-secret-3391',
  cookie: 'canary-cookie-value-4471',
  // The run's capability: the worker repeats it to the web server, never to the runtime.
  capability: 'canary-run-capability-6620',
};

// Everything the stand-in web server received, by route.
const received = { execute: [], data: [], report: [], complete: new Map() };
const completeWaiters = new Map();
const completion = (runId) => (received.complete.has(runId) ? Promise.resolve(received.complete.get(runId))
  : new Promise((resolve) => completeWaiters.set(runId, resolve)));

function webRoute(req, body) {
  const record = { auth: req.headers.authorization, capability: req.headers['x-run-capability'], body, raw: JSON.stringify(body) };
  if (req.url === '/api/internal/tool-execute') {
    received.execute.push(record);
    if (body.toolName === 'get_weather') {
      return { success: true, mock: false, statusCode: 200, data: { city: JSON.parse(body.input).city, tempC: 21 } };
    }
    return { success: false, mock: false, statusCode: 500, error: 'Provider answered 500',
      errorCode: 'PROVIDER_HTTP_ERROR', errorCategory: 'provider', retryable: true,
      details: { authorization: 'Bearer should-not-survive', body: 'x'.repeat(5000) } };
  }
  if (req.url === '/api/internal/app-data') {
    received.data.push(record);
    return { ok: true, docId: 'doc-1', version: 1 };
  }
  if (req.url === '/api/internal/tool-failure-report') {
    received.report.push(record);
    return { ok: true, builderRunId: 'repair-1' };
  }
  if (req.url === '/api/internal/agent-run-complete') {
    received.complete.set(body.runId, record);
    completeWaiters.get(body.runId)?.(record);
    return { ok: true };
  }
  return null;
}

// The runtime processes the worker started: its direct children.
function childrenOf(pid) {
  const out = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch { /* gone meanwhile */ }
  }
  return out;
}

function filesUnder(dir) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

async function main() {
  const web = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => { raw += d; });
    req.on('end', () => {
      const reply = webRoute(req, JSON.parse(raw || '{}'));
      res.writeHead(reply ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply ?? { error: { code: 'not_found', message: 'no route' } }));
    });
  });
  await new Promise((r) => web.listen(0, '127.0.0.1', r));
  const webUrl = `http://127.0.0.1:${web.address().port}`;

  const scenario = {
    turns: [
      { blocks: [{ type: 'pause', name: 'first' },
        use('toolu_w', 'mcp__app_tools__get_weather', { input: '{"city":"Oslo"}' })], stop_reason: 'tool_use' },
      { blocks: [use('toolu_d', 'mcp__app_data__update_app_data',
        { collection: 'notes', op: 'insert', data: { city: 'Oslo', tempC: 21 } })], stop_reason: 'tool_use' },
      { blocks: [use('toolu_b', 'mcp__app_tools__post_report', { input: '{"title":"Weekly"}' })], stop_reason: 'tool_use' },
      { blocks: [use('toolu_r', 'mcp__app_tools__report_tool_call_failed',
        { toolName: 'post_report', description: 'The provider failed with 500.', attemptedTask: 'Post the weekly report' })],
      stop_reason: 'tool_use' },
      { blocks: [{ type: 'text', text: 'Weather saved; the report failed and was reported.' }], stop_reason: 'end_turn' },
    ],
    aux: { blocks: [{ type: 'text', text: 'Title' }], stop_reason: 'end_turn' },
  };
  fs.writeFileSync(path.join(tmp, 'scenario.json'), JSON.stringify(scenario));
  const model = await start('model', 'python3', [path.join(projectDir, 'tests/model_server/model_server.py'),
    '--script', path.join(tmp, 'scenario.json'), '--port', '0', '--idle-exit', '600'], {}, /^(\d+)\n/m);
  const modelUrl = `http://127.0.0.1:${model.match[1]}`;
  const workerTmp = path.join(tmp, 'worker-tmp');
  fs.mkdirSync(workerTmp);
  const workerStarted = await start('worker', path.join(buildDir, 'servers/worker/platform-worker'), [], {
    PLATFORM_WORKER_PORT: '0',
    PLATFORM_DATA_DIR: path.join(tmp, 'data'),
    TMPDIR: workerTmp,
    INTERNAL_API_TOKEN: canary.internal,
    PLATFORM_DATABASE_URL: canary.database,
    PLATFORM_REDIS_URL: canary.redis,
    PLATFORM_IDENTITY_HS256_SECRET: canary.identity,
    PLATFORM_WEB_URL: webUrl,
    PLATFORM_CODEX_TRACE: '1',
    ANTHROPIC_BASE_URL: modelUrl,
    ANTHROPIC_API_KEY: 'scripted-model-key',
    CLAUDE_CODE_MAX_RETRIES: '0',
  }, /listening on (http:\S+)/);
  const worker = workerStarted.match[1];
  // Each jailed runtime's private HOME: <data>/sandboxes/<turn>/home (docs/security.md).
  const sandboxes = path.join(tmp, 'data', 'sandboxes');
  const turnConfigs = () => (fs.existsSync(sandboxes) ? fs.readdirSync(sandboxes) : [])
    .map((d) => path.join(sandboxes, d, 'home', 'platform-mcp.json'));
  const workerPid = workerStarted.child.pid;

  const agentConfig = {
    id: 'reporter',
    dataCollections: ['notes'],
    tools: [
      { type: 'custom', name: 'get_weather', description: 'Current weather for a city', enabled: true,
        integration: { name: 'Weather', domain: 'weather.example' },
        endpoint: { method: 'GET', url: 'https://weather.example/v1?q={{city}}&key={{secrets.WEATHER_KEY}}' } },
      { type: 'custom', name: 'post_report', description: 'Posts a report', enabled: true,
        integration: { name: 'Reports', domain: 'reports.example', keySlug: 'team' },
        endpoint: { method: 'POST', url: 'https://reports.example/api', body: { title: '{{title}}' } } },
      { type: 'custom', name: 'switched_off', description: 'Off', enabled: false,
        integration: { name: 'X', domain: 'x.example' }, endpoint: { method: 'GET', url: 'https://x.example/' } },
    ],
  };
  const runBody = {
    runId: 'run1', appId: 'app1', workspaceId: 'ws1', prompt: 'Get the weather in Oslo and post the weekly report',
    systemPrompt: 'You are the reporter agent.', agentConfig, allowedTools: ['mcp__app_data__update_app_data'],
    callbackUrl: `${webUrl}/api/internal/agent-run-complete`, sourceFiles: { 'README.md': 'app\n' },
    runCapability: canary.capability,
  };
  const started = await fetch(`${worker}/sessions/app1__agent__run1/agent-run`, {
    method: 'POST',
    headers: { authorization: `Bearer ${canary.internal}`, 'content-type': 'application/json', cookie: `session=${canary.cookie}` },
    body: JSON.stringify(runBody),
  });
  assert.equal(started.status, 202);

  // The run now waits in the model's first reply: its runtime is up, its grant live.
  let token;
  let mcpConfig;
  await check('the runtime gets its turn token in a private config file, never INTERNAL_API_TOKEN', async () => {
    let file;
    for (let i = 0; i < 600 && !file; i += 1) {
      file = turnConfigs().find((f) => fs.existsSync(f));
      if (!file) await new Promise((r) => setTimeout(r, 50));  // polling for a file to appear, not timing
    }
    assert.ok(file, 'the turn config exists');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    mcpConfig = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.deepEqual(Object.keys(mcpConfig.mcpServers).sort(), ['app_data', 'app_tools']);
    const header = mcpConfig.mcpServers.app_tools.headers.Authorization;
    token = header.slice('Bearer '.length);
    assert.match(token, /^[0-9a-f]{64}$/);
    assert.notEqual(token, canary.internal);
  });

  await check('canaries never reach the runtime environment or its config files', async () => {
    const kids = childrenOf(workerPid);
    assert.ok(kids.length >= 1, 'the runtime runs');
    const all = Object.values(canary);
    for (const pid of kids) {
      const env = fs.readFileSync(`/proc/${pid}/environ`, 'utf8');
      for (const c of all) assert.ok(!env.includes(c), `runtime env holds a canary (${c.slice(0, 12)}…)`);
      assert.ok(!env.includes('PLATFORM_DATABASE_URL') && !env.includes('INTERNAL_API_TOKEN'));
      assert.ok(!env.includes('Get the weather in Oslo'), 'the prompt is not in the environment');
    }
    const home = path.dirname(turnConfigs().find((f) => fs.existsSync(f)));
    for (const f of filesUnder(home)) {
      const text = fs.readFileSync(f, 'utf8');
      for (const c of all) assert.ok(!text.includes(c), `${f} holds a canary`);
    }
  });

  const connect = async (server, bearer) => {
    const client = new Client({ name: 'platform-e2e', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${worker}/mcp/${server}`),
      { requestInit: { headers: { Authorization: `Bearer ${bearer}` } } });
    await client.connect(transport);
    return client;
  };

  await check('the MCP SDK client lists and calls the turn tools with its token', async () => {
    const tools = await connect('app_tools', token);
    const listed = (await tools.listTools()).tools.map((t) => t.name).sort();
    assert.deepEqual(listed, ['get_weather', 'post_report', 'report_tool_call_failed'], 'switched-off tools are not granted');
    const weather = (await tools.listTools()).tools.find((t) => t.name === 'get_weather');
    assert.match(weather.inputSchema.properties.input.description, /city/);
    const result = await tools.callTool({ name: 'get_weather', arguments: { input: '{"city":"Bergen"}' } });
    assert.ok(!result.isError);
    assert.deepEqual(JSON.parse(result.content[0].text).data, { city: 'Bergen', tempC: 21 });
    await assert.rejects(tools.callTool({ name: 'read_app_data', arguments: { collection: 'notes' } }), /read_app_data|-32602/);
    await tools.close();
    const data = await connect('app_data', token);
    const dataTools = (await data.listTools()).tools.map((t) => t.name).sort();
    assert.deepEqual(dataTools, ['read_app_data', 'update_app_data']);
    const refused = await data.callTool({ name: 'read_app_data', arguments: { collection: 'secrets' } });
    assert.ok(refused.isError, 'a collection the agent did not declare is refused');
    assert.equal(received.data.length, 0, 'nothing reached the web server for it');
    await data.close();
    received.execute.length = 0;  // the run's own calls are asserted below
  });

  await check('a wrong token is refused with 401, by the SDK client and on the wire', async () => {
    await assert.rejects(connect('app_tools', 'f'.repeat(64)), /401|Unauthorized|invalid_token/i);
    const r = await fetch(`${worker}/mcp/app_tools`, {
      method: 'POST',
      headers: { authorization: `Bearer ${canary.internal}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(r.status, 401, 'the internal token is not a broker token');
    assert.match(r.headers.get('www-authenticate'), /^Bearer/);
  });

  await fetch(`${modelUrl}/control/release/first`, { method: 'POST' });
  const done = await completion('run1');

  await check('custom tool calls go to tool-execute with the runId and agent, never a user id', async () => {
    const weather = received.execute.find((r) => r.body.toolName === 'get_weather');
    assert.ok(weather, 'get_weather reached the web server');
    assert.equal(weather.auth, `Bearer ${canary.internal}`);
    assert.equal(weather.capability, canary.capability, 'the run capability comes back as X-Run-Capability');
    assert.deepEqual(Object.keys(weather.body).sort(), ['agentId', 'appId', 'input', 'runId', 'toolName', 'workspaceId']);
    assert.deepEqual(weather.body, { workspaceId: 'ws1', appId: 'app1', runId: 'run1', agentId: 'reporter',
      toolName: 'get_weather', input: '{"city":"Oslo"}' });
  });

  await check('the data tool writes the declared collection through the web server', async () => {
    assert.equal(received.data.length, 1);
    assert.equal(received.data[0].capability, canary.capability);
    assert.deepEqual(received.data[0].body, { workspaceId: 'ws1', appId: 'app1', runId: 'run1', agentId: 'reporter',
      action: 'write', request: { collection: 'notes', op: 'insert', data: { city: 'Oslo', tempC: 21 } } });
  });

  await check('report_tool_call_failed sends the bounded, redacted failure record of the run', async () => {
    assert.equal(received.report.length, 1);
    const report = received.report[0];
    assert.equal(report.auth, `Bearer ${canary.internal}`);
    assert.equal(report.capability, canary.capability);
    assert.equal(report.body.runId, 'run1');
    assert.equal(report.body.toolName, 'post_report');
    assert.equal(report.body.failures.length, 1);
    const rec = report.body.failures[0];
    assert.deepEqual(rec.input, { title: 'Weekly' });
    assert.deepEqual(rec.integration, { name: 'Reports', domain: 'reports.example', keySlug: 'team' });
    assert.deepEqual(rec.endpoint, { method: 'POST', url: 'https://reports.example/api' });
    assert.equal(rec.executeStatus, 200);
    assert.equal(rec.error.errorCode, 'PROVIDER_HTTP_ERROR');
    assert.equal(rec.error.details.authorization, '[REDACTED]');
    assert.ok(JSON.stringify(rec).length <= 8192, 'bounded');
    assert.ok(!report.raw.includes('should-not-survive'));
  });

  await check('the run completes; its transcript holds the tool results and no canary', async () => {
    assert.equal(done.body.status, 'completed', JSON.stringify(done.body.error));
    assert.equal(done.capability, canary.capability, 'the completion callback carries the capability too');
    const results = done.body.transcript.filter((m) => m.type === 'user').flatMap((m) => m.message.content)
      .filter((c) => c.type === 'tool_result');
    assert.equal(results.length, 4);
    for (const c of Object.values(canary)) assert.ok(!done.raw.includes(c));
    assert.ok(!done.raw.includes(token), 'the turn token is not in the transcript');
  });

  await check('after the turn its token is revoked', async () => {
    await assert.rejects(connect('app_tools', token), /401|Unauthorized|invalid_token/i);
    const health = await (await fetch(`${worker}/health`)).json();
    assert.equal(health.brokerGrants, 0);
  });

  await check('the worker log (trace on) holds no canary, token or prompt', async () => {
    const log = fs.readFileSync(path.join(tmp, 'worker.log'), 'utf8');
    assert.match(log, /broker call app=app1 run=run1 tool=mcp__app_tools__get_weather/);
    for (const c of [...Object.values(canary), token, 'Get the weather in Oslo', 'scripted-model-key']) {
      assert.ok(!log.includes(c), `log holds ${c.slice(0, 12)}…`);
    }
  });
}

await run(main);
