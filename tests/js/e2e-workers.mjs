// Workers scale out (docs/operations.md, "Several workers"): two web replicas (PostgreSQL,
// Redis) and three workers running the real Claude Code CLI against the scripted model server.
//   - every turn of an app runs on one worker, whichever replica takes the POST;
//   - a worker killed mid-turn ends that turn with an error and [DONE]; the app's next turn
//     runs on its next worker, with the draft restored and the earlier turns' context;
//   - a draining worker finishes its running turn and takes no new one;
//   - an app that comes back to its worker after the drain gets the draft written over the
//     worker's stale workspace instead of replacing the draft with it.
//
// Usage: node e2e-workers.mjs --build DIR --project DIR --replicas
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { harness, SseReader } from './harness.mjs';

const args = process.argv.slice(2);
const opt = (name) => args[args.indexOf(name) + 1];
const buildDir = path.resolve(opt('--build'));
const projectDir = path.resolve(opt('--project'));
const { tmp, check, start, run } = harness('platform-workers-');

const token = 'e2e-internal-token-for-workers';
const ordinals = ['First', 'Second', 'Third', 'Fourth', 'Fifth', 'Sixth'];
// Reply k of a conversation says which it is, and holds at `hold` while that pause is armed.
const scenario = {
  turns: ordinals.map((o) => ({
    blocks: [{ type: 'text', text: `${o} answer. ` }, { type: 'pause', name: 'hold', timeout: 60 }, { type: 'text', text: 'Done.' }],
    stop_reason: 'end_turn',
  })),
  aux: { blocks: [{ type: 'text', text: 'Title' }], stop_reason: 'end_turn' },
};
const agents = (prompt) => ({
  agents: [{ id: 'notes', name: 'Notes', description: 'Keeps notes.', systemPrompt: prompt, dataCollections: ['notes'], tools: [] }],
});

