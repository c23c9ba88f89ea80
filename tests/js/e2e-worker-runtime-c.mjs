// runtime-c on platform-worker end to end, through the worker's HTTP API, with the real
// opencode CLI (`opencode run --format json`) and the scripted model server (chat
// completions): a builder text turn (worker messages, result with usage), a bash tool turn, the
// session restored on a fresh worker process, an unknown session starting fresh, an app-agent
// run restricted to its tools (callback), the present_plan approval stop over the MCP broker,
// a builder turn writing a Vite + React app with opencode's `write` and calling done_building
// (ok with a preview; ok:false with tsc's message after a type error), an app-agent run calling
// a custom tool (the stand-in web server's tool-execute fetches a test endpoint on 127.0.0.1)
// and update_app_data,
// a user's stop through the worker's stop route ending opencode and its jail before its reply
// while the model holds it (issue 33),
// GET /opencode/models (metadata only), GET /detect-provider (booleans only), and a real
// opencode from before `run --format json` (0.1.174) refused before any model request.
// Each scenario is one provider of the operator's opencode config, served by its own
// scripted model server, so one worker config reaches all of them.
//
// Usage: node e2e-worker-runtime-c.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { connectionsTo, describeConnection, describeProcess, harness, isCli, runtimeProcesses, SseReader, use, waitUntil } from './harness.mjs';

const args = process.argv.slice(2);
const opt = (name) => args[args.indexOf(name) + 1];
const buildDir = path.resolve(opt('--build'));
const projectDir = path.resolve(opt('--project'));
const { tmp, check, start, run } = harness('platform-runtime-c-e2e-');

const internalToken = 'canary-internal-token-for-runtime-c-0123456789';
const providerKey = 'sk-canary-provider-key-4f1e9a7c2b';  // OPENAI_API_KEY: the providers' key
const systemPrompt = 'You are the "platform builder".\nAnswer briefly.';
const opencodeBin = path.join(projectDir, 'runtimes/node_modules/.bin/opencode');
const noJsonBin = path.join(projectDir, 'runtimes/opencode-nojson/node_modules/.bin/opencode');

const dataDir = path.join(tmp, 'data');
const buildWs = path.join(dataDir, 'workspaces', 'app-build');
const counterTsx = `import { useState } from 'react';
import { Button } from './Button.tsx';

export function Counter() {
  const [count, setCount] = useState(0);
  return <Button onClick={() => setCount(count + 1)}>Clicked {count} times</Button>;
}
`;
const appTsx = `import { Counter } from './components/Counter.tsx';

export default function App() {
  return (
    <main className="p-8">
      <h1 className="text-2xl font-bold">Counter app</h1>
      <Counter />
    </main>
  );
}
`;
const brokenTsx = `export const total: number = 'not a number';
`;

const text = (t) => ({ type: 'text', text: t });
const aux = { blocks: [text('Scripted title')], stop_reason: 'end_turn' };
const scenarios = {
  // A builder turn through platform-web, with the app's persisted runtime-c settings.
  web: [{ blocks: [text('Hello through the platform.')], stop_reason: 'end_turn' }],
  text: [
    { blocks: [{ type: 'thinking', thinking: 'The user wants a greeting.' }, text('Hello from runtime-c.')],
      stop_reason: 'end_turn', usage: { input_tokens: 1200, cache_read_input_tokens: 300, output_tokens: 20 } },
    { blocks: [text('Second answer; I remember the greeting.')], stop_reason: 'end_turn' },
  ],
  tool: [
    { blocks: [{ type: 'pause', name: 'tool-start' }, text('Running it.'),
      use('call_bash_1', 'bash', { command: 'echo runtime-c-$((6*7)) > marker.txt && cat marker.txt', description: 'Write a marker' })],
    stop_reason: 'tool_use' },
    { blocks: [text('The marker says runtime-c-42.')], stop_reason: 'end_turn' },
  ],
  plan: [
    { blocks: [text('Here is my plan.'),
      use('call_plan_1', 'platform_present_plan', { title: 'Todo app', steps: ['Create the list', 'Add persistence'] })],
    stop_reason: 'tool_use' },
    { blocks: [{ type: 'pause', name: 'never', timeout: 300 }, text('SHOULD NOT APPEAR')], stop_reason: 'end_turn' },
  ],
  agent: [
    { blocks: [use('call_data_1', 'app_data_update_app_data', { collection: 'notes', op: 'insert', data: { text: 'hi' } })],
      stop_reason: 'tool_use' },
    { blocks: [text('Saved the note.')], stop_reason: 'end_turn' },
  ],
  // A builder writing a small Vite + React app with opencode's own file tools, then
  // done_building over the broker; its next turn adds a type error and builds again.
  build: [
    { blocks: [use('call_read_app', 'read', { filePath: path.join(buildWs, 'src/App.tsx') })], stop_reason: 'tool_use' },
    { blocks: [text('Writing the app.'),
      use('call_w_app', 'write', { filePath: path.join(buildWs, 'src/App.tsx'), content: appTsx }),
      use('call_w_counter', 'write', { filePath: path.join(buildWs, 'src/components/Counter.tsx'), content: counterTsx })],
    stop_reason: 'tool_use' },
    { blocks: [use('call_done_1', 'platform_done_building', { summary: 'A counter app.' })], stop_reason: 'tool_use' },
    { blocks: [text('The counter app is built.')], stop_reason: 'end_turn' },
    { blocks: [use('call_w_broken', 'write', { filePath: path.join(buildWs, 'src/components/Broken.tsx'), content: brokenTsx })],
      stop_reason: 'tool_use' },
    { blocks: [use('call_done_2', 'platform_done_building', {})], stop_reason: 'tool_use' },
    { blocks: [text('The build has a type error.')], stop_reason: 'end_turn' },
  ],
  // A reply held from its start, then a shell command: an opencode that outlived a stop would
  // run it and ask the model again.
  stop: [
    { blocks: [{ type: 'pause', name: 'hold' }, text('Working on it.'),
      use('call_after_stop', 'bash', { command: 'echo after > after-stop.txt', description: 'After the stop' })],
    stop_reason: 'tool_use' },
    { blocks: [text('Never said.')], stop_reason: 'end_turn' },
  ],
  // An app agent calling its custom tool, then writing a note.
  tools: [
    { blocks: [use('call_weather_1', 'app_tools_get_weather', { input: '{"city":"Oslo"}' })], stop_reason: 'tool_use' },
    { blocks: [use('call_data_2', 'app_data_update_app_data', { collection: 'notes', op: 'insert', data: { city: 'Oslo', tempC: 21 } })],
      stop_reason: 'tool_use' },
    { blocks: [text('Saved the weather in Oslo.')], stop_reason: 'end_turn' },
  ],
};

