// runtime-b on platform-worker end to end: the real `codex app-server` (pinned 0.169.0) driven
// over stdio JSON-RPC, answering from the scripted model server (OpenAI Responses API) on
// 127.0.0.1. A builder turn through platform-web on an app set to runtime-b reaches the model
// with the builder prompt (servers/web/prompts/builder.md) whole. Builder turns stream worker
// messages with usage; the session state is the thread's rollout and continues the thread on a
// fresh worker; an unknown thread falls back to a fresh one silently; a shell command really
// runs in the app workspace without the secrets in its environment; an app-agent run gets no
// shell or file tools; a warm app-server serves
// the next turn of an app in development (one process), not with warm mode off; a builder turn
// writes a Vite + React app with apply_patch and calls done_building through the broker (ok with
// a preview, then ok:false with tsc's message after a type error); an app-agent run calls a
// custom tool (run by a stand-in web server's tool-execute against a test endpoint on
// 127.0.0.1) and update_app_data; present_plan through the MCP broker stops the turn after its
// result; a user's stop through the worker's stop route ends a cold turn's codex and its jail
// before its reply, with the model holding its reply (issue 33); the provider key never
// reaches the worker's log; a stopped worker leaves no codex process or CODEX_HOME behind.
//
// Usage: node e2e-worker-runtime-b.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { connectionsTo, describeConnection, describeProcess, harness, isCli, runtimeProcesses, SseReader, waitUntil } from './harness.mjs';

const args = process.argv.slice(2);
const opt = (name) => args[args.indexOf(name) + 1];
const buildDir = path.resolve(opt('--build'));
const projectDir = path.resolve(opt('--project'));
const { tmp, check, start, run } = harness('platform-runtime-b-e2e-');

const codexKey = 'scripted-codex-key-must-not-leak-5b1f';
const token = 'runtime-b-internal-token-0123456789abcdef';
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
const runtimeB = (params = {}) => ({ settings: { runtimeId: 'runtime-b', runtimeParams: params } });

// A scripted model server of its own per scenario: which reply a request gets depends only on
// the conversation so far.
async function modelServer(name, scenario) {
  const file = path.join(tmp, `${name}.json`);
  fs.writeFileSync(file, JSON.stringify(scenario));
  const log = path.join(tmp, `${name}-requests.jsonl`);
  const m = await start(name, 'python3', [path.join(projectDir, 'tests/model_server/model_server.py'),
    '--script', file, '--port', '0', '--idle-exit', '600', '--log', log], {}, /^(\d+)\n/m);
  const requests = () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) : [])
    .map((l) => JSON.parse(l)).filter((r) => r.method === 'POST' && r.path.endsWith('/responses'));
  return { url: `http://127.0.0.1:${m.match[1]}`, requests };
}

const workerLogs = [];
const workers = [];
async function startWorker(name, modelUrl, env = {}) {
  workerLogs.push(path.join(tmp, `${name}.log`));
  const { child, match } = await start(name, path.join(buildDir, 'servers/worker/platform-worker'), [], {
    PLATFORM_WORKER_PORT: '0', PLATFORM_DATA_DIR: path.join(tmp, name), INTERNAL_API_TOKEN: token,
    PLATFORM_CODEX_BASE_URL: `${modelUrl}/v1`, CODEX_API_KEY: codexKey, PLATFORM_CODEX_TRACE: '1', ...env,
  }, /listening on (http:\S+)/);
  workers.push(child);
  return match[1];
}

async function turn(worker, appId, prompt, { sessionState = null, runId = 'run1', params = {} } = {}) {
  const r = await fetch(`${worker}/sessions/${appId}/messages`, {
    method: 'POST', headers,
    body: JSON.stringify({ runId, workspaceId: 'ws1', appId, prompt, systemPrompt: 'You are the platform builder. BUILDER-PROMPT-MARK',
      settings: runtimeB(params), sessionState, runCapability: `cap-${appId}-${runId}` }),
  });
  assert.equal(r.status, 200, await r.clone().text());
  const events = await new SseReader(r, { payload: true }).toEnd();
  const messages = events.filter((e) => e !== '[DONE]').map((e) => JSON.parse(e));
  return { messages, result: messages.find((m) => m.type === 'result'), init: messages.find((m) => m.type === 'system') };
}

const textOf = (messages) => messages.filter((m) => m.type === 'stream_event' && m.event?.delta?.type === 'text_delta')
  .map((m) => m.event.delta.text).join('');
const errorsOf = (messages) => messages.filter((m) => m.type === 'error');
const stateOf = async (worker, appId, runId = 'run1') =>
  (await (await fetch(`${worker}/sessions/${appId}/session-state?runId=${runId}`, { headers })).json()).sessionState;
const health = async (worker) => (await fetch(`${worker}/health`)).json();
// The texts a Responses request carried, by role (codex sends the whole conversation).
const texts = (request, role) => request.body.input.filter((i) => i.type === 'message' && i.role === role)
  .flatMap((i) => i.content.map((c) => c.text ?? '')).join('\n');
const toolNames = (request) => request.body.tools.map((t) => t.name ?? t.type);

