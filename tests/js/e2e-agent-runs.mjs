// App-agent runs on platform-worker end to end, with the real Claude Code CLI and the scripted
// model server: start returns at once, a late viewer gets the buffer then live messages, a
// viewer that leaves does not stop the run, the completion callback (internal token, status,
// result, usage, transcript), capacity with LRU eviction of finished runs, bad input, and a
// user's stop with the model holding its reply: answered once the runtime is gone (issue 33).
// A small HTTP server here stands in for the web server's internal callback route.
//
// Usage: node e2e-agent-runs.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { connectionsTo, describeConnection, describeProcess, harness, isCli, runtimeProcesses, SseReader, waitUntil } from './harness.mjs';

const args = process.argv.slice(2);
const opt = (name) => args[args.indexOf(name) + 1];
const buildDir = path.resolve(opt('--build'));
const projectDir = path.resolve(opt('--project'));
const { tmp, check, start, run } = harness('platform-agent-e2e-');

// Callbacks the worker posts, by runId; waiters resolve when theirs arrives.
const callbacks = new Map();
const spends = [];
const callbackWaiters = new Map();
function callbackOf(runId) {
  if (callbacks.has(runId)) return Promise.resolve(callbacks.get(runId));
  return new Promise((resolve) => callbackWaiters.set(runId, resolve));
}

class Events extends SseReader {
  constructor(res) {
    super(res, { payload: true });
  }
}

const text = (events) => events.filter((e) => e !== '[DONE]').map((e) => JSON.parse(e))
  .filter((m) => m.type === 'stream_event' && m.event?.delta?.type === 'text_delta')
  .map((m) => m.event.delta.text).join('');