// The stand-in web server: custom tool calls (run against a test endpoint on the same server,
// the endpoint URL's input placeholders filled in), app data writes and completion callbacks.
const received = { execute: [], endpoint: [], data: [], complete: new Map() };
const agentTools = new Map();  // agentId → its tools, as the web server knows them
const waiters = new Map();
const completion = (runId) => (received.complete.has(runId) ? Promise.resolve(received.complete.get(runId))
  : new Promise((resolve) => waiters.set(runId, resolve)));

function requestsOf(log) {
  if (!fs.existsSync(log)) return [];
  return fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
    .filter((r) => r.path.endsWith('/chat/completions'));
}

// Direct children of a process: the runtime CLIs the worker started.
function childrenOf(pid) {
  const out = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(Number(entry));
    } catch { /* gone meanwhile */ }
  }
  return out;
}

async function main() {
  const web = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => { raw += d; });
    req.on('end', async () => {
      if (req.method === 'GET' && req.url.startsWith('/test-endpoint/weather')) {
        const city = new URL(req.url, 'http://x').searchParams.get('city');
        received.endpoint.push(city);
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ city, tempC: 21 }));
      }
      const body = JSON.parse(raw || '{}');
      let reply = null;
      if (req.url === '/api/internal/tool-execute') {
        received.execute.push({ auth: req.headers.authorization, capability: req.headers['x-run-capability'], body });
        const tool = (agentTools.get(body.agentId) ?? []).find((t) => t.name === body.toolName);
        const input = JSON.parse(body.input);
        const url = tool.endpoint.url.replace(/\{\{(\w+)\}\}/g, (_, k) => encodeURIComponent(input[k] ?? ''));
        const r = await fetch(url);
        reply = { success: r.ok, mock: false, statusCode: r.status, data: await r.json() };
      } else if (req.url === '/api/internal/app-data') {
        received.data.push(body);
        received.dataAuth = req.headers.authorization;
        received.dataCapability = req.headers['x-run-capability'];
        reply = { ok: true, docId: 'doc-1', version: 1 };
      } else if (req.url === '/api/internal/agent-run-spend') {
        reply = { stop: false };  // the run's spend so far, per step (budgets)
      } else if (req.url === '/api/internal/agent-run-complete') {
        const record = { auth: req.headers.authorization, capability: req.headers['x-run-capability'], body, raw };
        received.complete.set(body.runId, record);
        waiters.get(body.runId)?.(record);
        reply = { ok: true };
      }
      res.writeHead(reply ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply ?? { error: { code: 'not_found', message: 'no route' } }));
    });
  });
  await new Promise((r) => web.listen(0, '127.0.0.1', r));
  const webUrl = `http://127.0.0.1:${web.address().port}`;

  // One scripted model server per scenario; the operator's config names each as a provider.
  const servers = {};
  for (const [name, turns] of Object.entries(scenarios)) {
    const script = path.join(tmp, `${name}.json`);
    fs.writeFileSync(script, JSON.stringify({ turns, aux }));
    const log = path.join(tmp, `${name}.requests.jsonl`);
    const m = await start(`model-${name}`, 'python3', [path.join(projectDir, 'tests/model_server/model_server.py'),
      '--script', script, '--port', '0', '--log', log, '--idle-exit', '600'], {}, /^(\d+)\n/m);
    servers[name] = { url: `http://127.0.0.1:${m.match[1]}`, log };
  }
  const model = (extra = {}) => ({ name: 'Scripted', reasoning: true, tool_call: true,
    limit: { context: 128000, output: 8192 }, cost: { input: 1, output: 2, cache_read: 0.1 }, ...extra });
  const provider = (name) => ({ npm: '@ai-sdk/openai-compatible', name: `Scripted ${name}`,
    options: { baseURL: `${servers[name].url}/v1`, apiKey: '{env:OPENAI_API_KEY}' },
    models: { m: model(), ...(name === 'text' ? { 'no-tools': model({ tool_call: false }) } : {}) } });
  const configPath = path.join(tmp, 'operator-opencode.jsonc');
  fs.writeFileSync(configPath, `// the operator's providers\n${JSON.stringify({
    $schema: 'https://opencode.ai/config.json',
    model: 'text/m',
    provider: Object.fromEntries(Object.keys(scenarios).map((n) => [n, provider(n)])),
    // Not for runs: the worker copies only provider and model keys.
    mcp: { operator_only: { type: 'local', command: ['/bin/false'], enabled: true } },
    permission: { '*': 'allow' },
  }, null, 2)}\n`);

  const workerTmp = path.join(tmp, 'worker-tmp');
  fs.mkdirSync(workerTmp);
  const startWorker = async (name, extra = {}) => {
    const w = await start(name, path.join(buildDir, 'servers/worker/platform-worker'), [], {
      PLATFORM_WORKER_PORT: '0', PLATFORM_DATA_DIR: dataDir, TMPDIR: workerTmp, INTERNAL_API_TOKEN: internalToken,
      PLATFORM_WEB_URL: webUrl, PLATFORM_OPENCODE_CONFIG: configPath, PLATFORM_OPENCODE_PATH: opencodeBin,
      OPENAI_API_KEY: providerKey, PLATFORM_APP_TEMPLATE_DIR: path.join(projectDir, 'templates/app-workspace'), ...extra,
    }, /listening on (http:\S+)/);
    return { url: w.match[1], child: w.child };
  };
  let worker = await startWorker('worker');

  const auth = { authorization: `Bearer ${internalToken}`, 'content-type': 'application/json' };
  const settings = (runtimeModel, runtimeParams = {}) => ({ settings: { runtimeId: 'runtime-c', runtimeModel, runtimeParams } });
  const builderBody = (runId, prompt, runtimeModel, extra = {}) => ({
    runId, workspaceId: 'ws1', appId: 'app1', prompt, systemPrompt, settings: settings(runtimeModel), runCapability: `cap-${runId}`, ...extra });
  const postTurn = (w, body, app = 'app1') => fetch(`${w.url}/sessions/${app}/messages`,
    { method: 'POST', headers: auth, body: JSON.stringify(body) });
  const messagesOf = async (res) => {
    assert.equal(res.status, 200, await res.clone().text());
    const events = await new SseReader(res, { payload: true }).toEnd();
    return events.filter((e) => e !== '[DONE]').map((e) => JSON.parse(e));
  };
  const textOf = (msgs) => msgs.filter((m) => m.type === 'stream_event' && m.event?.delta?.type === 'text_delta')
    .map((m) => m.event.delta.text).join('');
  const resultOf = (msgs) => msgs.find((m) => m.type === 'result');

  let firstSession;
  await check('builder text turn: worker messages, thinking, text, result with platform_turn_usage', async () => {
    const body = builderBody('run1', 'Say hello', 'text/m');
    body.settings.settings.runtimeParams = { variant: 'high' };
    const msgs = await messagesOf(await postTurn(worker, body));
    assert.equal(msgs[0].type, 'system');
    assert.equal(msgs[0].subtype, 'init');
    firstSession = msgs[0].session_id;
    assert.match(firstSession, /^ses_/);
    assert.equal(textOf(msgs), 'Hello from runtime-c.');
    const thinking = msgs.filter((m) => m.event?.delta?.type === 'thinking_delta').map((m) => m.event.delta.thinking);
    assert.deepEqual(thinking, ['The user wants a greeting.']);
    const result = resultOf(msgs);
    assert.equal(result.is_error, false);
    assert.equal(result.result, 'Hello from runtime-c.');
    assert.equal(result.session_id, firstSession);
    const u = result.platform_turn_usage;
    assert.equal(u.totalInputTokens, 1200);
    assert.equal(u.totalCacheReadTokens, 300);
    assert.equal(u.totalOutputTokens, 20);
    assert.ok(Math.abs(u.totalCostUsd - 0.00127) < 1e-9, String(u.totalCostUsd));
    assert.deepEqual(Object.keys(u.byModel), ['text/m']);
    // What the model got: the system prompt (from the run's agent file), the prompt from stdin,
    // the variant as reasoning_effort, and no title call (--title).
    const reqs = requestsOf(servers.text.log);
    assert.equal(reqs.length, 1);
    assert.ok(reqs[0].body.messages[0].content.startsWith(systemPrompt), reqs[0].body.messages[0].content.slice(0, 80));
    assert.deepEqual(reqs[0].body.messages.slice(1), [{ role: 'user', content: 'Say hello' }]);
    assert.equal(reqs[0].body.reasoning_effort, 'high');
    assert.equal(reqs[0].headers.authorization, '[redacted]');
    const tools = reqs[0].body.tools.map((t) => t.function.name);
    for (const t of ['bash', 'edit', 'write', 'read', 'platform_present_plan']) assert.ok(tools.includes(t), t);
    assert.ok(!tools.includes('task'), 'no subagents: their tool calls would not show');
    assert.ok(!tools.some((t) => t.startsWith('operator_only')), "the operator's MCP servers are not the run's");
  });

  let savedState;
  await check('session-state holds the opencode export of the session', async () => {
    const r = await fetch(`${worker.url}/sessions/app1/session-state?runId=run1`, { headers: auth });
    savedState = (await r.json()).sessionState;
    assert.equal(savedState.runtimeId, 'runtime-c');
    assert.equal(savedState.sessionId, firstSession);
    assert.equal(savedState.format, 'opencode-export');
    const exported = JSON.parse(savedState.data);
    assert.equal(exported.info.id, firstSession);
    assert.ok(!savedState.data.includes(providerKey));
  });

  await check('a second turn on a fresh worker process restores the session', async () => {
    worker.child.kill('SIGKILL');
    worker = await startWorker('worker2');
    const msgs = await messagesOf(await postTurn(worker,
      builderBody('run1', 'Do you remember?', 'text/m', { sessionState: savedState })));
    const result = resultOf(msgs);
    assert.equal(result.is_error, false, result.result);
    assert.equal(result.result, 'Second answer; I remember the greeting.');
    assert.equal(result.session_id, firstSession, 'the same session continued');
    const last = requestsOf(servers.text.log).at(-1);
    assert.deepEqual(last.body.messages.slice(1).map((m) => [m.role, m.content]), [
      ['user', 'Say hello'], ['assistant', 'Hello from runtime-c.'], ['user', 'Do you remember?']]);
  });

  await check('an unknown session starts a fresh session in the same run', async () => {
    const before = requestsOf(servers.text.log).length;
    const bogus = { runtimeId: 'runtime-c', sessionId: 'ses_doesnotexist0000000000', format: 'opencode-export',
      data: JSON.stringify({ info: { id: 'ses_someotherone000000000' }, messages: [] }) };
    const msgs = await messagesOf(await postTurn(worker, builderBody('run2', 'Say hello', 'text/m', { sessionState: bogus }), 'app2'));
    const result = resultOf(msgs);
    assert.equal(result.is_error, false, result.result);
    assert.equal(result.result, 'Hello from runtime-c.');
    assert.match(result.session_id, /^ses_/);
    assert.notEqual(result.session_id, bogus.sessionId);
    const reqs = requestsOf(servers.text.log).slice(before);
    assert.equal(reqs.length, 1);
    assert.deepEqual(reqs[0].body.messages.slice(1), [{ role: 'user', content: 'Say hello' }]);
  });

  await check('tool turn: bash runs in the app workspace; private per-turn config, nothing secret in env', async () => {
    const res = await postTurn(worker, builderBody('run3', 'Write the marker', 'tool/m'));
    assert.equal(res.status, 200);
    const reader = new SseReader(res, { payload: true });
    await reader.until((e) => e.some((x) => x.includes('"init"')));
    // The model holds its first reply: look at the live opencode process and its tree.
    const kids = childrenOf(worker.child.pid);
    assert.equal(kids.length, 1, 'one opencode process');
    const env = fs.readFileSync(`/proc/${kids[0]}/environ`, 'utf8').split('\0');
    const names = env.map((e) => e.split('=')[0]).filter(Boolean).sort();
    assert.ok(!names.includes('INTERNAL_API_TOKEN') && !names.includes('PLATFORM_OPENCODE_CONFIG'));
    assert.ok(!env.some((e) => e.includes(internalToken) || e.includes('Write the marker') || e.includes('platform builder')));
    assert.ok(env.includes('OPENCODE_DISABLE_MODELS_FETCH=1') && env.includes('OPENCODE_DISABLE_AUTOUPDATE=1'));
    // The run's jail: its HOME (<data>/sandboxes/<turn>/home) is the opencode tree.
    const jails = path.join(dataDir, 'sandboxes');
    const tree = fs.readdirSync(jails).map((d) => path.join(jails, d, 'home'))
      .find((d) => fs.existsSync(path.join(d, 'config/opencode/opencode.json')));
    const configFile = path.join(tree, 'config/opencode/opencode.json');
    assert.equal(fs.statSync(configFile).mode & 0o777, 0o600);
    const cfgText = fs.readFileSync(configFile, 'utf8');
    const cfg = JSON.parse(cfgText);
    assert.ok(!cfgText.includes('platform builder') && !cfgText.includes('Write the marker'), 'no prompt in the config');
    assert.ok(!cfgText.includes(internalToken) && !cfgText.includes(providerKey));
    assert.deepEqual(Object.keys(cfg.mcp), ['platform']);
    assert.equal(cfg.mcp.platform.type, 'remote');
    assert.match(cfg.mcp.platform.headers.Authorization, /^Bearer [0-9a-f]{64}$/);
    assert.equal(cfg.mcp.platform.url, 'http://127.0.0.1:47802/mcp/platform', 'the broker through the jail\'s broker door');
    const provider = cfg.provider.tool;  // the turn's model is tool/m
    assert.equal(provider.options.baseURL, 'http://127.0.0.1:47801', 'the provider through the jail\'s provider door');
    assert.match(provider.options.apiKey, /^platform-sandbox-[0-9a-f]{32}$/, 'a placeholder, never the key');
    assert.ok(!('permission' in cfg) && !('operator_only' in cfg.mcp), "the operator's other keys stay out");
    assert.match(cfg.agent.platform.prompt, /^\{file:.*system-prompt\.md\}$/);
    assert.equal(fs.readFileSync(path.join(tree, 'system-prompt.md'), 'utf8'), systemPrompt);
    await fetch(`${servers.tool.url}/control/release/tool-start`, { method: 'POST' });
    await reader.toEnd();
    const msgs = reader.events.filter((e) => e !== '[DONE]').map((e) => JSON.parse(e));
    const toolUse = msgs.filter((m) => m.type === 'assistant').flatMap((m) => m.message.content).find((c) => c.type === 'tool_use');
    assert.equal(toolUse.name, 'Bash');
    assert.equal(toolUse.input.command, 'echo runtime-c-$((6*7)) > marker.txt && cat marker.txt');
    const toolResult = msgs.filter((m) => m.type === 'user').flatMap((m) => m.message.content).find((c) => c.type === 'tool_result');
    assert.equal(toolResult.tool_use_id, toolUse.id);
    assert.ok(!toolResult.is_error);
    assert.match(JSON.stringify(toolResult.content), /runtime-c-42/);
    assert.equal(fs.readFileSync(path.join(dataDir, 'workspaces/app1/marker.txt'), 'utf8'), 'runtime-c-42\n');
    assert.equal(resultOf(msgs).result, 'The marker says runtime-c-42.');
    // The worker drops the turn once the response is complete, just after [DONE].
    for (let i = 0; i < 200 && fs.existsSync(tree); i += 1) await new Promise((r) => setTimeout(r, 50));
    assert.ok(!fs.existsSync(tree), 'the per-turn tree is removed after the turn');
  });

  await check('present_plan over the MCP broker is an approval stop: the turn ends after the tool result', async () => {
    const msgs = await messagesOf(await postTurn(worker, builderBody('run4', 'Plan a todo app', 'plan/m'), 'app3'));
    const toolUse = msgs.filter((m) => m.type === 'assistant').flatMap((m) => m.message.content).find((c) => c.type === 'tool_use');
    assert.equal(toolUse.name, 'mcp__platform__present_plan');
    assert.deepEqual(toolUse.input.steps, ['Create the list', 'Add persistence']);
    const toolResult = msgs.filter((m) => m.type === 'user').flatMap((m) => m.message.content).find((c) => c.type === 'tool_result');
    assert.match(JSON.stringify(toolResult.content), /awaiting_approval/);
    const result = resultOf(msgs);
    assert.equal(result.stop_reason, 'approval_stop');
    // Nothing of the runtime's after the stop; the worker then closes the turn.
    assert.equal(msgs.at(-2), result, 'nothing after the stop');
    assert.equal(msgs.at(-1).type, 'platform_turn_end');
    assert.ok(!JSON.stringify(msgs).includes('SHOULD NOT APPEAR'));
    const health = await (await fetch(`${worker.url}/health`)).json();
    assert.equal(health.brokerGrants, 0, 'the turn token is revoked');
  });

  await check('app-agent run: only its granted tools exist; callback with result, usage and transcript', async () => {
    const body = {
      runId: 'ar1', appId: 'app1', workspaceId: 'ws1', prompt: 'Save a note', systemPrompt: 'You are the notes agent.',
      agentConfig: { id: 'notes', tools: [], dataCollections: ['notes'] },
      allowedTools: ['WebFetch', 'Bash', 'mcp__app_data__update_app_data'],
      callbackUrl: `${webUrl}/api/internal/agent-run-complete`, sourceFiles: { 'README.md': 'app\n' },
      settings: settings('agent/m'), runCapability: 'cap-ar1',
    };
    const r = await fetch(`${worker.url}/sessions/app1__agent__ar1/agent-run`, { method: 'POST', headers: auth, body: JSON.stringify(body) });
    assert.equal(r.status, 202, await r.clone().text());
    const done = await completion('ar1');
    assert.equal(done.auth, `Bearer ${internalToken}`);
    assert.equal(done.body.status, 'completed', JSON.stringify(done.body.error));
    assert.equal(done.body.result, 'Saved the note.');
    assert.equal(done.body.usage.totalInputTokens > 0, true);
    const toolUse = done.body.transcript.filter((m) => m.type === 'assistant').flatMap((m) => m.message.content)
      .find((c) => c.type === 'tool_use');
    assert.equal(toolUse.name, 'mcp__app_data__update_app_data');
    assert.deepEqual(received.data.map((d) => d.request), [{ collection: 'notes', op: 'insert', data: { text: 'hi' } }]);
    const reqs = requestsOf(servers.agent.log);
    const tools = reqs[0].body.tools.map((t) => t.function.name).sort();
    assert.deepEqual(tools, ['app_data_read_app_data', 'app_data_update_app_data', 'webfetch']);
    assert.ok(reqs[0].body.messages[0].content.startsWith('You are the notes agent.'));
    assert.ok(!done.raw.includes('You are the notes agent.'), 'no system prompt in the callback');
  });


  const toolUses = (msgs) => msgs.filter((m) => m.type === 'assistant').flatMap((m) => m.message.content)
    .filter((c) => c.type === 'tool_use');
  const toolResultOf = (msgs, id) => msgs.filter((m) => m.type === 'user' && Array.isArray(m.message?.content))
    .flatMap((m) => m.message.content).filter((c) => c.type === 'tool_result' && c.tool_use_id === id).at(-1);
  // The text of a tool result: a string or text blocks.
  const resultText = (content) => (typeof content === 'string' ? content
    : Array.isArray(content) ? content.filter((c) => c.type === 'text').map((c) => c.text).join('') : JSON.stringify(content));

  await check('builder turn on runtime-c: opencode writes a Vite + React app, done_building answers ok with a preview', async () => {
    const msgs = await messagesOf(await postTurn(worker, builderBody('run-build', 'Build a counter app', 'build/m'), 'app-build'));
    const result = resultOf(msgs);
    assert.equal(result.is_error, false, result.result);
    const uses = toolUses(msgs);
    const writes = uses.filter((c) => c.name === 'Write');
    assert.equal(writes.length, 2, `opencode's write tool, shown as Write (${uses.map((c) => c.name)})`);
    for (const w of writes) assert.ok(!toolResultOf(msgs, w.id)?.is_error, JSON.stringify(toolResultOf(msgs, w.id)));
    const done = uses.find((c) => c.name === 'mcp__platform__done_building');
    assert.ok(done, 'done_building under its canonical name');
    const r = toolResultOf(msgs, done.id);
    assert.ok(r && !r.is_error, JSON.stringify(r)?.slice(0, 2000));
    const payload = JSON.parse(resultText(r.content));
    assert.equal(payload.ok, true, JSON.stringify(payload).slice(0, 2000));
    assert.equal(payload.summary, 'A counter app.');
    assert.equal(payload.preview.entry, 'dist/index.html');
    assert.match(payload.preview.digest, /^sha256:[0-9a-f]{64}$/);
    assert.ok(fs.statSync(path.join(buildWs, 'dist/index.html')).size > 0, 'dist/index.html exists');
    const js = payload.preview.files.find((f) => /^assets\/.+\.js$/.test(f.path));
    assert.ok(fs.readFileSync(path.join(buildWs, 'dist', js.path), 'utf8').includes('Clicked'), 'the written component is in the bundle');
    assert.equal(result.result, 'The counter app is built.');
    assert.notEqual(result.stop_reason, 'approval_stop');
  });

  await check('a second builder turn with a type error: done_building answers ok:false with tsc\'s message, bounded', async () => {
    const msgs = await messagesOf(await postTurn(worker, builderBody('run-build', 'Add a total', 'build/m'), 'app-build'));
    const result = resultOf(msgs);
    assert.equal(result.is_error, false, result.result);
    const done = toolUses(msgs).find((c) => c.name === 'mcp__platform__done_building');
    assert.ok(done, 'done_building was called');
    const payload = JSON.parse(resultText(toolResultOf(msgs, done.id).content));
    assert.equal(payload.ok, false);
    assert.equal(payload.typecheck.ok, false);
    assert.match(payload.typecheck.output, /Broken\.tsx\(1,14\): error TS2322/);
    assert.equal(payload.typecheck.truncated, false);
    assert.ok(Buffer.byteLength(payload.typecheck.output) <= 8192, 'at most the last 8 KiB');
    assert.equal(typeof payload.build.ok, 'boolean');
    assert.ok(!payload.preview, 'no preview for a failed build');
    assert.equal(result.result, 'The build has a type error.');
    const health = await (await fetch(`${worker.url}/health`)).json();
    assert.equal(health.brokerGrants, 0, 'the turn token is revoked');
  });

  await check('app-agent run on runtime-c calls a custom tool and update_app_data through the web server', async () => {
    const agentConfig = {
      id: 'weather-notes', dataCollections: ['notes'],
      tools: [{ type: 'custom', name: 'get_weather', description: 'Current weather for a city', enabled: true,
        integration: { name: 'Weather', domain: '127.0.0.1' },
        endpoint: { method: 'GET', url: `${webUrl}/test-endpoint/weather?city={{city}}` } }],
    };
    agentTools.set(agentConfig.id, agentConfig.tools);
    const dataBefore = received.data.length;
    const body = {
      runId: 'ar-tools', appId: 'app1', workspaceId: 'ws1', prompt: 'Note the weather in Oslo',
      systemPrompt: 'You are the weather notes agent.', agentConfig, allowedTools: [],
      callbackUrl: `${webUrl}/api/internal/agent-run-complete`, sourceFiles: { 'README.md': 'app\n' },
      settings: settings('tools/m'), runCapability: 'cap-ar-tools',
    };
    const r = await fetch(`${worker.url}/sessions/app1__agent__ar-tools/agent-run`, { method: 'POST', headers: auth, body: JSON.stringify(body) });
    assert.equal(r.status, 202, await r.clone().text());
    const done = await completion('ar-tools');
    assert.equal(done.auth, `Bearer ${internalToken}`);
    assert.equal(done.body.status, 'completed', JSON.stringify(done.body.error));
    assert.equal(done.body.result, 'Saved the weather in Oslo.');

    assert.equal(received.execute.length, 1);
    assert.equal(received.execute[0].auth, `Bearer ${internalToken}`, 'the internal token');
    assert.deepEqual(received.execute[0].body, { workspaceId: 'ws1', appId: 'app1', runId: 'ar-tools', agentId: 'weather-notes',
      toolName: 'get_weather', input: '{"city":"Oslo"}' }, 'the run, never a user id');
    assert.deepEqual(received.endpoint, ['Oslo'], 'the test endpoint got the input placeholder');
    const data = received.data.slice(dataBefore);
    assert.equal(received.dataAuth, `Bearer ${internalToken}`);
    assert.deepEqual([done.capability, received.execute[0].capability, received.dataCapability], Array(3).fill('cap-ar-tools'),
      'the run\'s capability on every call to the web');
    assert.deepEqual(data, [{ workspaceId: 'ws1', appId: 'app1', runId: 'ar-tools', agentId: 'weather-notes',
      action: 'write', request: { collection: 'notes', op: 'insert', data: { city: 'Oslo', tempC: 21 } } }]);

    const uses = toolUses(done.body.transcript);
    const weather = uses.find((c) => c.name === 'mcp__app_tools__get_weather');
    const write = uses.find((c) => c.name === 'mcp__app_data__update_app_data');
    assert.ok(weather && write, `both tools in the transcript (${uses.map((c) => c.name)})`);
    const weatherResult = toolResultOf(done.body.transcript, weather.id);
    assert.ok(weatherResult && !weatherResult.is_error, JSON.stringify(weatherResult));
    assert.deepEqual(JSON.parse(resultText(weatherResult.content)).data, { city: 'Oslo', tempC: 21 });
    const writeResult = toolResultOf(done.body.transcript, write.id);
    assert.ok(writeResult && !writeResult.is_error, JSON.stringify(writeResult));
    assert.equal(JSON.parse(resultText(writeResult.content)).docId, 'doc-1');
    const reqs = requestsOf(servers.tools.log);
    const weatherTool = reqs[0].body.tools.find((t) => t.function.name === 'app_tools_get_weather');
    assert.match(JSON.stringify(weatherTool.function.parameters), /with the fields: city/);
    assert.deepEqual(reqs[0].body.tools.map((t) => t.function.name).sort(),
      ['app_data_read_app_data', 'app_data_update_app_data', 'app_tools_get_weather', 'app_tools_report_tool_call_failed']);
  });

  // A user's stop (issue 33) through the worker's route POST /sessions/{app}/turns/{run}/stop
  // while the model holds its reply: opencode and its jail are gone once the route answers.
  // Before the route the web could only cut the worker's stream, which the worker noticed when it
  // next wrote: opencode lived on, held, for as long as the model held its reply.
  let atStop;
  const stopPort = new URL(servers.stop.url).port;
  await check('runtime-c: a stop through the worker\'s route ends opencode and its jail before its reply: 200 {stopped:true}, no process left', async () => {
    const body = { ...builderBody('run-stop', 'Start, then wait', 'stop/m'), appId: 'app-stop' };
    // Not awaited: the worker's response head may come only with opencode's first message.
    const stream = postTurn(worker, body, 'app-stop').then(messagesOf);
    stream.catch(() => {});
    // The model got the turn's request and holds its reply from its start.
    await waitUntil('the turn\'s model request', () => requestsOf(servers.stop.log).length === 1, 60000);
    const before = { processes: runtimeProcesses([tmp]), connections: connectionsTo(stopPort), requests: requestsOf(servers.stop.log).length };
    const t0 = performance.now();
    const stopped = await fetch(`${worker.url}/sessions/app-stop/turns/run-stop/stop`, { method: 'POST', headers: auth });
    const after = { processes: runtimeProcesses([tmp]), connections: connectionsTo(stopPort), ms: performance.now() - t0 };
    atStop = { before, after, stream };
    assert.ok(before.processes.some((p) => isCli(p, 'opencode')), `opencode was seen before the stop: ${before.processes.map(describeProcess).join('\n')}`);
    const answer = await stopped.text();
    assert.equal(stopped.status, 200, answer);
    assert.deepEqual(JSON.parse(answer), { runId: 'run-stop', stopped: true });
    assert.deepEqual(after.processes.map(describeProcess), [], `runtime processes alive after the stop's reply (${after.ms.toFixed(0)} ms)`);
  });

  await check('runtime-c: the stopped turn\'s stream ends without a successful result; nothing ran after the stop; a second stop finds no turn (404)', async () => {
    assert.ok(atStop, 'the stop check did not get to the stop');
    const msgs = await atStop.stream;
    // A killed turn has not finished: no result that says it succeeded (runtime-a and -b end with an error).
    assert.ok(!msgs.some((m) => m.type === 'result' && !m.is_error), `a successful result line: ${JSON.stringify(msgs.slice(-3)).slice(0, 1500)}`);
    assert.ok(!textOf(msgs).includes('Never said.'));
    assert.ok(!toolUses(msgs).some((c) => c.id === 'call_after_stop'), 'the held tool call never came');
    await fetch(`${servers.stop.url}/control/release/hold`, { method: 'POST' });
    const again = await waitUntil('the stopped turn to leave the worker', async () => {
      const res = await fetch(`${worker.url}/sessions/app-stop/turns/run-stop/stop`, { method: 'POST', headers: auth });
      return res.status === 404 ? res : null;
    }, 10000);
    assert.equal((await again.json()).error.code, 'not_found');
    assert.equal((await fetch(`${worker.url}/sessions/app-stop/turns/run-nope/stop`, { method: 'POST', headers: auth })).status, 404);
    assert.equal((await fetch(`${worker.url}/sessions/app-stop/turns/run-stop/stop`, { method: 'POST' })).status, 401, 'the internal token is required');
    assert.ok(!fs.existsSync(path.join(dataDir, 'workspaces', 'app-stop', 'after-stop.txt')), 'the held command ran');
  });

  // The held reply is a request the provider goes on generating, and billing, while it is open.
  await check('runtime-c: the held model request is closed by the stop\'s reply, and the model gets no further request', async () => {
    assert.ok(atStop, 'the stop check did not get to the stop');
    assert.ok(atStop.before.connections.length > 0, 'the held model request was open before the stop');
    assert.deepEqual(atStop.after.connections.map(describeConnection), [], `model requests still open after the stop's reply (to 127.0.0.1:${stopPort})`);
    assert.equal(requestsOf(servers.stop.log).length, atStop.before.requests, 'a model request after the stop');
  });

  await check('GET /opencode/models: tool-call models with metadata only, no key or config', async () => {
    const r = await fetch(`${worker.url}/opencode/models`, { headers: auth });
    assert.equal(r.status, 200);
    const raw = await r.text();
    const d = JSON.parse(raw);
    assert.equal(d.defaultModel, 'text/m');
    const m = d.models.find((x) => x.id === 'text/m');
    assert.deepEqual(m, { id: 'text/m', name: 'Scripted', provider: 'text', toolcall: true, reasoning: true,
      variants: ['low', 'medium', 'high'], contextLimit: 128000,
      costPerMTok: { input: 1, output: 2, cacheRead: 0.1, cacheWrite: 0 }, status: 'active' });
    assert.ok(!d.models.some((x) => x.id === 'text/no-tools'), 'only tool-call capable models are offered');
    assert.ok(d.models.every((x) => x.toolcall === true));
    for (const secret of [providerKey, configPath, path.basename(configPath), servers.text.url, 'apiKey', 'baseURL', 'operator_only']) {
      assert.ok(!raw.includes(secret), `the reply holds ${secret}`);
    }
    assert.equal((await fetch(`${worker.url}/opencode/models`)).status, 401, 'the internal token is required');
  });

  await check('platform-web offers the models the worker discovered, and runs runtime-c with them and the builder prompt', async () => {
    const web = (await start('platform-web', path.join(buildDir, 'servers/web/platform-web'), [], {
      PLATFORM_WEB_PORT: '0', PLATFORM_DATA_DIR: path.join(tmp, 'web-data'), PLATFORM_WORKER_URL: worker.url,
      INTERNAL_API_TOKEN: internalToken,
    }, /listening on (http:\S+)/)).match[1];
    const call = async (method, p, body) => {
      const r = await fetch(web + p, { method, headers: body ? { 'content-type': 'application/json' } : {},
        body: body && JSON.stringify(body) });
      return { status: r.status, text: await r.clone().text(), res: r };
    };
    const registry = await call('GET', '/api/runtimes');
    assert.equal(registry.status, 200, registry.text);
    const c = JSON.parse(registry.text).runtimes.find((x) => x.id === 'runtime-c');
    const ids = c.models.map((m) => m.id);
    assert.ok(ids.includes('web/m') && ids.includes('text/m'), ids.join());
    assert.ok(!ids.includes('text/no-tools'), 'only tool-call capable models are offered');
    assert.equal(c.defaultModel, 'text/m');
    for (const secret of [providerKey, configPath, servers.text.url, internalToken]) assert.ok(!registry.text.includes(secret));

    const made = await call('POST', '/api/workspaces/default/apps', { name: 'C app', runtimeId: 'runtime-c', runtimeModel: 'web/m' });
    assert.equal(made.status, 201, made.text);
    const app = JSON.parse(made.text);
    assert.equal(app.runtimeId, 'runtime-c');
    assert.equal(app.runtimeModel, 'web/m');
    assert.deepEqual(app.runtimeParams, { variant: 'auto' });
    const unknown = await call('PATCH', `/api/workspaces/default/apps/${app.id}`, { runtimeModel: 'web/nope' });
    assert.equal(unknown.status, 400, unknown.text);
    assert.equal(JSON.parse(unknown.text).error.code, 'unknown_model');
    const runId = JSON.parse((await call('POST', `/api/workspaces/default/apps/${app.id}/runs`)).text).id;
    const before = requestsOf(servers.web.log).length;
    // No settings in the POST: the app's runtime-c settings are used.
    const chat = await call('POST', `/api/workspaces/default/apps/${app.id}/runs/${runId}/chat`,
      { messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Say hi' }] }] });
    assert.equal(chat.status, 200, chat.text);
    const chunks = (await new SseReader(chat.res, { payload: true }).toEnd()).filter((e) => e !== '[DONE]').map((e) => JSON.parse(e));
    const said = chunks.filter((x) => x.type === 'text-delta').map((x) => x.delta).join('');
    assert.equal(said, 'Hello through the platform.');
    assert.equal(requestsOf(servers.web.log).length, before + 1, 'one model request, to the app model\'s provider');
    // The builder prompt the web sends (servers/web/prompts/builder.md, embedded in platform-web), whole.
    const prompt = fs.readFileSync(path.join(projectDir, 'servers/web/prompts/builder.md'), 'utf8');
    const sent = requestsOf(servers.web.log).at(-1).body.messages[0];
    assert.equal(sent.role, 'system');
    assert.ok(sent.content.includes('platform-builder-prompt v1') && sent.content.includes(prompt), sent.content.slice(0, 200));
    const history = JSON.parse((await call('GET', `/api/workspaces/default/apps/${app.id}/runs/${runId}/chat`)).text);
    assert.equal(history.status, 'completed');
  });

  await check('a conversation from another runtime reaches runtime-c as a bounded transcript before the new message', async () => {
    const before = requestsOf(servers.web.log).length;
    const messages = [
      { id: 'h1', role: 'user', parts: [{ type: 'text', text: 'Earlier question about cats.' }] },
      { id: 'h2', role: 'assistant', parts: [{ type: 'reasoning', text: 'private thoughts' }, { type: 'text', text: 'Earlier answer: cats purr.' },
        { type: 'dynamic-tool', toolName: 'Write', toolCallId: 't1', state: 'output-available', input: { file_path: 'src/Cat.tsx' }, output: 'ok' }] },
      { id: 'h3', role: 'user', parts: [{ type: 'text', text: 'And dogs?' }] },
    ];
    // No native runtime-c session: runtime-a ran the first turn.
    await messagesOf(await postTurn(worker, builderBody('run-handoff', 'And dogs?', 'web/m', { messages }), 'app-handoff'));
    const reqs = requestsOf(servers.web.log).slice(before);
    assert.equal(reqs.length, 1);
    const user = reqs[0].body.messages.filter((m) => m.role === 'user').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n');
    assert.ok(user.includes('Earlier question about cats.') && user.includes('Earlier answer: cats purr.'), user);
    assert.ok(user.includes('[tool Write {"file_path":"src/Cat.tsx"} -> ok]'), user);
    assert.ok(!user.includes('private thoughts'), 'reasoning is not handed over');
    assert.ok(user.trimEnd().endsWith('And dogs?'), user);
    // With a native session that covers them, the earlier messages are not repeated.
    const state = (await (await fetch(`${worker.url}/sessions/app-handoff/session-state?runId=run-handoff`, { headers: auth })).json()).sessionState;
    const next = [...messages, { id: 'h4', role: 'assistant', parts: [{ type: 'text', text: 'Hello through the platform.' }] },
      { id: 'h5', role: 'user', parts: [{ type: 'text', text: 'Thanks.' }] }];
    await messagesOf(await postTurn(worker, builderBody('run-handoff', 'Thanks.', 'web/m',
      { messages: next, sessionState: state, sessionCoversMessages: 4 }), 'app-handoff'));
    const second = requestsOf(servers.web.log).slice(before + 1);
    assert.equal(second.length, 1);
    const last = second[0].body.messages.at(-1);
    const lastText = typeof last.content === 'string' ? last.content : JSON.stringify(last.content);
    assert.ok(!lastText.includes('<conversation>'), lastText);
  });

  await check('GET /detect-provider: all three runtimes, booleans only for credentials', async () => {
    const r = await fetch(`${worker.url}/detect-provider`, { headers: auth });
    assert.equal(r.status, 200);
    const raw = await r.text();
    assert.ok(!raw.includes(providerKey), 'the key value never appears');
    const d = JSON.parse(raw);
    assert.deepEqual(Object.keys(d.runtimes).sort(), ['runtime-a', 'runtime-b', 'runtime-c']);
    for (const [id, rt] of Object.entries(d.runtimes)) {
      assert.equal(typeof rt.installed, 'boolean', id);
      assert.equal(typeof rt.usable, 'boolean', id);
    }
    assert.deepEqual(d.runtimes['runtime-c'], { installed: true, usable: true, version: '1.18.33' });
    assert.equal(d.runtimes['runtime-a'].version, '2.1.330');
    assert.equal(d.runtimes['runtime-b'].version, '0.169.0');
    assert.equal(typeof d.runtimes['runtime-b'].loggedIn, 'boolean');
    assert.deepEqual(d.auth, { ANTHROPIC_API_KEY: false, CODEX_API_KEY: false, OPENAI_API_KEY: true,
      GOOGLE_API_KEY: false, GEMINI_API_KEY: false });
  });

  await check('an opencode without `run --format json` (0.1.174): clear runtime error, no model request', async () => {
    assert.ok(fs.existsSync(noJsonBin), 'scripts/setup-runtimes.sh installs the old CLI');
    const old = await startWorker('worker-nojson', { PLATFORM_OPENCODE_PATH: noJsonBin });
    const before = Object.fromEntries(Object.entries(servers).map(([n, s]) => [n, requestsOf(s.log).length]));
    const r = await postTurn(old, builderBody('run9', 'Say hello', 'text/m'), 'app9');
    assert.equal(r.status, 503);
    const e = (await r.json()).error;
    assert.equal(e.code, 'runtime_not_available');
    assert.match(e.message, /0\.1\.174 has no `run --format json`/);
    const agent = await fetch(`${old.url}/sessions/app9__agent__ar9/agent-run`, { method: 'POST', headers: auth,
      body: JSON.stringify({ runId: 'ar9', appId: 'app9', workspaceId: 'ws1', prompt: 'x', settings: settings('agent/m'), runCapability: 'cap-ar9' }) });
    assert.equal(agent.status, 503);
    assert.equal((await agent.json()).error.code, 'runtime_not_available');
    const models = await fetch(`${old.url}/opencode/models`, { headers: auth });
    assert.equal(models.status, 503);
    const detect = await (await fetch(`${old.url}/detect-provider`, { headers: auth })).json();
    assert.equal(detect.runtimes['runtime-c'].installed, true);
    assert.equal(detect.runtimes['runtime-c'].usable, false);
    assert.equal(detect.runtimes['runtime-c'].version, '0.1.174');
    assert.match(detect.runtimes['runtime-c'].reason, /run --format json/);
    const after = Object.fromEntries(Object.entries(servers).map(([n, s]) => [n, requestsOf(s.log).length]));
    assert.deepEqual(after, before, 'no model request was made');
    assert.deepEqual(childrenOf(old.child.pid), [], 'no runtime process is left');
  });
}

await run(main);