function okTurn(t) {
  assert.deepEqual(errorsOf(t.messages), [], 'no error messages');
  assert.ok(t.result, 'a result line');
  assert.equal(t.result.is_error, false);
}

// The text of a tool result's content as the worker reports it: a string, content blocks, or
// codex's MCP result object ({content: [...], structuredContent?}).
function resultText(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.filter((c) => c.type === 'text').map((c) => c.text).join('');
  if (content && Array.isArray(content.content)) return resultText(content.content);
  return JSON.stringify(content);
}
const toolUses = (messages) => messages.filter((m) => m.type === 'assistant')
  .flatMap((m) => m.message.content).filter((c) => c.type === 'tool_use');
// The final (not preliminary) tool_result of `id`.
const toolResultOf = (messages, id) => messages.filter((m) => m.type === 'user' && Array.isArray(m.message?.content))
  .flatMap((m) => m.message.content).filter((c) => c.type === 'tool_result' && c.tool_use_id === id && !c.preliminary).at(-1);

// A small Vite + React + TypeScript app, written with codex's own file tool (apply_patch):
// a new component and an edit of the template's App.tsx.
const counterPatch = `*** Begin Patch
*** Add File: src/components/Counter.tsx
+import { useState } from 'react';
+import { Button } from './Button.tsx';
+
+export function Counter() {
+  const [count, setCount] = useState(0);
+  return <Button onClick={() => setCount(count + 1)}>Clicked {count} times</Button>;
+}
*** Update File: src/App.tsx
@@
-import { Button } from './components/Button.tsx';
+import { Button } from './components/Button.tsx';
+import { Counter } from './components/Counter.tsx';
@@
-        <h1 className="text-3xl font-semibold">New app</h1>
+        <h1 className="text-3xl font-semibold">Counter app</h1>
+        <Counter />
*** End Patch
`;
const brokenPatch = `*** Begin Patch
*** Add File: src/components/Broken.tsx
+export const total: number = 'not a number';
*** End Patch
`;

async function doneBuildingCheck() {
  const model = await modelServer('model-build', {
    turns: [
      // Turn 1: write the app, find the platform tools, build.
      { blocks: [{ type: 'text', text: 'Writing the app.' }, { type: 'tool_use', id: 'call_patch_1', name: 'apply_patch', input: counterPatch }] },
      { blocks: [{ type: 'tool_use', id: 'call_search_b', name: 'tool_search', input: { query: 'done building', limit: 8 } }] },
      { blocks: [{ type: 'tool_use', id: 'call_done_1', name: 'done_building', namespace: 'mcp__platform', input: { summary: 'A counter app.' } }] },
      { blocks: [{ type: 'text', text: 'The counter app is built.' }] },
      // Turn 2: a type error, then build again.
      { blocks: [{ type: 'tool_use', id: 'call_patch_2', name: 'apply_patch', input: brokenPatch }] },
      { blocks: [{ type: 'tool_use', id: 'call_done_2', name: 'done_building', namespace: 'mcp__platform', input: {} }] },
      { blocks: [{ type: 'text', text: 'The build has a type error.' }] },
    ],
  });
  const worker = await startWorker('worker-build', model.url,
    { PLATFORM_APP_TEMPLATE_DIR: path.join(projectDir, 'templates/app-workspace') });
  const ws = path.join(tmp, 'worker-build', 'workspaces', 'app-build');

  await check('builder turn on runtime-b: apply_patch writes a Vite + React app, done_building answers ok with a preview', async () => {
    const t = await turn(worker, 'app-build', 'Build a counter app.');
    okTurn(t);
    const uses = toolUses(t.messages);
    const edits = uses.filter((c) => c.name === 'Write' || c.name === 'Edit');
    assert.ok(edits.length >= 1, `the patch shows as file edits (${uses.map((c) => c.name)})`);
    for (const e of edits) assert.ok(!toolResultOf(t.messages, e.id)?.is_error, 'the patch applied');
    const done = uses.find((c) => c.name === 'mcp__platform__done_building');
    assert.ok(done, `done_building under its canonical name (${uses.map((c) => c.name)})`);
    const r = toolResultOf(t.messages, done.id);
    assert.ok(r, 'the done_building result came back');
    assert.ok(!r.is_error, resultText(r.content).slice(0, 2000));
    const payload = JSON.parse(resultText(r.content));
    assert.equal(payload.ok, true, JSON.stringify(payload).slice(0, 2000));
    assert.equal(payload.summary, 'A counter app.');
    assert.equal(payload.preview.entry, 'dist/index.html');
    assert.match(payload.preview.digest, /^sha256:[0-9a-f]{64}$/);
    assert.ok(payload.preview.files.some((f) => f.path === 'index.html'));
    assert.ok(fs.statSync(path.join(ws, 'dist/index.html')).size > 0, 'dist/index.html exists');
    const js = payload.preview.files.find((f) => /^assets\/.+\.js$/.test(f.path));
    assert.ok(fs.readFileSync(path.join(ws, 'dist', js.path), 'utf8').includes('Clicked'), 'the patched component is in the bundle');
    assert.match(fs.readFileSync(path.join(ws, 'src/App.tsx'), 'utf8'), /<Counter \/>/);
    assert.equal(t.result.result, 'The counter app is built.');
    assert.notEqual(t.result.stop_reason, 'approval_stop');
  });

  await check('a second turn with a type error: done_building answers ok:false with tsc\'s message, bounded', async () => {
    const t = await turn(worker, 'app-build', 'Add a total.');
    okTurn(t);
    const done = toolUses(t.messages).find((c) => c.name === 'mcp__platform__done_building');
    assert.ok(done, 'done_building was called');
    const r = toolResultOf(t.messages, done.id);
    const payload = JSON.parse(resultText(r.content));
    assert.equal(payload.ok, false);
    assert.equal(payload.typecheck.ok, false);
    assert.match(payload.typecheck.output, /Broken\.tsx\(1,14\): error TS2322/);
    assert.equal(payload.typecheck.truncated, false);
    assert.ok(Buffer.byteLength(payload.typecheck.output) <= 8192, 'at most the last 8 KiB');
    assert.equal(typeof payload.build.ok, 'boolean');
    assert.ok(!payload.preview, 'no preview for a failed build');
    assert.equal(t.result.result, 'The build has a type error.');
    assert.equal((await health(worker)).brokerGrants, 0);
  });
}

