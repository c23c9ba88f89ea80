// App agent runs through platform-web end to end: platform-web + platform-worker + the real
// Claude Code CLI + the scripted model server. Governed agents are seeded through the agents
// routes (PATCH, approval, publish). Covers the trigger flow of the spec: create (pending, the
// triggering user resolved server-side), startOnly returning at once while the run goes on in
// the worker, completion through the internal callback with the compact run event, the
// projected summary, viewer streams (POST and a GET resume), a viewer that leaves without
// stopping the run, a second start that starts nothing, another app's run as 404, and draft
// runs that use the draft agents.json and data scope.
//
// With --dead-workers the web server also lists two workers that never answer, ahead of the
// real one for some apps (docs/operations.md, "Several workers"): every start fails over, and
// status, events and stop find the worker that holds the run.
//
// Usage: node e2e-app-agent-runs.mjs --build DIR --project DIR [--dead-workers]
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { readUIMessageStream } from 'ai';
import { harness, SseReader, runCapability, secretsKeyOf, toolTurn, use, endTurn } from './harness.mjs';

const args = process.argv.slice(2);
const opt = (name) => args[args.indexOf(name) + 1];
const buildDir = path.resolve(opt('--build'));
const projectDir = path.resolve(opt('--project'));
const deadWorkers = args.includes('--dead-workers');
const { tmp, check, start, run } = harness('platform-app-agent-e2e-');

const token = 'internal-token-for-app-agent-e2e-0123456789';
// Every run first writes a note through the agent data tool (into the run's data scope), then
// answers in two parts held at a pause until the test releases it.
const scenario = {
  turns: [{
    blocks: [{ type: 'tool_use', id: 'toolu_note1', name: 'mcp__app_data__update_app_data',
      input: { collection: 'notes', op: 'insert', data: { by: 'agent' } } }],
    stop_reason: 'tool_use',
    usage: { input_tokens: 100, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 5 },
  }, {
    blocks: [
      { type: 'text', text: 'Agent part one. ' },
      { type: 'pause', name: 'mid' },
      { type: 'text', text: 'Agent part two.' },
    ],
    stop_reason: 'end_turn',
    usage: { input_tokens: 500, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 20 },
  }],
  aux: { blocks: [{ type: 'text', text: 'Title' }], stop_reason: 'end_turn' },
};

const agentsJson = (extra = []) => ({
  agents: [
    {
      id: 'helper', name: 'Helper', description: 'Answers questions.', systemPrompt: 'You are the helper agent.',
      tools: [{ type: 'builtin', name: 'WebFetch', description: 'Fetch pages.', enabled: true, recommended: false }],
      dataCollections: ['notes'],
    },
    ...extra,
  ],
});
const draftOnlyAgent = { id: 'drafty', name: 'Drafty', description: 'Only in the draft.', systemPrompt: 'You draft.' };

// The builder turn that gives the app its build (a publish needs one: 409 no_build before): it
// writes src/App.tsx and calls done_building, on a model server of its own that the agents' one
// replaces on the same port.
const builderScenario = {
  turns: [
    toolTurn(use('t_write', 'Bash', { command: "cat > src/App.tsx <<'EOF'\nexport default function App() {\n  return <h1>Agents</h1>;\n}\nEOF", description: 'Write the app' })),
    toolTurn(use('t_build', 'mcp__platform__done_building', { summary: 'Agents' })),
    endTurn('Built the app.'),
  ],
  aux: endTurn('Title'),
};

function freePort() {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function json(res) {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`not JSON (HTTP ${res.status}): ${text.slice(0, 200)}`);
  }
}

// The last message the real AI SDK client assembles from a viewer's events (it throws on a
// malformed stream: a repeated or missing part).
async function assemble(events) {
  const body = events.map((e) => `data: ${e}\n\n`).join('');
  const stream = new Response(body).body.pipeThrough(new TextDecoderStream()).pipeThrough(new TransformStream({
    transform(chunk, ctl) {
      for (const line of chunk.split('\n')) {
        if (line.startsWith('data: ') && line !== 'data: [DONE]') ctl.enqueue(JSON.parse(line.slice(6)));
      }
    },
  }));
  let last;
  for await (const m of readUIMessageStream({ stream, onError: (e) => { throw e; } })) last = m;
  return last;
}

