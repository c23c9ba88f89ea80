// What platform-web asks of its worker, seen by a worker stand-in that records every request
// (worker-stand-in.mjs) instead of running a runtime. Covers (issue 33, rows that worked with no
// test to guard them): the app's runtime settings in the worker request of an app-agent run
// and of a repair run (and a PATCH changing what the next of each uses); the provider session
// the web fetches from the worker after a turn and saves, which the run's next turn on the same
// runtime carries as sessionState with the count of messages it covers (another runtime's turn
// gets none); an app document without runtime fields (old development data) whose builder
// turn, agent run and repair run get the default settings, and a repair run of an app whose
// model was retired that falls back to them; the run.failed that another replica's stale-lease
// recovery publishes for a repair run whose replica died mid-turn, which carries the run's
// runReason. Two web replicas share the SQLite file; each publishes on its own events.
//
// Usage: node e2e-worker-requests.mjs --build DIR
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { harness, SseReader } from './harness.mjs';
import { workerStandIn } from './worker-stand-in.mjs';

const args = process.argv.slice(2);
const buildDir = path.resolve(args[args.indexOf('--build') + 1] ?? 'build');
const webBin = path.join(buildDir, 'servers/web/platform-web');
const { tmp, check, start, run } = harness('platform-worker-requests-');

async function call(base, method, p, body) {
  const headers = body === undefined ? {} : { 'content-type': 'application/json' };
  const res = await fetch(base + p, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let json;
  try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: res.status, json, text };
}
const ok = (r, status = 200) => {
  assert.equal(r.status, status, r.text);
  return r.json;
};
const settingsOf = (app) => ({ runtimeId: app.runtimeId, runtimeModel: app.runtimeModel, runtimeParams: app.runtimeParams });

// One app tool whose input placeholder a report can say was missing, and one agent.
const agentsDoc = {
  appTools: [{
    type: 'custom', name: 'deals', description: 'Deals by stage.', enabled: true, recommended: false,
    integration: { name: 'Acme', domain: '127.0.0.1', keySlug: 'acme' },
    endpoint: { method: 'GET', url: 'http://127.0.0.1:9/deals', queryParams: { stage: '{{stage}}' } },
    mockData: [{ deals: [] }, { deals: [{ id: 'd1' }] }, { deals: [{ id: 'd2' }] }],
  }],
  agents: [{ id: 'helper', name: 'Helper', description: 'Finds deals.', systemPrompt: 'You find deals.',
    tools: [{ type: 'builtin', name: 'WebFetch', description: 'Fetch pages.', enabled: true, recommended: false }] }],
};