async function builderChecks() {
  const text = await modelServer('model-text', {
    turns: [{
      blocks: [{ type: 'thinking', thinking: 'Considering the request.' }, { type: 'text', text: 'Noted the code word.' }],
      usage: { input_tokens: 300, cache_read_input_tokens: 100, output_tokens: 12 },
    }],
  });
  const warm = await startWorker('worker-warm', text.url);
  let first;
  let saved;

  await check('a builder turn streams worker messages: init, reasoning, text, a result with platform_turn_usage', async () => {
    first = await turn(warm, 'app1', 'Remember the code word MANGO-42.');
    okTurn(first);
    assert.equal(first.messages[0].type, 'system');
    assert.equal(first.init.subtype, 'init');
    assert.match(first.init.session_id, /^[0-9a-f-]{36}$/);
    assert.equal(first.init.model, 'gpt-5.5');
    assert.equal(textOf(first.messages), 'Noted the code word.');
    assert.ok(first.messages.some((m) => m.event?.delta?.type === 'thinking_delta'), 'reasoning summary streamed');
    assert.equal(first.result.result, 'Noted the code word.');
    assert.equal(first.result.session_id, first.init.session_id);
    const usage = first.result.platform_turn_usage;
    assert.equal(usage.totalInputTokens, 300);
    assert.equal(usage.totalCacheReadTokens, 100);
    assert.equal(usage.totalOutputTokens, 12);
    assert.ok(usage.totalCostUsd > 0, 'priced from the registry');
    assert.ok(usage.byModel['gpt-5.5']);
    const request = text.requests().at(-1);
    assert.equal(request.headers.authorization, '[redacted]', 'the key was sent (the log redacts it)');
    assert.ok(texts(request, 'developer').includes('BUILDER-PROMPT-MARK'), 'the system prompt reached the model');
    assert.deepEqual(request.body.reasoning, { effort: 'medium', summary: 'detailed' });
  });

  await check('session-state after the turn: runtime-b, the thread id and its rollout JSONL', async () => {
    saved = await stateOf(warm, 'app1');
    assert.equal(saved.runtimeId, 'runtime-b');
    assert.equal(saved.sessionId, first.init.session_id);
    assert.equal(saved.format, 'jsonl');
    const meta = JSON.parse(saved.data.split('\n')[0]);
    assert.equal(meta.type, 'session_meta');
    assert.equal(meta.payload.id, saved.sessionId);
    assert.ok(saved.data.includes('MANGO-42'), 'the rollout holds the conversation');
  });

  await check('in development a warm app-server serves the next turn of the app: one process, same thread', async () => {
    const before = (await health(warm)).codexProcessesStarted;
    assert.equal(before, 1);
    const second = await turn(warm, 'app1', 'What was the code word?', { params: { reasoningEffort: 'high' } });
    okTurn(second);
    assert.equal(second.result.session_id, first.init.session_id);
    assert.equal((await health(warm)).codexProcessesStarted, 1, 'no second codex process');
    const request = text.requests().at(-1);
    assert.ok(texts(request, 'user').includes('MANGO-42'), 'the earlier turn is in the context');
    assert.equal(request.body.reasoning.effort, 'high', 'turn/start carried the new effort');
    assert.equal(second.result.platform_turn_usage.totalInputTokens, 300, 'only this turn is counted');
  });

  const cold = await startWorker('worker-cold', text.url, { PLATFORM_CODEX_APP_SERVER_WARM: '0' });
  await check('a fresh worker continues the thread from the sessionState the web server sends', async () => {
    const t = await turn(cold, 'app1', 'Which code word did I give you?', { sessionState: saved });
    okTurn(t);
    assert.equal(t.init.session_id, saved.sessionId);
    const user = texts(text.requests().at(-1), 'user');
    assert.ok(user.includes('MANGO-42'), 'the restored conversation reached the model');
    assert.ok(user.includes('Which code word did I give you?'));
    const after = await stateOf(cold, 'app1');
    assert.equal(after.sessionId, saved.sessionId);
    assert.ok(after.data.includes('Which code word did I give you?'));
  });

  await check('with PLATFORM_CODEX_APP_SERVER_WARM=0 each turn starts its own codex process', async () => {
    const before = (await health(cold)).codexProcessesStarted;
    okTurn(await turn(cold, 'app-cold', 'First.'));
    okTurn(await turn(cold, 'app-cold', 'Second.'));
    assert.equal((await health(cold)).codexProcessesStarted, before + 2);
  });

  await check('a stored thread codex does not know: the turn completes on a fresh thread, without an error', async () => {
    const unknown = '01a207bf-0000-7000-8000-00000000beef';
    for (const [appId, data] of [['app-missing', 'not a rollout\n'], ['app-missing2', null]]) {
      const t = await turn(cold, appId, `Start over for ${appId}.`,
        { sessionState: { runtimeId: 'runtime-b', sessionId: unknown, data, format: 'jsonl' } });
      okTurn(t);
      assert.notEqual(t.init.session_id, unknown);
      assert.equal(t.result.session_id, t.init.session_id);
      assert.ok(!texts(text.requests().at(-1), 'user').includes('MANGO-42'), 'no other conversation leaked in');
      assert.equal((await stateOf(cold, appId)).sessionId, t.init.session_id);
    }
  });
}