async function main() {
  const token = 'internal-token-for-tests-0123456789abcdef';
  const receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      const parsed = JSON.parse(body);
      const record = { auth: req.headers.authorization, capability: req.headers['x-run-capability'], path: req.url, body: parsed, raw: body };
      // The run's spend so far, per model call (budgets): not its completion.
      if (req.url === '/api/internal/agent-run-spend') {
        spends.push(record);
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end('{"stop":false}');
      }
      callbacks.set(parsed.runId, record);
      callbackWaiters.get(parsed.runId)?.(record);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
  });
  await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
  const callbackUrl = `http://127.0.0.1:${receiver.address().port}/api/internal/agent-run-complete`;

  const scenario = {
    turns: [{
      blocks: [
        { type: 'text', text: 'Agent answer part one. ' },
        { type: 'pause', name: 'mid' },
        { type: 'text', text: 'Agent answer part two.' },
      ],
      stop_reason: 'end_turn',
      usage: { input_tokens: 500, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 20 },
    }],
    aux: { blocks: [{ type: 'text', text: 'Title' }], stop_reason: 'end_turn' },
  };
  fs.writeFileSync(path.join(tmp, 'scenario.json'), JSON.stringify(scenario));
  const model = await start('model', 'python3', [path.join(projectDir, 'tests/model_server/model_server.py'),
    '--script', path.join(tmp, 'scenario.json'), '--port', '0', '--idle-exit', '600', '--log', path.join(tmp, 'requests.jsonl')],
  {}, /^(\d+)\n/m);
  const modelUrl = `http://127.0.0.1:${model.match[1]}`;
  const modelPosts = () => fs.readFileSync(path.join(tmp, 'requests.jsonl'), 'utf8').split('\n').filter(Boolean)
    .map((l) => JSON.parse(l)).filter((r) => r.method === 'POST' && r.path.startsWith('/v1/messages'));
  const worker = (await start('worker', path.join(buildDir, 'servers/worker/platform-worker'), [], {
    PLATFORM_WORKER_PORT: '0',
    PLATFORM_DATA_DIR: path.join(tmp, 'data'),
    INTERNAL_API_TOKEN: token,
    PLATFORM_WORKER_MAX_AGENT_RUNS: '2',
    ANTHROPIC_BASE_URL: modelUrl,
    ANTHROPIC_API_KEY: 'scripted-model-key',
    CLAUDE_CODE_MAX_RETRIES: '0',
  }, /listening on (http:\S+)/)).match[1];

  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const body = (runId, extra = {}) => ({
    runId, appId: 'app1', workspaceId: 'ws1', prompt: `Do the task for ${runId}`, systemPrompt: 'You are an app agent.',
    agentConfig: { id: 'helper', tools: [], dataCollections: [] }, allowedTools: ['WebFetch', 'Bash', 'mcp__app_data__insert'],
    callbackUrl, sourceFiles: { 'agents.json': '{"agents":[]}', 'src/App.tsx': 'export default 1;\n' },
    runCapability: `cap-${runId}`, ...extra,
  });
  const startRun = (runId, extra, key = `app1__agent__${runId}`) => fetch(`${worker}/sessions/${key}/agent-run`,
    { method: 'POST', headers: auth, body: JSON.stringify(body(runId, extra)) });
  const events = (runId, signal) => fetch(`${worker}/sessions/app1__agent__${runId}/agent-run/${runId}/events`,
    { headers: auth, signal });

  await check('the internal token is required', async () => {
    const r = await fetch(`${worker}/sessions/app1__agent__r0/agent-run`,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body('r0')) });
    assert.equal(r.status, 401);
    assert.equal((await r.json()).error.code, 'unauthenticated');
    assert.equal((await fetch(`${worker}/sessions/app1__agent__r0/agent-run/r0/events`)).status, 401);
  });

  await check('bad input is a clear 400 and starts nothing', async () => {
    const bad = [
      [`app1__agent__other`, body('r0')],
      ['app1__agent__r0', body('r0', { callbackUrl: 'http://example.com/api/internal/agent-run-complete' })],
      ['app1__agent__r0', body('r0', { callbackUrl: 'http://127.0.0.1:1/somewhere-else' })],
      ['app1__agent__r0', body('r0', { sourceFiles: { '../escape.txt': 'x' } })],
      ['app1__agent__r0', body('r0', { sourceFiles: { '/etc/passwd': 'x' } })],
      ['app1__agent__r0', body('r0', { allowedTools: 'WebFetch' })],
      ['app1__agent__r0', body('r0', { prompt: 42 })],
      ['app1__agent__r0', body('r0', { runCapability: undefined })],
      ['app1__agent__r0', body('r0', { runCapability: '' })],
      ['app1__agent__r0', body('r0', { runCapability: 'c'.repeat(201) })],
    ];
    for (const [key, b] of bad) {
      const r = await fetch(`${worker}/sessions/${key}/agent-run`, { method: 'POST', headers: auth, body: JSON.stringify(b) });
      assert.equal(r.status, 400, JSON.stringify(b).slice(0, 120));
      assert.equal(typeof (await r.json()).error.message, 'string');
    }
    const malformed = await fetch(`${worker}/sessions/app1__agent__r0/agent-run`, { method: 'POST', headers: auth, body: '{"runId":' });
    assert.equal(malformed.status, 400);
    const health = await (await fetch(`${worker}/health`)).json();
    assert.equal(health.agentRunsStarted, 0);
  });

  let lateViewer;
  await check('start answers at once; a late viewer gets the buffer, then live messages to the end', async () => {
    const r = await startRun('r1');
    assert.equal(r.status, 202);
    assert.deepEqual(await r.json(), { status: 'started', runId: 'r1' });
    // The run reaches the pause in the model's reply: part one is buffered by then.
    const first = new Events(await events('r1'));
    await first.until((e) => text(e).includes('part one'));
    first.reader.cancel();
    // A viewer that comes now still sees everything from the first message.
    lateViewer = new Events(await events('r1'));
    const seen = await lateViewer.until((e) => text(e).includes('part one'));
    assert.equal(JSON.parse(seen[0]).type, 'system');
    const init = JSON.parse(seen[0]);
    assert.equal(init.subtype, 'init');
    // Asked for WebFetch, Bash and a data tool: only WebFetch exists (no broker yet for the
    // data tool), never shell or file tools.
    assert.deepEqual(init.tools, ['WebFetch']);
  });

  await check('a viewer that disconnects does not stop the run; a full worker refuses another run', async () => {
    const r2 = await startRun('r2');
    assert.equal(r2.status, 202);
    const ctrl = new AbortController();
    const leaving = new Events(await events('r2', ctrl.signal));
    await leaving.until((e) => text(e).includes('part one'));
    ctrl.abort();
    const busy = await startRun('r3');
    assert.equal(busy.status, 503);
    assert.equal((await busy.json()).error.code, 'worker_busy');
    const dup = await startRun('r1');
    assert.equal(dup.status, 409);
    await fetch(`${modelUrl}/control/release/mid`, { method: 'POST' });
    const cb2 = await callbackOf('r2');
    assert.equal(cb2.body.status, 'completed');
  });

  await check('the late viewer follows live to the end of the run', async () => {
    const all = await lateViewer.toEnd();
    assert.equal(text(all), 'Agent answer part one. Agent answer part two.');
    const result = JSON.parse(all.at(-2));
    assert.equal(result.type, 'result');
  });

  await check('the completion callback: internal token, status, result, usage, transcript', async () => {
    const cb = await callbackOf('r1');
    assert.equal(cb.auth, `Bearer ${token}`);
    assert.equal(cb.capability, 'cap-r1', 'the run capability comes back as X-Run-Capability');
    assert.equal(cb.path, '/api/internal/agent-run-complete');
    // Each model call's spend so far went to the web first, with the run's own capability.
    const reported = spends.filter((x) => x.body.runId === cb.body.runId);
    assert.ok(reported.length >= 1, 'spend reported');
    assert.equal(reported[0].capability, cb.capability);
    assert.equal(typeof reported[0].body.usage.totalCostUsd, 'number');
    assert.equal(cb.body.workspaceId, 'ws1');
    assert.equal(cb.body.appId, 'app1');
    assert.equal(cb.body.status, 'completed');
    // The CLI's own result: the text of its last content block.
    assert.equal(cb.body.result, cb.body.transcript.at(-1).result);
    assert.match(cb.body.result, /Agent answer part two\./);
    assert.equal(cb.body.usage.totalInputTokens, 500);
    assert.equal(cb.body.usage.totalOutputTokens, 20);
    assert.ok(Array.isArray(cb.body.transcript));
    assert.equal(cb.body.transcript.at(-1).type, 'result');
    assert.ok(cb.body.transcript.every((m) => m.type !== 'stream_event'), 'deltas are not transcript');
    assert.ok(!cb.raw.includes('You are an app agent.'), 'the system prompt never leaves the worker');
    assert.ok(!cb.raw.includes('export default 1;'), 'source files never leave the worker');
  });

  await check('a finished run replays whole; at capacity the least recently used finished run is evicted', async () => {
    // r2 is used now, so r1 is the least recently used finished run.
    const replay = new Events(await events('r2'));
    assert.equal(text(await replay.toEnd()), 'Agent answer part one. Agent answer part two.');
    const r3 = await startRun('r3');
    assert.equal(r3.status, 202);
    assert.equal((await events('r1')).status, 404);
    assert.equal((await events('r2')).status, 200);
    assert.equal((await callbackOf('r3')).body.status, 'completed');
    const health = await (await fetch(`${worker}/health`)).json();
    assert.equal(health.agentRuns, 2);
    assert.equal(health.agentRunsStarted, 3);
  });

  await check('a finished run is gone once its retention has passed (late viewers get 404)', async () => {
    const short = (await start('worker-retention', path.join(buildDir, 'servers/worker/platform-worker'), [], {
      PLATFORM_WORKER_PORT: '0', PLATFORM_DATA_DIR: path.join(tmp, 'data-retention'), INTERNAL_API_TOKEN: token,
      PLATFORM_WORKER_AGENT_RUN_RETENTION_MS: '1000', ANTHROPIC_BASE_URL: modelUrl, ANTHROPIC_API_KEY: 'scripted-model-key',
      CLAUDE_CODE_MAX_RETRIES: '0',
    }, /listening on (http:\S+)/)).match[1];
    const started = await fetch(`${short}/sessions/app1__agent__rt1/agent-run`, { method: 'POST', headers: auth, body: JSON.stringify(body('rt1')) });
    assert.equal(started.status, 202);
    assert.equal((await callbackOf('rt1')).body.status, 'completed');
    const status = async () => (await fetch(`${short}/sessions/app1__agent__rt1/agent-run/rt1`, { headers: auth })).status;
    const until = Date.now() + 20000;
    let s = await status();
    while (s === 200) {
      assert.ok(Date.now() < until, 'the finished run was never evicted');
      await new Promise((r) => setTimeout(r, 100));
      s = await status();
    }
    assert.equal(s, 404);
    assert.equal((await fetch(`${short}/sessions/app1__agent__rt1/agent-run/rt1/events`, { headers: auth })).status, 404);
  });

  // A user's stop while the model holds the reply: the worker's stop route answers 202 only once
  // the runtime is released (its output ended), so no process of the run is left by then. Before
  // issue 33 it answered right after sending the SIGKILL, while the jail was still coming down;
  // the jail takes only a millisecond or two to get there, so the check below caught that old
  // reply only when it was faster (about a third of the stops when tried by hand): the worker's
  // own wait is what makes it hold every time.
  // A worker of its own: its data dir and TMPDIR (the run's workspace) under one root.
  const stopRoot = path.join(tmp, 'stop');
  fs.mkdirSync(path.join(stopRoot, 'tmp'), { recursive: true });
  const stopWorker = (await start('worker-stop', path.join(buildDir, 'servers/worker/platform-worker'), [], {
    PLATFORM_WORKER_PORT: '0', PLATFORM_DATA_DIR: path.join(stopRoot, 'data'), TMPDIR: path.join(stopRoot, 'tmp'),
    INTERNAL_API_TOKEN: token, ANTHROPIC_BASE_URL: modelUrl, ANTHROPIC_API_KEY: 'scripted-model-key', CLAUDE_CODE_MAX_RETRIES: '0',
  }, /listening on (http:\S+)/)).match[1];
  const modelPort = new URL(modelUrl).port;
  const ours = () => runtimeProcesses([`${stopRoot}/`]);
  let atStop;
  await check('stop: a held run\'s stop is answered (202) once its runtime is gone: no process of the run is left', async () => {
    await fetch(`${modelUrl}/control/arm/mid`, { method: 'POST' });  // hold this run's reply
    const started = await fetch(`${stopWorker}/sessions/app1__agent__rs1/agent-run`, { method: 'POST', headers: auth, body: JSON.stringify(body('rs1')) });
    assert.equal(started.status, 202);
    const viewer = new Events(await fetch(`${stopWorker}/sessions/app1__agent__rs1/agent-run/rs1/events`, { headers: auth }));
    await viewer.until((e) => text(e).includes('part one'));
    const before = { processes: ours(), connections: connectionsTo(modelPort), requests: modelPosts().length };
    const t0 = performance.now();
    const stopped = await fetch(`${stopWorker}/sessions/app1__agent__rs1/agent-run/rs1/stop`, { method: 'POST', headers: auth });
    const after = { processes: ours(), connections: connectionsTo(modelPort), ms: performance.now() - t0 };
    atStop = { before, after, viewer };
    assert.ok(before.processes.some((p) => isCli(p, 'claude')), `the run's Claude Code was seen before the stop: ${before.processes.map(describeProcess).join('\n')}`);
    assert.equal(stopped.status, 202, await stopped.clone().text());
    assert.deepEqual(await stopped.json(), { runId: 'rs1', status: 'stopping' });
    assert.deepEqual(after.processes.map(describeProcess), [], `runtime processes alive after the stop's reply (${after.ms.toFixed(0)} ms)`);
  });

  await check('stop: the run fails "Stopped by the user." (events and callback), nothing of the held reply; a second stop is 409', async () => {
    assert.ok(atStop, 'the stop check did not get to the stop');
    const seen = await atStop.viewer.toEnd();
    assert.ok(!text(seen).includes('part two'), 'the held reply never came');
    const last = seen.filter((e) => e !== '[DONE]').map((e) => JSON.parse(e)).at(-1);
    assert.deepEqual(last, { type: 'error', error: 'Stopped by the user.' });
    const cb = await callbackOf('rs1');
    assert.equal(cb.body.status, 'failed');
    assert.equal(cb.body.error, 'Stopped by the user.');
    const again = await fetch(`${stopWorker}/sessions/app1__agent__rs1/agent-run/rs1/stop`, { method: 'POST', headers: auth });
    assert.equal(again.status, 409);
    assert.equal((await again.json()).error.code, 'not_running');
    await fetch(`${modelUrl}/control/release/mid`, { method: 'POST' });
  });

  // The held reply is a request the provider goes on generating, and billing, while it is open.
  await check('stop: the held model request is closed by the stop\'s reply, and the model gets no further request', async () => {
    assert.ok(atStop, 'the stop check did not get to the stop');
    assert.ok(atStop.before.connections.length > 0, 'the held model request was open before the stop');
    assert.deepEqual(atStop.after.connections.map(describeConnection), [], `model requests still open after the stop's reply (to 127.0.0.1:${modelPort})`);
    assert.equal(modelPosts().length, atStop.before.requests, 'a model request after the stop');
  });
}

await run(main);
