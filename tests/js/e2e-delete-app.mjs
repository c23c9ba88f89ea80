// Deleting an app end to end: platform-web + platform-worker + the real Claude Code CLI + the
// scripted model server, and a second worker in the web's list that is down. Two apps get a
// builder turn each (their workspaces on the worker), app data in both scopes, a secret; one also
// an approved agents.json and an app-agent run. While that app's builder turn streams, and while
// its agent run runs, DELETE answers 409 app_busy and changes nothing (each holds at a pause of
// the model server, so no timing is guessed). Then the DELETE: 200 although a worker is down;
// the app and all under it 404; app.deleted on the workspace events; no row of it left in any
// table with an app_id column of the web's database; its workspace directory gone from the
// worker, which refuses the app's routes from then on; the other app, its rows and its
// workspace untouched; the secret never in a log. In external mode: who may delete.
//
// Usage: node e2e-delete-app.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { harness, identityProvider, SseReader, use, toolTurn, endTurn } from './harness.mjs';

const args = process.argv.slice(2);
const opt = (name) => args[args.indexOf(name) + 1];
const buildDir = path.resolve(opt('--build'));
const projectDir = path.resolve(opt('--project'));
const { tmp, check, start, run } = harness('platform-delete-app-');

const CANARY = `canary-delete-${crypto.randomBytes(8).toString('hex')}`;

const scenario = {
  // A builder turn that only lists the sources, so it completes (and makes the workspace).
  turns: [toolTurn(use('ls1', 'Bash', { command: 'ls src', description: 'List the sources' })), endTurn('The app has its sources.')],
  // A turn that holds its stream until the test releases it.
  after_user: [{ contains: 'Hold on', turns: [{ blocks: [{ type: 'text', text: 'Holding. ' }, { type: 'pause', name: 'turn' },
    { type: 'text', text: 'Released.' }], stop_reason: 'end_turn' }] }],
  // The app's agent (its requests carry no platform tools): held the same way.
  agent: [{ blocks: [{ type: 'pause', name: 'agent' }, { type: 'text', text: 'Noted.' }], stop_reason: 'end_turn' }],
  aux: endTurn('Title'),
};

const agentsDoc = { agents: [{ id: 'noter', name: 'Noter', description: 'Takes notes.', systemPrompt: 'You take notes.', dataCollections: ['notes'] }] };

function closedPort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

// Rows per table with an app_id column of the web's SQLite database, for one app (python3's
// sqlite3: the tests need python3 anyway; the sqlite3 shell is not installed everywhere).
function rowsOf(db, appId) {
  const script = [
    'import json, sqlite3, sys',
    'c = sqlite3.connect(sys.argv[1], timeout=10)',
    "tables = [t for (t,) in c.execute(\"SELECT m.name FROM sqlite_master m JOIN pragma_table_info(m.name) p WHERE m.type = 'table' AND p.name = 'app_id'\")]",
    'out = {t: c.execute(f"SELECT COUNT(*) FROM {t} WHERE app_id = ?", (sys.argv[2],)).fetchone()[0] for t in tables}',
    "for t in ('run_model_usage', 'run_session_states'):",
    '    out[t] = c.execute(f"SELECT COUNT(*) FROM {t} WHERE run_id IN (SELECT id FROM builder_runs WHERE app_id = ?)", (sys.argv[2],)).fetchone()[0]',
    "out['apps'] = c.execute('SELECT COUNT(*) FROM apps WHERE id = ?', (sys.argv[2],)).fetchone()[0]",
    'print(json.dumps(out))',
  ].join('\n');
  return JSON.parse(execFileSync('python3', ['-c', script, db, appId], { encoding: 'utf8' }));
}