async function shellCheck() {
  const shell = await modelServer('model-shell', {
    turns: [
      { blocks: [{ type: 'text', text: 'Running it.' }, { type: 'tool_use', id: 'call_shell_1', name: 'exec_command',
        input: { cmd: "echo shell-$((6*7)) > proof.txt; cat proof.txt; env | grep -c -E 'PLATFORM_BROKER_TOKEN|CODEX_API_KEY|OPENAI_API_KEY' || true" } }] },
      { blocks: [{ type: 'text', text: 'The command printed shell-42.' }] },
    ],
  });
  // One process per turn: the broker token rides in codex's environment here.
  const worker = await startWorker('worker-shell', shell.url, { PLATFORM_CODEX_APP_SERVER_WARM: '0' });
  await check('a turn that runs a shell command in the app workspace, secrets kept out of its environment', async () => {
    const t = await turn(worker, 'app-shell', 'Write the proof file.');
    okTurn(t);
    const call = t.messages.filter((m) => m.type === 'assistant')
      .flatMap((m) => m.message.content).find((c) => c.type === 'tool_use' && c.name === 'Bash');
    assert.ok(call, 'a Bash tool call');
    assert.match(call.input.command, /^echo shell-/);
    const output = t.messages.filter((m) => m.type === 'user' && !m.message.content[0].preliminary)
      .flatMap((m) => m.message.content).find((c) => c.type === 'tool_result' && c.tool_use_id === call.id);
    assert.equal(output.content.exitCode, 0);
    assert.equal(output.content.output, 'shell-42\n0\n', 'the command ran; no token or key in its environment');
    const proof = path.join(tmp, 'worker-shell', 'workspaces', 'app-shell', 'proof.txt');
    assert.equal(fs.readFileSync(proof, 'utf8'), 'shell-42\n');
    assert.equal(t.result.result, 'The command printed shell-42.');
    assert.equal(shell.requests().length, 2);
  });
}

async function agentRunCheck() {
  const callbacks = new Map();
  const waiters = new Map();
  const receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      const parsed = JSON.parse(body);
      res.writeHead(200, { 'content-type': 'application/json' });
      // The run's spend so far, per step (budgets): not its completion.
      if (req.url === '/api/internal/agent-run-spend') return res.end('{"stop":false}');
      callbacks.set(parsed.runId, parsed);
      waiters.get(parsed.runId)?.(parsed);
      res.end('{"ok":true}');
    });
  });
  await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
  const callbackOf = (runId) => (callbacks.has(runId) ? Promise.resolve(callbacks.get(runId))
    : new Promise((resolve) => waiters.set(runId, resolve)));
  const model = await modelServer('model-agent', {
    turns: [{ blocks: [{ type: 'text', text: 'Agent finished the task.' }], usage: { input_tokens: 500, output_tokens: 20 } }],
  });
  const worker = await startWorker('worker-agent', model.url);
  try {
    await check('an app-agent run on runtime-b: read-only, no shell or file tools, callback with result and usage', async () => {
      const r = await fetch(`${worker}/sessions/app1__agent__r1/agent-run`, {
        method: 'POST', headers,
        body: JSON.stringify({
          runId: 'r1', appId: 'app1', workspaceId: 'ws1', prompt: 'Summarize the app.', systemPrompt: 'You are an app agent.',
          agentConfig: { id: 'helper', tools: [], dataCollections: [] }, allowedTools: ['WebFetch', 'Bash'],
          callbackUrl: `http://127.0.0.1:${receiver.address().port}/api/internal/agent-run-complete`,
          sourceFiles: { 'src/App.tsx': 'export default 1;\n' }, settings: runtimeB(), runCapability: 'cap-app1-r1',
        }),
      });
      assert.equal(r.status, 202);
      const cb = await callbackOf('r1');
      assert.equal(cb.status, 'completed', JSON.stringify(cb.error));
      assert.equal(cb.result, 'Agent finished the task.');
      assert.equal(cb.usage.totalInputTokens, 500);
      assert.equal(cb.usage.totalOutputTokens, 20);
      assert.equal(cb.transcript[0].type, 'system');
      assert.equal(cb.transcript.at(-1).type, 'result');
      const request = model.requests().at(-1);
      const tools = toolNames(request);
      for (const banned of ['exec_command', 'write_stdin', 'apply_patch', 'view_image']) {
        assert.ok(!tools.includes(banned), `${banned} is not offered (${tools})`);
      }
      assert.ok(tools.includes('web_search'), 'WebFetch maps to codex web search');
      assert.ok(texts(request, 'developer').includes('`sandbox_mode` is `read-only`'));
      assert.ok(texts(request, 'developer').includes('You are an app agent.'));
      assert.equal((await health(worker)).codexProcessesStarted, 1);
    });
  } finally {
    receiver.close();
  }
}