// The UI message chunks' text deltas, joined.
const textOf = (events) => events.filter((e) => e !== '[DONE]').map((e) => JSON.parse(e))
  .filter((c) => c.type === 'text-delta').map((c) => c.delta).join('');

async function waitFor(what, fn, ms = 60000) {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function main() {
  fs.writeFileSync(path.join(tmp, 'scenario.json'), JSON.stringify(scenario));
  fs.writeFileSync(path.join(tmp, 'builder-scenario.json'), JSON.stringify(builderScenario));
  // The builder's model server answers first; the app agents' one takes its port after the build.
  const modelPort = await freePort();
  const startModel = (name, file, log) => start(name, 'python3', [path.join(projectDir, 'tests/model_server/model_server.py'),
    '--script', path.join(tmp, file), '--port', String(modelPort), '--log', path.join(tmp, log),
    '--idle-exit', '600'], {}, /^(\d+)\n/m);
  const builderModel = await startModel('builder-model', 'builder-scenario.json', 'builder-requests.jsonl');
  const modelUrl = `http://127.0.0.1:${modelPort}`;
  const startWorker = (name, port) => start(name, path.join(buildDir, 'servers/worker/platform-worker'), [], {
    PLATFORM_WORKER_PORT: String(port),
    PLATFORM_DATA_DIR: path.join(tmp, 'worker-data'),
    INTERNAL_API_TOKEN: token,
    ANTHROPIC_BASE_URL: modelUrl,
    ANTHROPIC_API_KEY: 'scripted-model-key',
    CLAUDE_CODE_MAX_RETRIES: '0',
  }, /listening on (http:\S+)/);
  let workerProcess = await startWorker('worker', 0);
  const worker = workerProcess.match[1];
  const web = (await start('web', path.join(buildDir, 'servers/web/platform-web'), [], {
    PLATFORM_WEB_PORT: '0',
    PLATFORM_DATA_DIR: path.join(tmp, 'web-data'),
    PLATFORM_WORKER_URLS: deadWorkers ? `http://127.0.0.1:1,${worker},http://127.0.0.1:2` : worker,
    // Not probed in time: the web server learns of the dead workers from its own requests.
    PLATFORM_WORKER_PROBE_MS: '600000',
    INTERNAL_API_TOKEN: token,
    PLATFORM_SSE_HEARTBEAT_MS: '500',
    PLATFORM_AGENT_RUN_CHECK_MS: '200',
    PLATFORM_AGENT_RUN_UNREACHABLE_MS: '1500',
  }, /listening on (http:\S+)/)).match[1];

  const send = (method, p, body) => fetch(web + p, {
    method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const post = (p, body) => send('POST', p, body);
  const workerStarted = async () => (await json(await fetch(`${worker}/health`))).agentRunsStarted;

  // An app whose agents.json is approved and published; then a draft-only agent is added.
  const app = await json(await post('/api/workspaces/default/apps', { name: 'Agents' }));
  const other = await json(await post('/api/workspaces/default/apps', { name: 'Other' }));
  const appPath = `/api/workspaces/default/apps/${app.id}`;
  const runsPath = `${appPath}/agent-runs`;
  const patched = await json(await send('PATCH', `${appPath}/agents`, agentsJson()));
  assert.equal(patched.valid, true, JSON.stringify(patched.problems));
  const approved = await post(`${appPath}/agents/approval`, { approvalHash: patched.hash });
  assert.equal(approved.status, 200, await approved.text());
  await check('an approved draft without a build is not published (409 no_build): no published agents, build or run', async () => {
    const refused = await post(`${appPath}/publish`, {});
    assert.equal(refused.status, 409);
    assert.equal((await json(refused)).error.code, 'no_build');
    const shown = await json(await fetch(web + appPath));
    assert.deepEqual([shown.preview, shown.publishedPreview], [null, null]);
    assert.equal((await json(await fetch(`${web}${appPath}/agents`))).published, null);
    const run = await post(runsPath, { agentId: 'helper', prompt: 'Too early' });
    assert.equal(run.status, 404, 'no published agent to run');
  });
  // The builder turn that builds the app; then its model server makes way for the agents' one.
  const builderRun = await json(await post(`${appPath}/runs`, {}));
  const turn = await post(`${appPath}/runs/${builderRun.id}/chat`, { messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Build the app.' }] }] });
  assert.equal(turn.status, 200, await turn.clone().text());
  await new SseReader(turn, { payload: true }).toEnd();
  assert.equal((await json(await fetch(`${web}${appPath}/runs/${builderRun.id}/chat`))).status, 'completed');
  assert.ok((await json(await fetch(web + appPath))).preview, 'the builder turn built the app');
  const builderExited = new Promise((resolve) => builderModel.child.once('exit', resolve));
  builderModel.child.kill('SIGKILL');
  await builderExited;
  await startModel('model', 'scenario.json', 'requests.jsonl');
  const published = await post(`${appPath}/publish`, {});
  assert.equal(published.status, 200, await published.text());
  assert.ok((await json(await fetch(web + appPath))).publishedPreview, 'the published page has the build');
  const draftPatch = await json(await send('PATCH', `${appPath}/agents`, agentsJson([draftOnlyAgent])));
  assert.equal(draftPatch.valid, true, JSON.stringify(draftPatch.problems));
  // Approved (not published): draft runs may use their data tools.
  const draftApproved = await post(`${appPath}/agents/approval`, { approvalHash: draftPatch.hash });
  assert.equal(draftApproved.status, 200, await draftApproved.text());
  const notes = async (scope) => (await json(await fetch(`${web}${appPath}/data/notes?scope=${scope}`))).documents;

  const events = new SseReader(await fetch(`${web}/api/workspaces/default/events`), { payload: true });
  const runEvents = (runId) => events.events.map((e) => JSON.parse(e)).filter((e) => e.runId === runId);

  let runA;
  await check('create: pending, triggering user resolved server-side, no prompt in the reply', async () => {
    const res = await post(runsPath, { agentId: 'helper', prompt: 'Summarize the notes', triggeredByUserId: 'mallory' });
    assert.equal(res.status, 201);
    runA = await json(res);
    assert.equal(runA.status, 'pending');
    assert.equal(runA.agentId, 'helper');
    assert.equal(runA.agentName, 'Helper');
    assert.equal(runA.triggeredByUserId, 'local-owner');
    assert.equal(runA.sourceVersion, 'published');
    assert.equal(runA.draft, false);
    assert.ok(!JSON.stringify(runA).includes('Summarize the notes'));
  });

  const runPath = () => `${runsPath}/${runA.id}`;
  let startedBefore;
  await check('startOnly=1 starts the worker run and returns at once; the run goes on', async () => {
    startedBefore = await workerStarted();
    const t0 = Date.now();
    const res = await post(`${runPath()}/stream?startOnly=1`);
    const elapsed = Date.now() - t0;
    assert.equal(res.status, 202);
    assert.deepEqual(await json(res), { runId: runA.id, status: 'running', started: true });
    assert.ok(elapsed < 5000, `took ${elapsed} ms`);
    assert.equal(await workerStarted(), startedBefore + 1);
    // The model holds its reply at the pause: the run is running, not finished.
    const s = await json(await fetch(web + runPath()));
    assert.equal(s.status, 'running');
  });

  await check('a second start starts nothing', async () => {
    const res = await post(`${runPath()}/stream?startOnly=1`);
    assert.equal(res.status, 200);
    assert.deepEqual(await json(res), { runId: runA.id, status: 'running', started: false });
    assert.equal(await workerStarted(), startedBefore + 1);
  });

  await check('the summary is projected: no prompt, transcript or messages', async () => {
    const s = await json(await fetch(web + runPath()));
    for (const k of ['prompt', 'transcript', 'messages', 'systemPrompt', 'agentConfig']) assert.ok(!(k in s), k);
    assert.ok(!JSON.stringify(s).includes('Summarize the notes'));
    assert.equal(s.result, null);
  });

  await check('a viewer stream via POST; disconnecting it clears its activeStreamId and stops nothing', async () => {
    const ctrl = new AbortController();
    const res = await fetch(`${web}${runPath()}/stream`, { method: 'POST', signal: ctrl.signal });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-sdk-ai-ui-message-stream'), 'v1');
    const viewer = new SseReader(res, { payload: true });
    await viewer.until((e) => textOf(e).includes('Agent part one.'));
    assert.equal(JSON.parse(viewer.events[0]).type, 'start');
    assert.equal(JSON.parse(viewer.events[0]).messageId, `agent-${runA.id}`);
    const during = await json(await fetch(web + runPath()));
    assert.equal(during.status, 'streaming');
    assert.equal(typeof during.activeStreamId, 'string');
    ctrl.abort();
    const after = await waitFor('the stream to be released', async () => {
      const s = await json(await fetch(web + runPath()));
      return s.activeStreamId === null ? s : null;
    }, 30000);
    assert.equal(after.status, 'running');
    assert.equal((await json(await fetch(`${worker}/health`))).agentRuns >= 1, true);
  });

  let resumed;
  await check('resume via GET stream: buffered messages, then live to the end of the run', async () => {
    const res = await fetch(`${web}${runPath()}/stream`);
    assert.equal(res.status, 200);
    const viewer = new SseReader(res, { payload: true });
    await viewer.until((e) => textOf(e).includes('Agent part one.'));
    // A second viewer replays the first one's buffer from its start.
    const second = new SseReader(await fetch(`${web}${runPath()}/stream`), { payload: true });
    await second.until((e) => textOf(e).includes('Agent part one.'));
    await fetch(`${modelUrl}/control/release/mid`, { method: 'POST', body: '{}' });
    resumed = await viewer.toEnd();
    assert.equal(textOf(resumed), 'Agent part one. Agent part two.');
    assert.equal(textOf(await second.toEnd()), 'Agent part one. Agent part two.');
  });

  await check('the real AI SDK client assembles the viewer stream into one assistant message', async () => {
    const last = await assemble(resumed);
    assert.equal(last.id, `agent-${runA.id}`);
    assert.equal(last.parts.filter((p) => p.type === 'text').map((p) => p.text).join(''), 'Agent part one. Agent part two.');
  });

  await check('completion via the callback: one compact run event, ids and status only', async () => {
    await events.until(() => runEvents(runA.id).length > 0);
    const mine = runEvents(runA.id);
    assert.deepEqual(mine, [{ type: 'run.completed', workspaceId: 'default', appId: app.id, runId: runA.id, kind: 'agent', status: 'completed' }]);
  });

  await check('the completed summary: status, result, usage totals, times; still no transcript', async () => {
    const s = await json(await fetch(web + runPath()));
    assert.equal(s.status, 'completed');
    assert.match(s.result, /Agent part two\./);
    assert.equal(s.error, null);
    assert.ok(s.usage.totalInputTokens >= 500, JSON.stringify(s.usage));
    assert.ok(s.usage.totalOutputTokens >= 20, JSON.stringify(s.usage));
    assert.ok(!('byModel' in s.usage));
    assert.ok(s.startedAt >= s.createdAt && s.finishedAt >= s.startedAt);
    assert.equal(s.activeStreamId, null);
    assert.ok(!('transcript' in s) && !('messages' in s));
  });

  await check('the transcript is stored as UI messages; a finished run streams whole from it', async () => {
    const m = await json(await fetch(`${web}${runPath()}/messages`));
    assert.equal(m.status, 'completed');
    assert.equal(m.messages.length, 1);
    assert.equal(m.messages[0].role, 'assistant');
    assert.equal(m.messages[0].id, `agent-${runA.id}`);
    const text = m.messages[0].parts.filter((p) => p.type === 'text').map((p) => p.text).join('');
    assert.match(text, /Agent part one\.\s*Agent part two\./);
    assert.ok(!JSON.stringify(m).includes('Summarize the notes'));
    const res = await fetch(`${web}${runPath()}/stream`);
    assert.equal(res.status, 200);
    const whole = await new SseReader(res, { payload: true }).toEnd();
    assert.match(textOf(whole), /Agent part two\./);
  });

  await check('the callback is idempotent and needs the internal token and the run\'s capability', async () => {
    const body = { workspaceId: 'default', appId: app.id, runId: runA.id, status: 'failed', result: null, error: 'late', usage: null, transcript: [] };
    // The capability the web minted for the run (and gave the worker), from its secrets key.
    const capabilityFor = (appId) => runCapability(secretsKeyOf(path.join(tmp, 'web-data')), 'agent', 'default', appId, runA.id);
    const complete = (b, headers) => fetch(`${web}/api/internal/agent-run-complete`, {
      method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(b) });
    const bearer = { authorization: `Bearer ${token}` };
    const noToken = await complete(body, { 'x-run-capability': capabilityFor(app.id) });
    assert.equal(noToken.status, 401);
    const noCapability = await complete(body, bearer);
    assert.equal(noCapability.status, 403);
    assert.equal((await json(noCapability)).error.code, 'invalid_run_capability');
    const again = await complete(body, { ...bearer, 'x-run-capability': capabilityFor(app.id) });
    assert.equal(again.status, 200);
    assert.deepEqual(await json(again), { ok: true, duplicate: true });
    // The run's capability does not name the other app; one minted for it finds no such run there.
    const crossApp = await complete({ ...body, appId: other.id }, { ...bearer, 'x-run-capability': capabilityFor(app.id) });
    assert.equal(crossApp.status, 403);
    assert.equal((await json(crossApp)).error.code, 'invalid_run_capability');
    const crossAppMinted = await complete({ ...body, appId: other.id }, { ...bearer, 'x-run-capability': capabilityFor(other.id) });
    assert.equal(crossAppMinted.status, 404);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(runEvents(runA.id).length, 1);
    assert.equal((await json(await fetch(web + runPath()))).status, 'completed');
  });

  await check("another app's run is 404 on every route", async () => {
    const otherRuns = `/api/workspaces/default/apps/${other.id}/agent-runs/${runA.id}`;
    for (const [method, p] of [['GET', otherRuns], ['GET', `${otherRuns}/stream`], ['GET', `${otherRuns}/messages`],
      ['POST', `${otherRuns}/stream?startOnly=1`], ['POST', `${otherRuns}/stream`],
      ['GET', `/api/workspaces/elsewhere/apps/${app.id}/agent-runs/${runA.id}`]]) {
      const res = await fetch(web + p, { method });
      assert.equal(res.status, 404, `${method} ${p}`);
      assert.equal((await json(res)).error.code, 'not_found');
    }
  });

  await check('the published run wrote its note into the published data scope', async () => {
    const published = await notes('published');
    assert.equal(published.length, 1);
    assert.deepEqual(published[0].data, { by: 'agent' });
    assert.equal((await notes('draft')).length, 0);
  });

  await check('draft runs use the draft agents.json and the draft data scope', async () => {
    const published = await post(runsPath, { agentId: 'drafty', prompt: 'Hi' });
    assert.equal(published.status, 404);
    assert.equal((await json(published)).error.code, 'agent_not_found');
    const drafty = await post(runsPath, { agentId: 'drafty', prompt: 'Draft it', draft: true });
    assert.equal(drafty.status, 201);
    assert.equal((await json(drafty)).sourceVersion, 'draft');
    const res = await post(runsPath, { agentId: 'helper', prompt: 'Draft note', draft: true });
    assert.equal(res.status, 201);
    const draftRun = await json(res);
    assert.equal(draftRun.sourceVersion, 'draft');
    assert.equal(draftRun.draft, true);
    const started = await post(`${runsPath}/${draftRun.id}/stream?startOnly=1`);
    assert.equal(started.status, 202);
    await events.until(() => runEvents(draftRun.id).length > 0);
    assert.equal(runEvents(draftRun.id)[0].type, 'run.completed');
    const s = await json(await fetch(`${web}${runsPath}/${draftRun.id}`));
    assert.equal(s.status, 'completed');
    assert.equal(s.draft, true);
    assert.equal((await notes('draft')).length, 1);
    assert.equal((await notes('published')).length, 1);
  });

  // After the data scope checks: this run writes a note too.
  await check("the owning viewer leaving never ends another viewer's stream: it goes on to the run's end", async () => {
    await fetch(`${modelUrl}/control/arm/mid`, { method: 'POST', body: '{}' });
    const made = await json(await post(runsPath, { agentId: 'helper', prompt: 'Hand over the stream' }));
    assert.equal((await post(`${runsPath}/${made.id}/stream?startOnly=1`)).status, 202);
    const p = `${web}${runsPath}/${made.id}`;
    const ctrl = new AbortController();
    const owner = new SseReader(await fetch(`${p}/stream`, { signal: ctrl.signal }), { payload: true });
    await owner.until((e) => textOf(e).includes('Agent part one.'));
    const ownerStream = (await json(await fetch(p))).activeStreamId;
    assert.equal(typeof ownerStream, 'string');
    const follower = new SseReader(await fetch(`${p}/stream`), { payload: true });
    await follower.until((e) => textOf(e).includes('Agent part one.'));
    ctrl.abort();
    // The follower registers the run's next stream and reads on where it was.
    await waitFor('the follower to take the stream over', async () => {
      const s = await json(await fetch(p));
      return s.activeStreamId && s.activeStreamId !== ownerStream ? s : null;
    }, 30000);
    await fetch(`${modelUrl}/control/release/mid`, { method: 'POST', body: '{}' });
    const seen = await follower.toEnd();
    assert.equal(textOf(seen), 'Agent part one. Agent part two.', 'nothing lost, nothing repeated');
    assert.ok(!seen.some((e) => e !== '[DONE]' && JSON.parse(e).type === 'error'), seen.join('\n'));
    const last = await assemble(seen);
    assert.equal(last.parts.filter((x) => x.type === 'text').map((x) => x.text).join(''), 'Agent part one. Agent part two.');
    const done = await waitFor('the run to complete', async () => {
      const s = await json(await fetch(p));
      return s.status === 'completed' ? s : null;
    }, 30000);
    assert.equal(done.activeStreamId, null);
  });

  await check('bad input: a clear 400 and nothing created', async () => {
    for (const body of [{}, { agentId: 'helper' }, { agentId: 'helper', prompt: 42 }, { agentId: 'helper', prompt: 'x', draft: 'yes' },
      { agentId: '', prompt: 'x' }]) {
      const res = await post(runsPath, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal((await json(res)).error.code, 'invalid_body');
    }
    const bad = await fetch(`${web}${runPath()}/stream?cursor=-1`);
    assert.equal(bad.status, 400);
    const missing = await fetch(`${web}${runsPath}/arun_nope`);
    assert.equal(missing.status, 404);
  });

  await check("the app's runs list newest first as summaries, a page at a time; another app's are not there", async () => {
    const all = await json(await fetch(`${web}${runsPath}`));
    assert.ok(all.runs.length >= 2, JSON.stringify(all));
    assert.equal(all.nextCursor, null);
    const created = all.runs.map((r) => r.createdAt);
    assert.deepEqual(created, [...created].sort((a, b) => b - a), 'newest first');
    assert.ok(all.runs.some((r) => r.id === runA.id));
    assert.ok(all.runs.some((r) => r.draft), 'the owner reads the draft, so draft runs are listed');
    for (const r of all.runs) for (const k of ['prompt', 'transcript', 'messages', 'systemPrompt', 'agentConfig']) assert.ok(!(k in r), k);
    assert.ok(!JSON.stringify(all).includes('Summarize the notes'));
    const seen = [];
    let cursor = null;
    do {
      const page = await json(await fetch(`${web}${runsPath}?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`));
      assert.ok(page.runs.length <= 1);
      seen.push(...page.runs.map((r) => r.id));
      cursor = page.nextCursor;
    } while (cursor);
    assert.deepEqual(seen, all.runs.map((r) => r.id), 'pages of one, in order, none repeated or skipped');
    const otherRuns = await json(await fetch(`${web}/api/workspaces/default/apps/${other.id}/agent-runs`));
    assert.ok(!otherRuns.runs.some((r) => all.runs.some((x) => x.id === r.id)));
    for (const q of ['limit=0', 'limit=201', 'limit=x', 'cursor=nope', 'cursor=12.bad%20id']) {
      const bad = await fetch(`${web}${runsPath}?${q}`);
      assert.equal(bad.status, 400, q);
      assert.match((await json(bad)).error.code, /^invalid_(limit|cursor)$/, q);
    }
  });

  await check("the runtime got the run's prompt, the agent's system prompt and its granted tools", async () => {
    const log = fs.readFileSync(path.join(tmp, 'requests.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const first = log.find((r) => JSON.stringify(r.body?.messages ?? '').includes('Summarize the notes'));
    assert.ok(first, 'the prompt reached the model');
    assert.ok(JSON.stringify(first.body.system).includes('You are the helper agent.'), 'the agent system prompt reached the model');
    const tools = (first.body.tools ?? []).map((t) => t.name);
    assert.ok(tools.includes('WebFetch'), tools.join(','));
    assert.ok(tools.includes('mcp__app_data__read_app_data'), tools.join(','));
    assert.ok(!tools.includes('Bash'), tools.join(','));
  });
  await check('Stop: a running run ends failed "Stopped by the user." mid-answer; a pending one fails at once', async () => {
    await fetch(`${modelUrl}/control/arm/mid`, { method: 'POST', body: '{}' });
    const made = await json(await post(runsPath, { agentId: 'helper', prompt: 'Stop me midway' }));
    assert.equal((await post(`${runsPath}/${made.id}/stream?startOnly=1`)).status, 202);
    const p = `${runsPath}/${made.id}`;
    const viewer = new SseReader(await fetch(`${web}${p}/stream`), { payload: true });
    await viewer.until((e) => textOf(e).includes('Agent part one.'));
    const stopped = await post(`${p}/stop`);
    assert.equal(stopped.status, 202, await stopped.clone().text());
    assert.deepEqual(await json(stopped), { runId: made.id, status: 'stopping' });
    const seen = await viewer.toEnd();
    const chunks = seen.filter((e) => e !== '[DONE]').map((e) => JSON.parse(e));
    assert.ok(chunks.some((c) => c.type === 'error' && c.errorText === 'Stopped by the user.'), seen.join('\n'));
    assert.ok(!textOf(seen).includes('Agent part two.'));
    await events.until(() => runEvents(made.id).some((e) => e.type === 'run.failed'));
    const s = await json(await fetch(web + p));
    assert.equal(s.status, 'failed');
    assert.equal(s.error, 'Stopped by the user.');
    await fetch(`${modelUrl}/control/release/mid`, { method: 'POST', body: '{}' });
    const again = await post(`${p}/stop`);
    assert.equal(again.status, 409);
    assert.equal((await json(again)).error.code, 'not_running');
    const pending = await json(await post(runsPath, { agentId: 'helper', prompt: 'Never started' }));
    const direct = await post(`${runsPath}/${pending.id}/stop`);
    assert.equal(direct.status, 200);
    assert.equal((await json(await fetch(`${web}${runsPath}/${pending.id}`))).error, 'Stopped by the user.');
    assert.equal((await post(`${runsPath}/arun_nope/stop`)).status, 404);
  });

  // Last: these kill the worker.
  const lostRun = async (name) => {
    const made = await json(await post(runsPath, { agentId: 'helper', prompt: `Lost run ${name}` }));
    await fetch(`${modelUrl}/control/arm/mid`, { method: 'POST', body: '{}' });
    assert.equal((await post(`${runsPath}/${made.id}/stream?startOnly=1`)).status, 202);
    return made.id;
  };
  const failedEvent = (id) => events.until((e) => e.some((x) => JSON.parse(x).runId === id && JSON.parse(x).type === 'run.failed'));

  await check('a run whose worker stays unreachable fails with a clear reason and run.failed', async () => {
    const id = await lostRun('unreachable');
    workerProcess.child.kill('SIGKILL');
    await failedEvent(id);
    const s = await json(await fetch(`${web}${runsPath}/${id}`));
    assert.equal(s.status, 'failed');
    assert.match(s.error, /unreachable for \d+ s/);
    const ev = events.events.map((x) => JSON.parse(x)).find((x) => x.runId === id && x.type === 'run.failed');
    assert.deepEqual(Object.keys(ev).sort(), ['appId', 'kind', 'runId', 'status', 'type', 'workspaceId']);
    assert.equal(ev.kind, 'agent');
  });

  await check('a run its restarted worker no longer holds fails at the next check', async () => {
    const port = new URL(worker).port;
    workerProcess = await startWorker('worker-2', port);
    const id = await lostRun('restarted');
    workerProcess.child.kill('SIGKILL');
    workerProcess = await startWorker('worker-3', port);
    await failedEvent(id);
    const s = await json(await fetch(`${web}${runsPath}/${id}`));
    assert.equal(s.status, 'failed');
    // A run nobody holds may be on a worker that does not answer: with dead workers listed it
    // fails as unreachable, after the limit.
    assert.match(s.error, deadWorkers ? /unreachable for \d+ s/ : /no longer holds this run/);
    await fetch(`${modelUrl}/control/release/mid`, { method: 'POST', body: '{}' });
  });
  events.reader.cancel();
}

await run(main);