await run(async () => {
  const worker = await workerStandIn();
  const dataDir = path.join(tmp, 'web');
  const webEnv = {
    PLATFORM_WEB_PORT: '0', PLATFORM_DATA_DIR: dataDir, PLATFORM_WORKER_URL: worker.url,
    PLATFORM_HTTP_ACTION_ALLOW: '127.0.0.1:9', PLATFORM_TOOL_REPAIR_MAX_RUNS: '50',
    // The shortest lease: a replica that died leaves its turn to the others' recovery in about a second.
    PLATFORM_STREAM_LEASE_MS: '1000',
  };
  const webA = await start('web-a', webBin, [], webEnv, /listening on (http:\S+)/);
  const web = webA.match[1];
  const ws = '/api/workspaces/default';
  const registry = ok(await call(web, 'GET', '/api/runtimes')).runtimes;

  // A new app with agents.json approved in its draft (what agent runs and app actions need).
  const governedApp = async (name, settings = {}) => {
    const app = ok(await call(web, 'POST', `${ws}/apps`, { name, ...settings }), 201);
    const appPath = `${ws}/apps/${app.id}`;
    const patched = ok(await call(web, 'PATCH', `${appPath}/agents`, agentsDoc));
    assert.equal(patched.valid, true, JSON.stringify(patched.problems));
    const view = ok(await call(web, 'GET', `${appPath}/agents`));
    ok(await call(web, 'POST', `${appPath}/agents/approval`, { approvalHash: view.draftHash ?? view.hash }));
    return app;
  };
  // The worker request of a new draft agent run of the app, started through the web.
  const agentRunRequest = async (appId) => {
    const appPath = `${ws}/apps/${appId}`;
    const id = ok(await call(web, 'POST', `${appPath}/agent-runs`, { agentId: 'helper', prompt: 'Find the open deals', draft: true }), 201).id;
    ok(await call(web, 'POST', `${appPath}/agent-runs/${id}/stream?startOnly=1`), 202);
    return worker.waitFor(`the agent run ${id}`, () => worker.agentStarts().find((b) => b.runId === id));
  };
  // An editor's report of the app action's failure: the repair run it starts, and that run's
  // worker request.
  const repairRunRequest = async (appId, base = web) => {
    const report = { input: {}, result: { success: false, errorCode: 'MISSING_INPUT', errorCategory: 'input', error: 'stage is missing' },
      description: 'The deals list stays empty', attemptedTask: 'list the open deals' };
    const r = ok(await call(base, 'POST', `${ws}/apps/${appId}/app-tools/deals/report-failure`, report), 202);
    assert.equal(r.status, 'repair_started', JSON.stringify(r));
    const body = await worker.waitFor(`the repair run ${r.builderRunId}`, () => worker.turns().find((b) => b.runId === r.builderRunId));
    return { runId: r.builderRunId, body };
  };
  // A builder turn through the chat route, read to its end; resolves once the run has ended
  // (its session state saved, the run persisted).
  const chatTurn = async (appId, runId, messages, extra = {}) => {
    const res = await fetch(`${web}${ws}/apps/${appId}/runs/${runId}/chat`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ messages, ...extra }) });
    assert.equal(res.status, 200, await res.clone().text());
    const events = await new SseReader(res).toEnd();
    assert.ok(events.join('').includes('Noted.'), events.join(''));
    const persisted = ok(await call(web, 'GET', `${ws}/apps/${appId}/runs/${runId}/chat`));
    assert.equal(persisted.status, 'completed');
    return { persisted, body: worker.turns().filter((b) => b.runId === runId).at(-1) };
  };
  const user = (id, text) => ({ id, role: 'user', parts: [{ type: 'text', text }] });

  // Settings no default has: runtime-b with a model other than its default and a reasoning
  // effort other than its default; then runtime-a's other model with its other params.
  const nonDefault = (runtimeId) => {
    const rt = registry.find((r) => r.id === runtimeId);
    const model = rt.models.find((m) => m.id !== rt.defaultModel) ?? rt.models[0];
    const runtimeParams = {};
    for (const [name, p] of Object.entries(model.params)) {
      const other = p.values.find((v) => v !== p.default);
      if (other) runtimeParams[name] = other;
    }
    return { runtimeId, runtimeModel: model.id, runtimeParams };
  };

  await check("an agent run's and a repair run's worker requests carry the app's runtime settings; a PATCH changes the next ones", async () => {
    const wanted = nonDefault('runtime-b');
    const app = await governedApp('Settings', wanted);
    assert.equal(app.runtimeId, 'runtime-b');
    assert.equal(app.runtimeModel, wanted.runtimeModel);
    assert.notEqual(app.runtimeModel, registry.find((r) => r.id === 'runtime-b').defaultModel);
    const agent = await agentRunRequest(app.id);
    assert.deepEqual(agent.settings.settings, settingsOf(app));
    const repair = await repairRunRequest(app.id);
    assert.deepEqual(repair.body.settings.settings, settingsOf(app));
    assert.equal(ok(await call(web, 'GET', `${ws}/apps/${app.id}/runs/${repair.runId}/chat`)).runReason, 'app_tool_failure');

    const changed = ok(await call(web, 'PATCH', `${ws}/apps/${app.id}`, nonDefault('runtime-a')));
    assert.equal(changed.runtimeId, 'runtime-a');
    assert.notDeepEqual(settingsOf(changed), settingsOf(app));
    assert.deepEqual((await agentRunRequest(app.id)).settings.settings, settingsOf(changed));
    assert.deepEqual((await repairRunRequest(app.id)).body.settings.settings, settingsOf(changed));
  });

  await check("the provider session comes with the turn's closing line and is saved: the run's next turn carries it as sessionState", async () => {
    const app = ok(await call(web, 'POST', `${ws}/apps`, { name: 'Sessions' }), 201);
    const runId = ok(await call(web, 'POST', `${ws}/apps/${app.id}/runs`), 201).id;
    const first = await chatTurn(app.id, runId, [user('u1', 'First')]);
    assert.equal(first.body.sessionState, null, 'a new run has no session');
    assert.equal(first.body.sessionCoversMessages, undefined);
    // One closing line instead of GETs after the stream: a turn that changed nothing asks for
    // neither its session nor a source snapshot nor a build.
    const after = worker.requests.filter((r) => r.method === 'GET' && r.path.startsWith(`/sessions/${app.id}/`));
    assert.deepEqual(after.map((r) => r.path), [], 'the web asked the worker nothing more after the turn');
    const [afterFirst] = worker.sessionStates.get(runId);

    const second = await chatTurn(app.id, runId, [...first.persisted.messages, user('u2', 'Second')]);
    assert.deepEqual(second.body.sessionState, afterFirst);
    assert.equal(second.body.sessionCoversMessages, 2, 'the session covers the first turn: its user and assistant messages');
    const afterSecond = worker.sessionStates.get(runId)[1];
    assert.notDeepEqual(afterSecond, afterFirst);

    // Another runtime has no session of this run; coming back, runtime-a's latest one is sent.
    const third = await chatTurn(app.id, runId, [...second.persisted.messages, user('u3', 'Third')], { runtimeId: 'runtime-b' });
    assert.equal(third.body.settings.settings.runtimeId, 'runtime-b');
    assert.equal(third.body.sessionState, null);
    assert.equal(third.body.sessionCoversMessages, undefined);
    const fourth = await chatTurn(app.id, runId, [...third.persisted.messages, user('u4', 'Fourth')], { runtimeId: 'runtime-a' });
    assert.deepEqual(fourth.body.sessionState, afterSecond);
    assert.equal(fourth.body.sessionCoversMessages, 4);
  });

  // The app's row as old development data left it: no runtime fields (the columns' defaults).
  const db = path.join(dataDir, 'platform.db');
  // (python3's sqlite3 module: the tests need python3 anyway, the sqlite3 shell is not installed.)
  const sql = (statement) => execFileSync('python3', ['-c',
    'import sqlite3, sys\nc = sqlite3.connect(sys.argv[1], timeout=10)\nc.execute(sys.argv[2])\nc.commit()', db, statement]);
  const stripRuntime = (appId) => sql(`UPDATE apps SET runtime_id = '', runtime_model = '', runtime_params = '{}' WHERE id = '${appId}'`);

  await check('an app without runtime fields gets the default settings in its builder turn, agent run and repair run', async () => {
    const defaults = ok(await call(web, 'POST', `${ws}/apps`, { name: 'Defaults' }), 201);
    const a = registry.find((r) => r.id === 'runtime-a');
    // Spec "Runtime settings": runtime-a, its newest largest model, effort xhigh, thinking adaptive.
    assert.deepEqual(settingsOf(defaults), { runtimeId: 'runtime-a', runtimeModel: a.defaultModel, runtimeParams: { effort: 'xhigh', thinking: 'adaptive' } });
    const app = await governedApp('Old data', nonDefault('runtime-b'));

    stripRuntime(app.id);
    const stored = ok(await call(web, 'GET', `${ws}/apps/${app.id}`));
    assert.deepEqual(settingsOf(stored), { runtimeId: '', runtimeModel: '', runtimeParams: {} }, 'the row has no runtime fields');
    const runId = ok(await call(web, 'POST', `${ws}/apps/${app.id}/runs`), 201).id;
    const turn = await chatTurn(app.id, runId, [user('u1', 'Hello')]);
    assert.deepEqual(turn.body.settings.settings, settingsOf(defaults));
    // The chat's settings become the app's: the defaults, persisted now.
    assert.deepEqual(settingsOf(ok(await call(web, 'GET', `${ws}/apps/${app.id}`))), settingsOf(defaults));

    stripRuntime(app.id);
    assert.deepEqual((await agentRunRequest(app.id)).settings.settings, settingsOf(defaults));
    stripRuntime(app.id);
    assert.deepEqual((await repairRunRequest(app.id)).body.settings.settings, settingsOf(defaults));
  });

  await check("a repair run of an app whose model was retired uses the default settings (a builder turn is refused)", async () => {
    const app = await governedApp('Retired model');
    sql(`UPDATE apps SET runtime_model = 'claude-retired-model-1' WHERE id = '${app.id}'`);
    const runId = ok(await call(web, 'POST', `${ws}/apps/${app.id}/runs`), 201).id;
    const refused = await call(web, 'POST', `${ws}/apps/${app.id}/runs/${runId}/chat`, { messages: [user('u1', 'Hello')] });
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.json.error.code, 'unknown_model');
    const defaults = ok(await call(web, 'POST', `${ws}/apps`, { name: 'Defaults again' }), 201);
    assert.deepEqual((await repairRunRequest(app.id)).body.settings.settings, settingsOf(defaults));
  });

  await check("a repair run whose replica died mid-turn: the other replica's recovery publishes run.failed with its runReason", async () => {
    const b = (await start('web-b', webBin, [], webEnv, /listening on (http:\S+)/)).match[1];
    const app = await governedApp('Recovered repair');
    const events = new SseReader(await fetch(`${b}${ws}/events`), { payload: true });
    worker.holdTurns(true);
    const { runId } = await repairRunRequest(app.id);
    await worker.waitFor('the repair turn held mid-stream', () => worker.held.find((h) => h.runId === runId));
    assert.equal(ok(await call(b, 'GET', `${ws}/apps/${app.id}/runs/${runId}/chat`)).status, 'streaming');
    webA.child.kill('SIGKILL');
    const failed = (e) => e.map((x) => JSON.parse(x)).find((x) => x.type === 'run.failed' && x.runId === runId);
    const seen = failed(await events.until((e) => failed(e)));
    assert.deepEqual(seen, { type: 'run.failed', workspaceId: 'default', appId: app.id, runId, kind: 'builder', status: 'failed', runReason: 'app_tool_failure' });
    const after = ok(await call(b, 'GET', `${ws}/apps/${app.id}/runs/${runId}/chat`));
    assert.equal(after.status, 'failed');
    assert.equal(after.runReason, 'app_tool_failure');
    assert.equal(after.activeStreamId, null);
    worker.holdTurns(false);
    events.reader.cancel().catch(() => {});
  });
  worker.server.closeAllConnections();
  worker.server.close();
});