// A stand-in for the web server's internal routes on 127.0.0.1, recording what it received.
// tool-execute runs the custom tool the way the web server would: the endpoint's URL with the
// input placeholders filled in, fetched from a test endpoint on the same server.
async function standInWeb(toolsOf) {
  const received = { execute: [], data: [], complete: new Map(), endpoint: [] };
  const waiters = new Map();
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => { raw += d; });
    req.on('end', async () => {
      const reply = (status, body) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.method === 'GET' && req.url.startsWith('/test-endpoint/weather')) {
        const city = new URL(req.url, 'http://x').searchParams.get('city');
        received.endpoint.push(city);
        return reply(200, { city, tempC: 21 });
      }
      const body = JSON.parse(raw || '{}');
      const record = { auth: req.headers.authorization, capability: req.headers['x-run-capability'], body, raw };
      if (req.url === '/api/internal/tool-execute') {
        received.execute.push(record);
        const tool = toolsOf(body.agentId).find((t) => t.name === body.toolName);
        if (!tool) return reply(404, { success: false, error: 'unknown tool' });
        const input = JSON.parse(body.input);
        const url = tool.endpoint.url.replace(/\{\{(\w+)\}\}/g, (_, k) => encodeURIComponent(input[k] ?? ''));
        const r = await fetch(url);
        return reply(200, { success: r.ok, mock: false, statusCode: r.status, data: await r.json() });
      }
      if (req.url === '/api/internal/app-data') {
        received.data.push(record);
        return reply(200, { ok: true, docId: 'doc-1', version: 1 });
      }
      if (req.url === '/api/internal/agent-run-spend') return reply(200, { stop: false });
      if (req.url === '/api/internal/agent-run-complete') {
        received.complete.set(body.runId, record);
        waiters.get(body.runId)?.(record);
        return reply(200, { ok: true });
      }
      return reply(404, { error: { code: 'not_found', message: 'no route' } });
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${server.address().port}`;
  const completion = (runId) => (received.complete.has(runId) ? Promise.resolve(received.complete.get(runId))
    : new Promise((resolve) => waiters.set(runId, resolve)));
  return { url, received, completion, close: () => server.close() };
}

async function appToolsAgentCheck() {
  let agentConfig;
  const web = await standInWeb(() => agentConfig.tools);
  agentConfig = {
    id: 'weather-notes', dataCollections: ['notes'],
    tools: [{ type: 'custom', name: 'get_weather', description: 'Current weather for a city', enabled: true,
      integration: { name: 'Weather', domain: '127.0.0.1' },
      endpoint: { method: 'GET', url: `${web.url}/test-endpoint/weather?city={{city}}` } }],
  };
  const model = await modelServer('model-agent-tools', {
    turns: [
      { blocks: [{ type: 'tool_use', id: 'call_search_w', name: 'tool_search', input: { query: 'weather', limit: 8 } }] },
      { blocks: [{ type: 'tool_use', id: 'call_weather_1', name: 'get_weather', namespace: 'mcp__app_tools',
        input: { input: '{"city":"Oslo"}' } }] },
      { blocks: [{ type: 'tool_use', id: 'call_search_d', name: 'tool_search', input: { query: 'update app data', limit: 8 } }] },
      { blocks: [{ type: 'tool_use', id: 'call_data_1', name: 'update_app_data', namespace: 'mcp__app_data',
        input: { collection: 'notes', op: 'insert', data: { city: 'Oslo', tempC: 21 } } }] },
      { blocks: [{ type: 'text', text: 'Saved the weather in Oslo.' }] },
    ],
  });
  const worker = await startWorker('worker-agent-tools', model.url, { PLATFORM_WEB_URL: web.url });
  try {
    await check('an app-agent run on runtime-b calls a custom tool and update_app_data through the web server', async () => {
      const r = await fetch(`${worker}/sessions/app1__agent__r-tools/agent-run`, {
        method: 'POST', headers,
        body: JSON.stringify({
          runId: 'r-tools', appId: 'app1', workspaceId: 'ws1', prompt: 'Note the weather in Oslo.',
          systemPrompt: 'You are the weather notes agent.', agentConfig, allowedTools: [],
          callbackUrl: `${web.url}/api/internal/agent-run-complete`, sourceFiles: { 'README.md': 'app\n' },
          settings: runtimeB(), runCapability: 'cap-app1-r-tools',
        }),
      });
      assert.equal(r.status, 202, await r.clone().text());
      const done = await web.completion('r-tools');
      assert.equal(done.auth, `Bearer ${token}`);
      assert.equal(done.body.status, 'completed', JSON.stringify(done.body.error));
      assert.equal(done.body.result, 'Saved the weather in Oslo.');

      assert.equal(web.received.execute.length, 1);
      const exec = web.received.execute[0];
      assert.equal(exec.auth, `Bearer ${token}`, 'the internal token');
      assert.deepEqual(exec.body, { workspaceId: 'ws1', appId: 'app1', runId: 'r-tools', agentId: 'weather-notes',
        toolName: 'get_weather', input: '{"city":"Oslo"}' }, 'the run, never a user id');
      assert.deepEqual(web.received.endpoint, ['Oslo'], 'the test endpoint got the input placeholder');
      assert.equal(web.received.data.length, 1);
      assert.equal(web.received.data[0].auth, `Bearer ${token}`);
      for (const c of [done, exec, web.received.data[0]]) assert.equal(c.capability, 'cap-app1-r-tools', 'the run\'s capability');
      assert.deepEqual(web.received.data[0].body, { workspaceId: 'ws1', appId: 'app1', runId: 'r-tools', agentId: 'weather-notes',
        action: 'write', request: { collection: 'notes', op: 'insert', data: { city: 'Oslo', tempC: 21 } } });

      const uses = toolUses(done.body.transcript);
      const weather = uses.find((c) => c.name === 'mcp__app_tools__get_weather');
      const data = uses.find((c) => c.name === 'mcp__app_data__update_app_data');
      assert.ok(weather && data, `both tools in the transcript (${uses.map((c) => c.name)})`);
      const weatherResult = toolResultOf(done.body.transcript, weather.id);
      assert.ok(weatherResult && !weatherResult.is_error, JSON.stringify(weatherResult));
      assert.deepEqual(JSON.parse(resultText(weatherResult.content)).data, { city: 'Oslo', tempC: 21 });
      const dataResult = toolResultOf(done.body.transcript, data.id);
      assert.ok(dataResult && !dataResult.is_error, JSON.stringify(dataResult));
      assert.equal(JSON.parse(resultText(dataResult.content)).docId, 'doc-1');
      assert.ok(!done.raw.includes('You are the weather notes agent.'), 'no system prompt in the callback');
      const offered = JSON.stringify(model.requests().at(-1).body);
      assert.ok(offered.includes('get_weather') && offered.includes('with the fields: city'),
        'the custom tool was offered with the input field its URL reads');
      assert.equal((await health(worker)).brokerGrants, 0);
    });
  } finally {
    web.close();
  }
}

async function planCheck() {
  const model = await modelServer('model-plan', {
    turns: [
      { blocks: [{ type: 'tool_use', id: 'call_search_1', name: 'tool_search', input: { query: 'present plan', limit: 8 } }] },
      { blocks: [{ type: 'text', text: 'Here is the plan.' }, { type: 'tool_use', id: 'call_plan_1', name: 'present_plan',
        namespace: 'mcp__platform', input: { title: 'Todo app', steps: ['Create the list', 'Add the form'] } }] },
      // Held: codex may already be asking for its next reply when the worker kills it.
      { blocks: [{ type: 'pause', name: 'after-card' }, { type: 'text', text: 'This reply must never be shown.' }] },
    ],
  });
  const worker = await startWorker('worker-plan', model.url);
  await check('present_plan through the MCP broker: the card result ends the turn (approval stop)', async () => {
    const t = await turn(worker, 'app-plan', 'Plan a todo app.');
    assert.deepEqual(errorsOf(t.messages), []);
    const call = t.messages.filter((m) => m.type === 'assistant').flatMap((m) => m.message.content)
      .find((c) => c.type === 'tool_use' && c.name === 'mcp__platform__present_plan');
    assert.ok(call, 'the tool call is shown under its canonical name');
    assert.deepEqual(call.input, { title: 'Todo app', steps: ['Create the list', 'Add the form'] });
    const i = t.messages.findIndex((m) => m.type === 'user' && m.message.content.some((c) => c.tool_use_id === call.id));
    assert.ok(i > 0, 'the tool result came back');
    const content = t.messages[i].message.content.find((c) => c.tool_use_id === call.id).content;
    const card = JSON.parse(content.structuredContent ? JSON.stringify(content.structuredContent) : content.content[0].text);
    assert.equal(card.status, 'awaiting_approval');
    assert.equal(card.card, 'plan');
    // Nothing of the runtime's after the result; the worker then closes the turn.
    assert.equal(t.messages.at(-2).type, 'result', 'the result is the runtime\'s last message');
    assert.equal(t.messages.at(-1).type, 'platform_turn_end');
    assert.equal(t.messages.at(-2).stop_reason, 'approval_stop');
    assert.equal(i, t.messages.length - 3, 'nothing ran after the card');
    assert.ok(!textOf(t.messages).includes('must never'));
    assert.equal((await health(worker)).brokerGrants, 0, 'the turn token was revoked');
    assert.equal((await stateOf(worker, 'app-plan')).sessionId, t.init.session_id, 'the thread is kept for the decision');
  });
}

// A builder turn through platform-web on an app whose settings name runtime-b: the web sends the
// builder prompt (servers/web/prompts/builder.md, embedded in platform-web) and codex hands it to
// the model as developer instructions, whole.
async function webCheck() {
  const model = await modelServer('model-web', { turns: [{ blocks: [{ type: 'text', text: 'Hello through the platform.' }] }] });
  const worker = await startWorker('worker-web', model.url);
  const web = (await start('platform-web', path.join(buildDir, 'servers/web/platform-web'), [], {
    PLATFORM_WEB_PORT: '0', PLATFORM_DATA_DIR: path.join(tmp, 'web-data'), PLATFORM_WORKER_URL: worker, INTERNAL_API_TOKEN: token,
  }, /listening on (http:\S+)/)).match[1];
  const call = async (method, p, body) => {
    const r = await fetch(web + p, { method, headers: body ? { 'content-type': 'application/json' } : {}, body: body && JSON.stringify(body) });
    assert.ok(r.ok, `${method} ${p}: ${r.status} ${await r.clone().text()}`);
    return r;
  };
  await check('a builder turn on runtime-b through platform-web: the model gets the builder prompt from prompts/builder.md', async () => {
    const b = (await (await call('GET', '/api/runtimes')).json()).runtimes.find((x) => x.id === 'runtime-b');
    const app = await (await call('POST', '/api/workspaces/default/apps', { name: 'B app', runtimeId: 'runtime-b', runtimeModel: b.defaultModel })).json();
    assert.equal(app.runtimeId, 'runtime-b');
    const runId = (await (await call('POST', `/api/workspaces/default/apps/${app.id}/runs`, {})).json()).id;
    const chatPath = `/api/workspaces/default/apps/${app.id}/runs/${runId}/chat`;
    // No settings in the POST: the app's runtime-b settings are used.
    const chat = await call('POST', chatPath, { messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Say hi' }] }] });
    const chunks = (await new SseReader(chat, { payload: true }).toEnd()).filter((e) => e !== '[DONE]').map((e) => JSON.parse(e));
    assert.equal(chunks.filter((x) => x.type === 'text-delta').map((x) => x.delta).join(''), 'Hello through the platform.');
    assert.equal((await (await call('GET', chatPath)).json()).status, 'completed');
    const requests = model.requests();
    assert.equal(requests.length, 1, 'one model request, from codex');
    const prompt = fs.readFileSync(path.join(projectDir, 'servers/web/prompts/builder.md'), 'utf8');
    const developer = texts(requests[0], 'developer');
    assert.ok(developer.includes('platform-builder-prompt v1') && developer.includes(prompt), developer.slice(0, 200));
  });
}

// A user's stop (issue 33) through the worker's route POST /sessions/{app}/turns/{run}/stop,
// while the model holds its reply: codex and its jail are gone once the route answers. Cold
// (PLATFORM_CODEX_APP_SERVER_WARM=0): a warm app-server outlives its turns by design. Before the
// route existed the web could only cut the worker's stream, which the worker noticed when it next
// wrote: codex lived on, held, for as long as the model held its reply.
async function stopCheck() {
  const model = await modelServer('model-stop', {
    turns: [
      // After the pause a shell command: a codex that outlived the stop would run it and ask again.
      { blocks: [{ type: 'text', text: 'Working on it. ' }, { type: 'pause', name: 'hold' },
        { type: 'tool_use', id: 'call_after_stop', name: 'exec_command', input: { cmd: 'echo after > after-stop.txt' } }] },
      { blocks: [{ type: 'text', text: 'Never said.' }] },
    ],
  });
  const root = path.join(tmp, 'worker-stop');
  fs.mkdirSync(path.join(root, 'tmp'), { recursive: true });
  // Its data dir and TMPDIR (CODEX_HOME, the jail's) under one root of its own: the other
  // workers' warm codex processes are not this turn's.
  const worker = await startWorker('worker-stop', model.url, { PLATFORM_CODEX_APP_SERVER_WARM: '0', TMPDIR: path.join(root, 'tmp') });
  const modelPort = new URL(model.url).port;
  const ours = () => runtimeProcesses([`${root}/`]);
  let at;
  await check('runtime-b (cold): a stop through the worker\'s route ends codex and its jail before its reply: 200 {stopped:true}, no process left', async () => {
    const r = await fetch(`${worker}/sessions/app-stop/messages`, {
      method: 'POST', headers,
      body: JSON.stringify({ runId: 'run-stop', workspaceId: 'ws1', appId: 'app-stop', prompt: 'Start, then wait.',
        systemPrompt: 'You are the platform builder.', settings: runtimeB(), sessionState: null, runCapability: 'cap-app-stop-run-stop' }),
    });
    if (r.status !== 200) assert.fail(`the turn was refused: ${r.status} ${await r.text()}`);
    const stream = new SseReader(r, { payload: true });
    const messagesSoFar = () => stream.events.filter((x) => x !== '[DONE]').map((x) => JSON.parse(x));
    // The text before the pause is in the worker's stream: the model holds the rest of its reply.
    await stream.until(() => textOf(messagesSoFar()).includes('Working on it.'));
    const before = { processes: ours(), connections: connectionsTo(modelPort), requests: model.requests().length };
    const t0 = performance.now();
    const stopped = await fetch(`${worker}/sessions/app-stop/turns/run-stop/stop`, { method: 'POST', headers });
    const after = { processes: ours(), connections: connectionsTo(modelPort), ms: performance.now() - t0 };
    at = { before, after, stream, status: stopped.status, body: await stopped.text() };
    assert.ok(before.processes.some((p) => isCli(p, 'codex')), `codex was seen before the stop: ${before.processes.map(describeProcess).join('\n')}`);
    assert.equal(at.status, 200, at.body);
    assert.deepEqual(JSON.parse(at.body), { runId: 'run-stop', stopped: true });
    assert.deepEqual(after.processes.map(describeProcess), [], `runtime processes alive after the stop's reply (${after.ms.toFixed(0)} ms)`);
  });

  await check('runtime-b: the stopped turn\'s stream ends without a successful result; nothing ran after the stop; a second stop finds no turn (404)', async () => {
    assert.ok(at, 'the stop check did not get to the stop');
    await at.stream.toEnd();
    const messages = at.stream.events.filter((e) => e !== '[DONE]').map((e) => JSON.parse(e));
    assert.ok(!messages.some((m) => m.type === 'result' && !m.is_error), `a successful result line: ${JSON.stringify(messages.slice(-3)).slice(0, 1500)}`);
    assert.ok(!textOf(messages).includes('Never said.'));
    assert.ok(!toolUses(messages).some((c) => c.id === 'call_after_stop'), 'the held tool call never came');
    await fetch(`${model.url}/control/release/hold`, { method: 'POST' });
    // The turn is gone from the worker once its stream is released.
    const again = await waitUntil('the stopped turn to leave the worker', async () => {
      const res = await fetch(`${worker}/sessions/app-stop/turns/run-stop/stop`, { method: 'POST', headers });
      return res.status === 404 ? res : null;
    }, 10000);
    assert.equal((await again.json()).error.code, 'not_found');
    const unknown = await fetch(`${worker}/sessions/app-stop/turns/run-nope/stop`, { method: 'POST', headers });
    assert.equal(unknown.status, 404);
    assert.equal((await fetch(`${worker}/sessions/app-stop/turns/run-stop/stop`, { method: 'POST' })).status, 401, 'the internal token is required');
    assert.ok(!fs.existsSync(path.join(root, 'workspaces', 'app-stop', 'after-stop.txt')), 'the held command ran');
  });

  // The held reply is a request the provider goes on generating, and billing, while it is open.
  await check('runtime-b: the held model request is closed by the stop\'s reply, and the model gets no further request', async () => {
    assert.ok(at, 'the stop check did not get to the stop');
    assert.ok(at.before.connections.length > 0, 'the held model request was open before the stop');
    assert.deepEqual(at.after.connections.map(describeConnection), [], `model requests still open after the stop's reply (to 127.0.0.1:${modelPort})`);
    assert.equal(model.requests().length, at.before.requests, 'a model request after the stop');
  });
}