await run(async () => {
  fs.writeFileSync(path.join(tmp, 'scenario.json'), JSON.stringify(scenario));
  const model = await start('model', 'python3', [path.join(projectDir, 'tests/model_server/model_server.py'),
    '--script', path.join(tmp, 'scenario.json'), '--port', '0', '--idle-exit', '600'], {}, /^(\d+)\n/m);
  const modelUrl = `http://127.0.0.1:${model.match[1]}`;
  const release = (pause) => fetch(`${modelUrl}/control/release/${pause}`, { method: 'POST' }).then((r) => r.json());
  const workerData = path.join(tmp, 'worker-data');
  const worker = (await start('worker', path.join(buildDir, 'servers/worker/platform-worker'), [], {
    PLATFORM_WORKER_PORT: '0', PLATFORM_DATA_DIR: workerData,
    PLATFORM_APP_TEMPLATE_DIR: path.join(projectDir, 'templates/app-workspace'),
    ANTHROPIC_BASE_URL: modelUrl, ANTHROPIC_API_KEY: 'scripted-model-key', CLAUDE_CODE_MAX_RETRIES: '0',
  }, /listening on (http:\S+)/)).match[1];
  const downWorker = `http://127.0.0.1:${await closedPort()}`;
  const webData = path.join(tmp, 'web-data');
  const web = (await start('web', path.join(buildDir, 'servers/web/platform-web'), [], {
    PLATFORM_WEB_PORT: '0', PLATFORM_DATA_DIR: webData, PLATFORM_WORKER_URLS: `${worker},${downWorker}`,
  }, /listening on (http:\S+)/)).match[1];
  const workspaceDir = (appId) => path.join(workerData, 'workspaces', appId);

  const call = async (base, method, p, { body, bearer } = {}) => {
    const headers = {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    const res = await fetch(base + p, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let json;
    try { json = JSON.parse(text); } catch { json = undefined; }
    return { status: res.status, json, text };
  };
  const W = (method, p, body) => call(web, method, p, { body });
  const ok = (r, status = 200) => {
    assert.equal(r.status, status, r.text);
    return r.json;
  };
  const ws = '/api/workspaces/default';
  const events = new SseReader(await fetch(`${web}${ws}/events`), { payload: true });
  const seenEvents = () => events.events.map((e) => JSON.parse(e));

  const user = (id, text) => ({ id, role: 'user', parts: [{ type: 'text', text }] });
  // A builder turn to its end: the run's persisted state afterwards.
  const turn = async (appId, runId, messages) => {
    const res = await fetch(`${web}${ws}/apps/${appId}/runs/${runId}/chat`, { method: 'POST',
      headers: { 'content-type': 'application/json' }, body: JSON.stringify({ messages }) });
    assert.equal(res.status, 200);
    await new SseReader(res, { payload: true }).toEnd();
    return ok(await W('GET', `${ws}/apps/${appId}/runs/${runId}/chat`));
  };

  const doomed = ok(await W('POST', `${ws}/apps`, { name: 'Doomed' }), 201);
  const kept = ok(await W('POST', `${ws}/apps`, { name: 'Kept' }), 201);
  const A = `${ws}/apps/${doomed.id}`, B = `${ws}/apps/${kept.id}`;
  let doomedRun, keptRun, agentRun;

  await check('setup: a builder turn on each app (its workspace on the worker), data in both scopes, a secret', async () => {
    doomedRun = ok(await W('POST', `${A}/runs`), 201).id;
    keptRun = ok(await W('POST', `${B}/runs`), 201).id;
    assert.equal((await turn(doomed.id, doomedRun, [user('u1', 'What is there?')])).status, 'completed');
    assert.equal((await turn(kept.id, keptRun, [user('u1', 'What is there?')])).status, 'completed');
    for (const [appPath, id] of [[A, doomed.id], [B, kept.id]]) {
      assert.ok(fs.existsSync(path.join(workspaceDir(id), 'package.json')), `the workspace of ${id}`);
      ok(await W('POST', `${appPath}/data`, { op: 'insert', collection: 'notes', data: { text: 'published' } }), 201);
      ok(await W('POST', `${appPath}/data`, { scope: 'draft', op: 'insert', collection: 'notes', data: { text: 'draft' } }), 201);
      ok(await W('PUT', `${appPath}/integrations/secrets`, { domain: 'api.example.com', keySlug: 'default', name: 'API_KEY', value: CANARY }));
    }
    const patched = ok(await W('PATCH', `${A}/agents`, agentsDoc));
    assert.equal(patched.valid, true, JSON.stringify(patched.problems));
    const view = ok(await W('GET', `${A}/agents`));
    ok(await W('POST', `${A}/agents/approval`, { approvalHash: view.draftHash ?? view.hash }));
    assert.equal(ok(await W('GET', `${A}/agents`)).approvalStatus, 'approved');
  });

  await check('while a builder turn of the app streams, DELETE is 409 app_busy and changes nothing', async () => {
    const history = ok(await W('GET', `${A}/runs/${doomedRun}/chat`));
    const res = await fetch(`${web}${A}/runs/${doomedRun}/chat`, { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [...history.messages, user('u2', 'Hold on a moment')] }) });
    assert.equal(res.status, 200);
    const stream = new SseReader(res, { payload: true });
    await stream.until((e) => e.some((x) => x.includes('Holding')));
    const refused = await W('DELETE', A);
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.json.error.code, 'app_busy');
    assert.match(refused.json.error.message, /builder/);
    assert.equal(ok(await W('GET', A)).name, 'Doomed');
    assert.ok(fs.existsSync(workspaceDir(doomed.id)));
    await release('turn');
    await stream.toEnd();
    assert.equal(ok(await W('GET', `${A}/runs/${doomedRun}/chat`)).status, 'completed');
  });

  await check('while an app agent run of the app runs, DELETE is 409 app_busy; after it ended the run is kept until the delete', async () => {
    const created = ok(await W('POST', `${A}/agent-runs`, { agentId: 'noter', prompt: 'Note something', draft: true }), 201);
    agentRun = created.id;
    ok(await W('POST', `${A}/agent-runs/${agentRun}/stream?startOnly=1`), 202);
    const refused = await W('DELETE', A);
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.json.error.code, 'app_busy');
    assert.match(refused.json.error.message, /agent/);
    await release('agent');
    await events.until(() => seenEvents().some((e) => e.runId === agentRun && e.type === 'run.completed'));
    assert.equal(ok(await W('GET', `${A}/agent-runs/${agentRun}`)).status, 'completed');
  });

  const db = path.join(webData, 'platform.db');
  await check('before the delete: rows of the app in the tables this flow writes', async () => {
    const rows = rowsOf(db, doomed.id);
    for (const t of ['apps', 'builder_runs', 'app_agent_runs', 'app_data_documents', 'app_data_collections', 'gov_snapshots',
      'gov_snapshot_files', 'gov_approvals', 'integration_secrets', 'run_model_usage']) {
      assert.ok(rows[t] > 0, `${t}: ${JSON.stringify(rows)}`);
    }
  });

  await check('DELETE removes the app and all under it, although a worker is down; app.deleted is published', async () => {
    const deleted = ok(await W('DELETE', A));
    assert.deepEqual(deleted, { id: doomed.id, deleted: true, workers: { cleaned: 1, missed: 1 } });
    for (const p of [A, `${A}/runs`, `${A}/runs/${doomedRun}/chat`, `${A}/agent-runs`, `${A}/agent-runs/${agentRun}`,
      `${A}/data/notes`, `${A}/data/notes?scope=draft`, `${A}/agents`, `${A}/integrations`]) {
      const r = await W('GET', p);
      assert.equal(r.status, 404, `${p}: ${r.text}`);
      assert.equal(r.json.error.code, 'not_found');
    }
    assert.equal((await W('DELETE', A)).status, 404, 'a second delete');
    assert.deepEqual(ok(await W('GET', `${ws}/apps`)).apps.map((a) => a.id), [kept.id]);
    await events.until(() => seenEvents().some((e) => e.type === 'app.deleted'));
    assert.deepEqual(seenEvents().find((e) => e.type === 'app.deleted'), { type: 'app.deleted', workspaceId: 'default', appId: doomed.id });
  });

  await check('no row of the deleted app is left in any table; the other app keeps all of its own', async () => {
    const rows = rowsOf(db, doomed.id);
    assert.ok(Object.keys(rows).length >= 17, JSON.stringify(rows));
    // What the app spent stays spent in its workspace's month (docs/budgets.md): its ledger stays.
    const spent = ['spend_entries', 'spend_months'];
    for (const [t, n] of Object.entries(rows)) if (!spent.includes(t)) assert.equal(n, 0, `${t} still holds ${n} rows of the deleted app`);
    assert.ok(rows.spend_entries > 0 && rows.spend_months > 0, JSON.stringify(rows));
    const others = rowsOf(db, kept.id);
    for (const t of ['apps', 'builder_runs', 'app_data_documents', 'app_data_collections', 'integration_secrets', 'run_model_usage']) {
      assert.ok(others[t] > 0, `${t}: ${JSON.stringify(others)}`);
    }
    assert.equal(ok(await W('GET', B)).name, 'Kept');
    assert.equal(ok(await W('GET', `${B}/runs/${keptRun}/chat`)).status, 'completed');
    assert.equal(ok(await W('GET', `${B}/data/notes`)).documents.length, 1);
    assert.equal(ok(await W('GET', `${B}/data/notes?scope=draft`)).documents.length, 1);
    assert.match(JSON.stringify(ok(await W('GET', `${B}/integrations`))), /API_KEY/);
  });

  await check("the worker removed the app's workspace, keeps the other app's, and refuses the deleted app from then on", async () => {
    assert.equal(fs.existsSync(workspaceDir(doomed.id)), false);
    assert.ok(fs.existsSync(path.join(workspaceDir(kept.id), 'package.json')));
    // A request that was under way when the app was deleted cannot make its workspace again.
    const late = await call(worker, 'PUT', `/sessions/${doomed.id}/files`, { body: { path: 'agents.json', content: '{}' } });
    assert.equal(late.status, 404, late.text);
    assert.equal(fs.existsSync(workspaceDir(doomed.id)), false);
    const again = ok(await call(worker, 'DELETE', `/sessions/${doomed.id}`));
    assert.equal(again.workspaceRemoved, false);
    // The other app's turns go on.
    const history = ok(await W('GET', `${B}/runs/${keptRun}/chat`));
    assert.equal((await turn(kept.id, keptRun, [...history.messages, user('u2', 'And now?')])).status, 'completed');
  });

  await check('the logs say what was deleted and where its workspace stays, never the secret', async () => {
    const webLog = fs.readFileSync(path.join(tmp, 'web.log'), 'utf8');
    const workerLog = fs.readFileSync(path.join(tmp, 'worker.log'), 'utf8');
    assert.ok(webLog.includes(`web: app ${doomed.id} of workspace default deleted by local-owner`), webLog);
    assert.ok(webLog.includes(`worker ${downWorker} did not remove its workspace`), webLog);
    assert.match(workerLog, new RegExp(`worker: app ${doomed.id} deleted \\(workspace removed`));
    assert.ok(!webLog.includes(CANARY) && !workerLog.includes(CANARY));
  });

  await check('external mode: admins, owners and the app\'s creator delete an app; other collaborators and viewers get 403', async () => {
    const idp = identityProvider();
    const ext = (await start('web-ext', path.join(buildDir, 'servers/web/platform-web'), [], {
      PLATFORM_WEB_PORT: '0', PLATFORM_DATA_DIR: path.join(tmp, 'web-ext'), PLATFORM_WORKER_URL: worker, ...idp.env,
    }, /listening on (http:\S+)/)).match[1];
    const as = (who) => (method, p, body) => call(ext, method, p, { body, bearer: idp.token(who) });
    const team = ok(await as('owner')('POST', '/api/workspaces', { name: 'Team' }), 201).id;
    for (const [userId, role] of [['colin', 'collaborator'], ['carol', 'collaborator'], ['vic', 'viewer'], ['ada', 'admin']]) {
      ok(await as('owner')('POST', `/api/workspaces/${team}/members`, { userId, role }));
    }
    const colins = ok(await as('colin')('POST', `/api/workspaces/${team}/apps`, { name: "Colin's" }), 201).id;
    const owners = ok(await as('owner')('POST', `/api/workspaces/${team}/apps`, { name: "Owner's" }), 201).id;
    for (const who of ['carol', 'vic']) {
      const denied = await as(who)('DELETE', `/api/workspaces/${team}/apps/${colins}`);
      assert.equal(denied.status, 403, `${who}: ${denied.text}`);
      assert.equal(denied.json.error.code, 'forbidden');
    }
    assert.equal((await as('stranger')('DELETE', `/api/workspaces/${team}/apps/${colins}`)).status, 404);
    assert.equal((await as('colin')('DELETE', `/api/workspaces/${team}/apps/${owners}`)).status, 403, "not colin's app");
    ok(await as('colin')('DELETE', `/api/workspaces/${team}/apps/${colins}`));
    ok(await as('ada')('DELETE', `/api/workspaces/${team}/apps/${owners}`));
    assert.deepEqual(ok(await as('owner')('GET', `/api/workspaces/${team}/apps`)).apps, []);
  });
  events.reader.cancel();
});