run(async () => {
  assert.ok(process.env.PLATFORM_TEST_PG_URL && process.env.PLATFORM_TEST_REDIS_URL, 'PostgreSQL and Redis (scripts/services.sh)');
  const scenarioFile = path.join(tmp, 'scenario.json');
  fs.writeFileSync(scenarioFile, JSON.stringify(scenario));
  const modelLog = path.join(tmp, 'model-requests.jsonl');
  const model = await start('model', 'python3', [path.join(projectDir, 'tests/model_server/model_server.py'),
    '--script', scenarioFile, '--port', '0', '--idle-exit', '600', '--log', modelLog], {}, /^(\d+)\n/m);
  const modelUrl = `http://127.0.0.1:${model.match[1]}`;
  const control = (what) => fetch(`${modelUrl}/control/${what}/hold`, { method: 'POST', body: '{}' });

  const workers = [];
  for (let i = 0; i < 3; i += 1) {
    const dataDir = path.join(tmp, `worker-${i}`);
    const w = await start(`worker-${i}`, path.join(buildDir, 'servers/worker/platform-worker'), [], {
      PLATFORM_WORKER_PORT: '0', PLATFORM_DATA_DIR: dataDir, INTERNAL_API_TOKEN: token,
      PLATFORM_APP_TEMPLATE_DIR: path.join(projectDir, 'templates/app-workspace'),
      ANTHROPIC_BASE_URL: modelUrl, ANTHROPIC_API_KEY: 'scripted-model-key', CLAUDE_CODE_MAX_RETRIES: '0',
    }, /listening on (http:\S+)/);
    workers.push({ url: w.match[1], child: w.child, dataDir });
  }
  const webEnv = {
    PLATFORM_WEB_PORT: '0', PLATFORM_DATA_DIR: path.join(tmp, 'web'), INTERNAL_API_TOKEN: token,
    PLATFORM_WORKER_URLS: workers.map((w) => w.url).join(','),
    PLATFORM_DATABASE_URL: process.env.PLATFORM_TEST_PG_URL, PLATFORM_REDIS_URL: process.env.PLATFORM_TEST_REDIS_URL,
  };
  const web = path.join(buildDir, 'servers/web/platform-web');
  const replicas = [];
  // Replica a probes the workers once a minute: what it learns in between comes from its own
  // requests (a connection refused, a drain refusal). Replica b probes every 200 ms.
  for (const [name, probe] of [['web-a', '60000'], ['web-b', '200']]) {
    replicas.push((await start(name, web, [], { ...webEnv, PLATFORM_WORKER_PROBE_MS: probe }, /listening on (http:\S+)/)).match[1]);
  }

  const call = (base, method, p, body) => fetch(base + p, { method, headers: body ? { 'content-type': 'application/json' } : {},
    body: body && JSON.stringify(body) });
  const health = async (w) => {
    try {
      return await (await fetch(`${w.url}/health`)).json();
    } catch {
      return null;  // killed
    }
  };
  const started = async () => Promise.all(workers.map(async (w) => (await health(w))?.turnsStarted ?? null));
  // The one worker whose turn count grew between two readings.
  const ranOn = (before, after) => {
    const grew = after.map((n, i) => (n !== null && n > before[i] ? i : -1)).filter((i) => i >= 0);
    assert.equal(grew.length, 1, `exactly one worker ran the turn: ${JSON.stringify({ before, after })}`);
    return grew[0];
  };
  const newApp = async (base, name) => {
    const app = await (await call(base, 'POST', '/api/workspaces/default/apps', { name })).json();
    const made = await (await call(base, 'POST', `/api/workspaces/default/apps/${app.id}/runs`, {})).json();
    return { id: app.id, run: made.id };
  };
  const runPath = (app, runId = app.run) => `/api/workspaces/default/apps/${app.id}/runs/${runId}`;
  const history = async (app, runId) => (await (await call(replicas[0], 'GET', `${runPath(app, runId)}/chat`)).json());
  let asked = 0;
  // Starts a turn of `app` through `base`; resolves with its SSE reader once the POST answered.
  const startTurn = async (base, app, runId = app.run) => {
    const past = (await history(app, runId)).messages;
    asked += 1;
    const res = await call(base, 'POST', `${runPath(app, runId)}/chat`,
      { messages: [...past, { id: `u${asked}`, role: 'user', parts: [{ type: 'text', text: `Question ${asked}` }] }] });
    assert.equal(res.status, 200);
    return new SseReader(res, { payload: true });
  };
  const chunksOf = (events) => events.filter((e) => e !== '[DONE]').map((e) => JSON.parse(e));
  const textOf = (events) => chunksOf(events).filter((c) => c.type === 'text-delta').map((c) => c.delta).join('');
  // One whole turn; returns { worker, text }.
  const turn = async (base, app, runId) => {
    const before = await started();
    const events = await (await startTurn(base, app, runId)).toEnd();
    assert.ok(!chunksOf(events).some((c) => c.type === 'error'), `no error chunk: ${textOf(events)}`);
    return { worker: ranOn(before, await started()), text: textOf(events) };
  };
  const workspaceFile = (w, app, file) => path.join(workers[w].dataDir, 'workspaces', app.id, file);
  const agentsPath = (app) => `/api/workspaces/default/apps/${app.id}/agents`;
  const workersSeen = async (base) => (await (await call(base, 'GET', '/api/health')).json()).workers;
  const until = async (what, pred) => {
    for (let i = 0; i < 200; i += 1) {
      if (await pred()) return;
      await new Promise((r) => setTimeout(r, 50));  // polling a state, not timing the test
    }
    throw new Error(`never: ${what}`);
  };
  await control('release');

  // Two apps on two different workers (a third app is tried when both land on one).
  const apps = [];
  await check('every turn of an app runs on one worker, whichever web replica takes it', async () => {
    for (let n = 0; n < 6 && apps.length < 2; n += 1) {
      const app = await newApp(replicas[n % 2], `Spread ${n}`);
      const first = await turn(replicas[n % 2], app);
      assert.match(first.text, /^First answer/);
      const second = await turn(replicas[(n + 1) % 2], app);
      assert.match(second.text, /^Second answer/, 'the same conversation, on the same worker');
      assert.equal(second.worker, first.worker, 'both replicas send the app to the same worker');
      assert.ok(fs.existsSync(workspaceFile(first.worker, app, 'package.json')));
      app.worker = first.worker;
      if (!apps.some((a) => a.worker === app.worker)) apps.push(app);
    }
    assert.equal(apps.length, 2, 'two apps on two workers');
    for (const app of apps) {
      const holders = workers.map((_, i) => fs.existsSync(path.join(workers[i].dataDir, 'workspaces', app.id)));
      assert.deepEqual(holders.map((h, i) => h && i), holders.map((h, i) => (i === app.worker ? i : false)),
        'only its worker holds a workspace of the app');
    }
  });
  const [a, b] = apps;

  await check('a worker killed mid-turn: the turn ends with an error and [DONE]; the next turn runs on the next worker with the draft and the context', async () => {
    assert.ok(a && b, 'two apps on two workers');
    await control('arm');
    const reader = await startTurn(replicas[1], a);
    await reader.until((e) => textOf(e).includes('Third answer'));
    assert.equal((await health(workers[a.worker])).turnsRunning, 1);
    workers[a.worker].child.kill('SIGKILL');
    const events = await reader.toEnd();
    const error = chunksOf(events).find((c) => c.type === 'error');
    assert.ok(error, `an error chunk: ${JSON.stringify(chunksOf(events).slice(-3))}`);
    assert.equal((await history(a)).status, 'failed');
    await control('release');
    // Edited while the app's worker is gone: the draft takes it, the next worker gets it.
    const patched = await call(replicas[0], 'PATCH', agentsPath(a), agents('Kept while the worker was down.'));
    assert.equal(patched.status, 200);
    assert.equal((await workersSeen(replicas[0])).down, 0, 'replica a has not probed since');
    const next = await turn(replicas[0], a);  // refused by the killed worker, taken by the next
    assert.notEqual(next.worker, a.worker);
    assert.match(next.text, /answer\. Done\.$/);
    assert.equal((await history(a)).status, 'completed');
    assert.deepEqual(JSON.parse(fs.readFileSync(workspaceFile(next.worker, a, 'agents.json'), 'utf8')),
      agents('Kept while the worker was down.'), 'the draft was written into the new worker');
    assert.ok(fs.existsSync(workspaceFile(next.worker, a, 'src/App.tsx')), 'the whole draft, not only the edited file');
    const lastAsk = fs.readFileSync(modelLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
      .filter((r) => r.path.startsWith('/v1/messages') && JSON.stringify(r.body).includes(`Question ${asked}`)).at(-1);
    assert.ok(lastAsk, 'the model was asked');
    assert.ok(JSON.stringify(lastAsk.body).includes('First answer'), 'the earlier turns reached the new worker');
    a.worker = next.worker;
    for (const base of replicas) await until('both replicas see the worker down', async () => (await workersSeen(base)).down === 1);
  });

  await check('a draining worker finishes its running turn and takes no new one', async () => {
    await control('arm');
    const before = await started();
    const reader = await startTurn(replicas[0], b);
    await reader.until((e) => textOf(e).includes('Third answer'));
    const drained = await fetch(`${workers[b.worker].url}/drain`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    assert.equal(drained.status, 200);
    assert.deepEqual(await drained.json(), { ok: true, draining: true, turnsRunning: 1 });
    // Without the token a worker's drain is refused.
    assert.equal((await fetch(`${workers[b.worker].url}/drain`, { method: 'DELETE' })).status, 401);
    // A new run of the same app while the drained worker still runs the first one.
    const other = (await (await call(replicas[1], 'POST', `/api/workspaces/default/apps/${b.id}/runs`, {})).json()).id;
    assert.equal((await workersSeen(replicas[0])).draining, 0, 'replica a has not probed since');
    const second = await startTurn(replicas[0], b, other);  // refused as draining, taken by the next
    await second.until((e) => textOf(e).includes('First answer'));
    await control('release');
    const events = await reader.toEnd();
    assert.ok(!chunksOf(events).some((c) => c.type === 'error'), 'the running turn was not failed');
    assert.equal(textOf(events), 'Third answer. Done.');
    assert.equal((await history(b)).status, 'completed');
    await second.toEnd();
    const after = await started();
    assert.equal(after[b.worker], before[b.worker] + 1, 'the drained worker ran only the turn it had');
    const elsewhere = after.map((n, i) => (n !== null && i !== b.worker && n > before[i] ? i : -1)).filter((i) => i >= 0);
    assert.equal(elsewhere.length, 1, 'the new turn ran on another worker');
    b.next = elsewhere[0];
    const h = await health(workers[b.worker]);
    assert.equal(h.draining, true);
    assert.equal(h.turnsRunning, 0, 'drained: nothing runs there any more');
    for (const base of replicas) await until('both replicas see the drain', async () => (await workersSeen(base)).draining === 1);
  });

  await check('back from the drain, the worker gets the draft over its stale workspace', async () => {
    const v2 = agents('Edited while the worker drained.');
    const patched = await (await call(replicas[0], 'PATCH', agentsPath(b), v2)).json();
    assert.equal(patched.workerSynced, true);
    assert.deepEqual(JSON.parse(fs.readFileSync(workspaceFile(b.next, b, 'agents.json'), 'utf8')), v2);
    assert.ok(!fs.existsSync(workspaceFile(b.worker, b, 'agents.json')), 'the drained worker missed the edit');
    const undrained = await fetch(`${workers[b.worker].url}/drain`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
    assert.equal(undrained.status, 200);
    await until('replica b sees it up', async () => (await workersSeen(replicas[1])).up === 2);
    const back = await turn(replicas[1], b);
    assert.equal(back.worker, b.worker, 'the app is back on its own worker');
    assert.deepEqual(JSON.parse(fs.readFileSync(workspaceFile(b.worker, b, 'agents.json'), 'utf8')), v2,
      'the draft was written over the stale workspace');
    const draft = await (await call(replicas[0], 'GET', agentsPath(b))).json();
    assert.deepEqual(draft.agentsJson, v2, 'the turn did not replace the draft with the stale copy');
  });
});