async function main() {
  await stopCheck();
  await webCheck();
  await builderChecks();
  await shellCheck();
  await doneBuildingCheck();
  await agentRunCheck();
  await appToolsAgentCheck();
  await planCheck();
  await check('the provider key never reaches the worker log; the trace has ids, no prompts', async () => {
    const logs = workerLogs.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
    assert.match(logs, /codex: spawn pid=\d+/);
    assert.match(logs, /codex: turn end /);
    assert.ok(!logs.includes(codexKey), 'no provider key');
    assert.ok(!logs.includes('MANGO-42') && !logs.includes('BUILDER-PROMPT-MARK'), 'no prompts');
    assert.ok(!logs.includes('shell-42'), 'no command output');
  });
  await check('a worker that is stopped ends its codex processes and removes their CODEX_HOMEs', async () => {
    await Promise.all(workers.map((w) => new Promise((resolve) => {
      w.removeAllListeners('exit');
      w.on('exit', resolve);
      w.kill('SIGTERM');
    })));
    const logs = workerLogs.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
    const homes = [...logs.matchAll(/codex: spawn pid=(\d+) .*home=(\S+)/g)];
    assert.ok(homes.length >= 8, `codex processes seen: ${homes.length}`);
    for (const [, pid, home] of homes) {
      assert.ok(!fs.existsSync(home), `${home} is gone`);
      assert.throws(() => process.kill(Number(pid), 0), { code: 'ESRCH' }, `codex ${pid} has exited`);
    }
  });
}

await run(main);
