// App data end to end on platform-web (docs/app-runtime.md "App data"): insert, merge update,
// remove, list and get; draft and published scopes kept apart; roles; clear 400s, 413 and
// 409s; live change events that reach every viewer of that app and scope and nobody else.
// Runs against one in-process web (SQLite, in-process pub/sub) and, when PLATFORM_TEST_PG_URL
// and PLATFORM_TEST_REDIS_URL are set (scripts/services.sh), against two replicas sharing
// PostgreSQL and Redis: viewers on one replica, writers on the other.
//
// Usage: node e2e-app-data.mjs --build DIR
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import path from 'node:path';
import { harness, SseReader, identityProvider, runCapability, secretsKeyOf } from './harness.mjs';

const args = process.argv.slice(2);
const buildDir = path.resolve(args[args.indexOf('--build') + 1] ?? 'build');
const web = path.join(buildDir, 'servers/web/platform-web');
const { tmp, check, start, run } = harness('platform-app-data-');
let webs = 0;
const startWeb = async (env) => (await start(`web-${webs++}`, web, [], env, /listening on (http:\S+)/)).match[1];

const internalToken = crypto.randomBytes(32).toString('hex');
const { token: user, issuer, audience, secret } = identityProvider();
const alice = user('alice');  // owner
const bob = user('bob');      // collaborator
const carol = user('carol');  // viewer
const dave = user('dave');    // not a member

async function call(base, method, p, { bearer, body, capability } = {}) {
  const headers = {};
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  if (capability) headers['x-run-capability'] = capability;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(base + p, { method, headers, body: typeof body === 'string' ? body : body && JSON.stringify(body) });
  const text = await res.text();
  let json;
  try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: res.status, json, text };
}

function assertError(r, status, code) {
  assert.equal(r.status, status, r.text);
  assert.equal(typeof r.json?.error?.message, 'string', r.text);
  if (code) assert.equal(r.json.error.code, code, r.text);
}

const withTimeout = (p, ms, what) =>
  Promise.race([p, new Promise((_, reject) => setTimeout(() => reject(new Error(`timed out: ${what}`)), ms))]);

// A live viewer of one app's data in one scope.
async function viewer(base, bearer, ws, app, scope) {
  const abort = new AbortController();
  const res = await fetch(`${base}/api/workspaces/${ws}/apps/${app}/data-events?scope=${scope}`, {
    headers: { authorization: `Bearer ${bearer}` }, signal: abort.signal,
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
  const reader = new SseReader(res, { payload: true });
  // The stream opens with a comment once the subscription stands; read it before writing.
  const first = await withTimeout(reader.reader.read(), 5000, 'subscription comment');
  reader.buffer += reader.decoder.decode(first.value, { stream: true });
  return {
    events: async (n) => (await withTimeout(reader.until((e) => e.length >= n), 5000, `${n} events`)).map((e) => JSON.parse(e)),
    all: () => reader.events.map((e) => JSON.parse(e)),
    close: () => abort.abort(),
  };
}

// `secretsKey`: the writer's, which mints the capabilities its internal routes check.
async function suite(label, writeBase, viewBase, secretsKey) {
  const data = (ws, app) => `/api/workspaces/${ws}/apps/${app}/data`;
  const agentCapability = (ws, app, runId) => runCapability(secretsKey, 'agent', ws, app, runId);
  let ws;
  let appA;
  let appB;
  await check(`${label}: a workspace with an owner, a collaborator and a viewer, and two apps`, async () => {
    const made = await call(writeBase, 'POST', '/api/workspaces', { bearer: alice, body: { name: 'Data' } });
    assert.equal(made.status, 201, made.text);
    ws = made.json.id;
    for (const [userId, role] of [['bob', 'collaborator'], ['carol', 'viewer']]) {
      const r = await call(writeBase, 'POST', `/api/workspaces/${ws}/members`, { bearer: alice, body: { userId, role } });
      assert.equal(r.status, 200, r.text);
    }
    appA = (await call(writeBase, 'POST', `/api/workspaces/${ws}/apps`, { bearer: alice, body: { name: 'A' } })).json.id;
    appB = (await call(writeBase, 'POST', `/api/workspaces/${ws}/apps`, { bearer: alice, body: { name: 'B' } })).json.id;
    assert.ok(appA && appB);
  });

  await check(`${label}: insert, get, merge update, list and remove (published scope by default)`, async () => {
    const ins = await call(writeBase, 'POST', data(ws, appA), {
      bearer: alice, body: { op: 'insert', collection: 'todos', data: { title: 'milk', meta: { tags: ['x'], n: 1 } } },
    });
    assert.equal(ins.status, 201, ins.text);
    const doc = ins.json.document;
    assert.match(doc.id, /^doc_[0-9a-f]+$/);
    assert.equal(doc.version, 1);
    assert.deepEqual(doc.data, { title: 'milk', meta: { tags: ['x'], n: 1 } });
    assert.equal(typeof doc.createdAt, 'number');

    const up = await call(writeBase, 'POST', data(ws, appA), {
      bearer: alice, body: { op: 'update', collection: 'todos', docId: doc.id, data: { done: true, meta: { n: null, by: 'a' } } },
    });
    assert.equal(up.status, 200, up.text);
    assert.equal(up.json.document.version, 2);
    // RFC 7396: nested objects merge, null removes, the rest stays.
    assert.deepEqual(up.json.document.data, { title: 'milk', done: true, meta: { tags: ['x'], by: 'a' } });

    const got = await call(viewBase, 'GET', `${data(ws, appA)}/todos/${doc.id}`, { bearer: carol });
    assert.equal(got.status, 200, got.text);
    assert.deepEqual(got.json.document, up.json.document);

    for (let i = 0; i < 4; i += 1) {
      const r = await call(writeBase, 'POST', data(ws, appA), { bearer: alice, body: { op: 'insert', collection: 'todos', data: { i } } });
      assert.equal(r.status, 201, r.text);
    }
    const ids = [];
    let cursor = '';
    let pages = 0;
    do {
      const page = await call(viewBase, 'GET', `${data(ws, appA)}/todos?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { bearer: alice });
      assert.equal(page.status, 200, page.text);
      ids.push(...page.json.documents.map((d) => d.id));
      cursor = page.json.nextCursor;
      pages += 1;
    } while (cursor);
    assert.equal(pages, 3);
    assert.equal(ids.length, 5);
    assert.equal(ids[0], doc.id);  // oldest first

    const rm = await call(writeBase, 'POST', data(ws, appA), { bearer: alice, body: { op: 'remove', collection: 'todos', docId: doc.id } });
    assert.equal(rm.status, 200, rm.text);
    assert.deepEqual(rm.json.removed, { id: doc.id, version: 3 });
    assertError(await call(viewBase, 'GET', `${data(ws, appA)}/todos/${doc.id}`, { bearer: alice }), 404, 'data_not_found');
    assertError(await call(writeBase, 'POST', data(ws, appA), { bearer: alice, body: { op: 'remove', collection: 'todos', docId: doc.id } }), 404, 'data_not_found');
  });

  await check(`${label}: draft and published data never mix; another app sees neither`, async () => {
    const d = await call(writeBase, 'POST', data(ws, appA), {
      bearer: bob, body: { scope: 'draft', op: 'insert', collection: 'notes', data: { s: 'draft' } },
    });
    assert.equal(d.status, 201, d.text);
    const p = await call(writeBase, 'POST', data(ws, appA), { bearer: bob, body: { op: 'insert', collection: 'notes', data: { s: 'pub' } } });
    assert.equal(p.status, 201, p.text);
    const draftList = await call(viewBase, 'GET', `${data(ws, appA)}/notes?scope=draft`, { bearer: bob });
    assert.deepEqual(draftList.json.documents.map((x) => x.data.s), ['draft']);
    const pubList = await call(viewBase, 'GET', `${data(ws, appA)}/notes?scope=published`, { bearer: bob });
    assert.deepEqual(pubList.json.documents.map((x) => x.data.s), ['pub']);
    assertError(await call(viewBase, 'GET', `${data(ws, appA)}/notes/${d.json.document.id}`, { bearer: bob }), 404, 'data_not_found');
    const other = await call(viewBase, 'GET', `${data(ws, appB)}/notes?scope=draft`, { bearer: bob });
    assert.deepEqual(other.json.documents, []);
    assertError(await call(writeBase, 'POST', data(ws, appB), {
      bearer: bob, body: { scope: 'draft', op: 'update', collection: 'notes', docId: d.json.document.id, data: { s: 'x' } },
    }), 404, 'data_not_found');
  });

  await check(`${label}: roles — members use the published data, only editors the draft; strangers see nothing`, async () => {
    const w = await call(writeBase, 'POST', data(ws, appA), { bearer: carol, body: { op: 'insert', collection: 'votes', data: { up: 1 } } });
    assert.equal(w.status, 201, w.text);
    assert.equal((await call(viewBase, 'GET', `${data(ws, appA)}/votes`, { bearer: carol })).status, 200);
    assertError(await call(viewBase, 'GET', `${data(ws, appA)}/votes?scope=draft`, { bearer: carol }), 403, 'forbidden');
    assertError(await call(writeBase, 'POST', data(ws, appA), {
      bearer: carol, body: { scope: 'draft', op: 'insert', collection: 'votes', data: {} },
    }), 403, 'forbidden');
    assertError(await call(viewBase, 'GET', `/api/workspaces/${ws}/apps/${appA}/data-events?scope=draft`, { bearer: carol }), 403, 'forbidden');
    assertError(await call(viewBase, 'GET', `${data(ws, appA)}/votes`, { bearer: dave }), 404, 'not_found');
    assertError(await call(writeBase, 'POST', data(ws, appA), { bearer: dave, body: { op: 'insert', collection: 'votes', data: {} } }), 404, 'not_found');
    assertError(await call(viewBase, 'GET', `${data(ws, appA)}/votes`), 401, 'unauthenticated');
    assertError(await call(viewBase, 'GET', `/api/workspaces/${ws}/apps/app_nope/data/votes`, { bearer: alice }), 404, 'not_found');
  });

  await check(`${label}: bad input is a clear 400, an oversized document a 413`, async () => {
    const post = (body) => call(writeBase, 'POST', data(ws, appA), { bearer: alice, body });
    assertError(await post('{"op":'), 400, 'invalid_json');
    assertError(await post({ op: 'upsert', collection: 'todos', data: {} }), 400, 'invalid_body');
    assertError(await post({ op: 'insert', collection: '9lives', data: {} }), 400, 'invalid_collection');
    assertError(await post({ op: 'insert', collection: 'to dos', data: {} }), 400, 'invalid_collection');
    assertError(await post({ op: 'insert', collection: 'todos', data: [1, 2] }), 400, 'invalid_data');
    assertError(await post({ op: 'insert', collection: 'todos' }), 400, 'invalid_data');
    assertError(await post({ op: 'insert', collection: 'todos', docId: 'mine', data: {} }), 400, 'invalid_body');
    assertError(await post({ op: 'update', collection: 'todos', data: {} }), 400, 'invalid_document_id');
    assertError(await post({ op: 'remove', collection: 'todos', docId: 'a/b' }), 400, 'invalid_document_id');
    assertError(await post({ op: 'update', collection: 'todos', docId: 'x', data: {}, expectedVersion: 0 }), 400, 'invalid_body');
    assertError(await post({ scope: 'staging', op: 'insert', collection: 'todos', data: {} }), 400, 'invalid_scope');
    assertError(await call(viewBase, 'GET', `${data(ws, appA)}/todos?limit=0`, { bearer: alice }), 400, 'invalid_limit');
    assertError(await call(viewBase, 'GET', `${data(ws, appA)}/todos?limit=201`, { bearer: alice }), 400, 'invalid_limit');
    assertError(await call(viewBase, 'GET', `${data(ws, appA)}/todos?cursor=junk`, { bearer: alice }), 400, 'invalid_cursor');
    assertError(await call(viewBase, 'GET', `${data(ws, appA)}/9lives`, { bearer: alice }), 400, 'invalid_collection');
    assertError(await post({ op: 'insert', collection: 'todos', data: { blob: 'x'.repeat(300 * 1024) } }), 413, 'document_too_large');
    const small = await post({ op: 'insert', collection: 'grow', data: { blob: '' } });
    assertError(await post({ op: 'update', collection: 'grow', docId: small.json.document.id, data: { blob: 'x'.repeat(300 * 1024) } }),
      413, 'document_too_large');
  });

  await check(`${label}: a stale expectedVersion is a 409 and changes nothing`, async () => {
    const post = (body) => call(writeBase, 'POST', data(ws, appA), { bearer: alice, body });
    const doc = (await post({ op: 'insert', collection: 'cas', data: { n: 1 } })).json.document;
    const ok = await post({ op: 'update', collection: 'cas', docId: doc.id, data: { n: 2 }, expectedVersion: 1 });
    assert.equal(ok.status, 200, ok.text);
    assertError(await post({ op: 'update', collection: 'cas', docId: doc.id, data: { n: 3 }, expectedVersion: 1 }), 409, 'version_conflict');
    assertError(await post({ op: 'remove', collection: 'cas', docId: doc.id, expectedVersion: 1 }), 409, 'version_conflict');
    const now = await call(viewBase, 'GET', `${data(ws, appA)}/cas/${doc.id}`, { bearer: alice });
    assert.deepEqual([now.json.document.version, now.json.document.data], [2, { n: 2 }]);
    assert.equal((await post({ op: 'remove', collection: 'cas', docId: doc.id, expectedVersion: 2 })).status, 200);
  });

  await check(`${label}: live changes reach each viewer of that app and scope, and nobody else`, async () => {
    const draftA = await viewer(viewBase, alice, ws, appA, 'draft');
    const pubA = await viewer(viewBase, carol, ws, appA, 'published');
    const pubB = await viewer(viewBase, bob, ws, appB, 'published');
    const post = (app, body) => call(writeBase, 'POST', data(ws, app), { bearer: alice, body });
    const a1 = (await post(appA, { op: 'insert', collection: 'live', data: { v: 1 } })).json.document;
    await post(appA, { op: 'update', collection: 'live', docId: a1.id, data: { v: 2 } });
    const d1 = (await post(appA, { scope: 'draft', op: 'insert', collection: 'live', data: { v: 1 } })).json.document;
    const b1 = (await post(appB, { op: 'insert', collection: 'live', data: { v: 1 } })).json.document;
    await post(appA, { op: 'remove', collection: 'live', docId: a1.id });
    await post(appA, { op: 'update', collection: 'live', docId: 'doc_missing', data: {} });  // a failed write: no event

    const ev = (op, docId, scope, version) => ({ type: 'data.change', op, collection: 'live', docId, scope, version });
    assert.deepEqual(await pubA.events(3), [
      ev('insert', a1.id, 'published', 1), ev('update', a1.id, 'published', 2), ev('remove', a1.id, 'published', 3)]);
    assert.deepEqual(await draftA.events(1), [ev('insert', d1.id, 'draft', 1)]);
    assert.deepEqual(await pubB.events(1), [ev('insert', b1.id, 'published', 1)]);
    // A barrier instead of a wait: one more write per channel. Each channel delivers in order,
    // so anything that leaked into it would have arrived before its marker.
    const marker = async (app, scope, v) => {
      const doc = (await post(app, { scope, op: 'insert', collection: 'live', data: { marker: true } })).json.document;
      const seen = await v.events(v.all().length + 1);
      assert.equal(seen.at(-1).docId, doc.id);
    };
    await marker(appA, 'published', pubA);
    await marker(appA, 'draft', draftA);
    await marker(appB, 'published', pubB);
    assert.equal(pubA.all().length, 4);
    assert.equal(draftA.all().length, 2);
    assert.equal(pubB.all().length, 2);
    for (const v of [draftA, pubA, pubB]) v.close();
  });

  await check(`${label}: the internal app-data route needs the token, the run's capability and a run of that app`, async () => {
    const body = { workspaceId: ws, appId: appA, runId: 'run_nope', agentId: 'a', action: 'read', request: { collection: 'todos' } };
    // A capability as the web would mint it for this (nonexistent) run.
    const capability = agentCapability(ws, appA, 'run_nope');
    assertError(await call(writeBase, 'POST', '/api/internal/app-data', { body, capability }), 401, 'unauthenticated');
    assertError(await call(writeBase, 'POST', '/api/internal/app-data', { bearer: alice, body, capability }), 401, 'unauthenticated');
    assertError(await call(writeBase, 'POST', '/api/internal/app-data', { bearer: internalToken, body }), 403, 'invalid_run_capability');
    assertError(await call(writeBase, 'POST', '/api/internal/app-data', { bearer: internalToken, body, capability: `${capability}0` }),
      403, 'invalid_run_capability');
    assertError(await call(writeBase, 'POST', '/api/internal/app-data', { bearer: internalToken, body, capability }), 404, 'not_found');
    assertError(await call(writeBase, 'POST', '/api/internal/app-data', { bearer: internalToken, body: { ...body, action: 'delete' }, capability }),
      400, 'invalid_body');
  });

  await check(`${label}: an agent's data tools use the draft scope of a draft run, only its declared collections, only while approved`, async () => {
    const agents = (description) => ({ agents: [{ id: 'keeper', name: 'Keeper', description, systemPrompt: 'Keep todos.', dataCollections: ['todos'] }] });
    const patched = await call(writeBase, 'PATCH', `/api/workspaces/${ws}/apps/${appA}/agents`, { bearer: alice, body: agents('v1') });
    assert.equal(patched.status, 200, patched.text);
    const approved = await call(writeBase, 'POST', `/api/workspaces/${ws}/apps/${appA}/agents/approval`, {
      bearer: alice, body: { approvalHash: patched.json.hash },
    });
    assert.equal(approved.status, 200, approved.text);
    const made = await call(writeBase, 'POST', `/api/workspaces/${ws}/apps/${appA}/agent-runs`, {
      bearer: alice, body: { agentId: 'keeper', prompt: 'add one', draft: true },
    });
    assert.equal(made.status, 201, made.text);
    const draftA = await viewer(viewBase, alice, ws, appA, 'draft');
    const base = { workspaceId: ws, appId: appA, runId: made.json.id, agentId: 'keeper' };
    const runCap = agentCapability(ws, appA, made.json.id);
    const internal = (body, capability = runCap) => call(writeBase, 'POST', '/api/internal/app-data',
      { bearer: internalToken, body: { ...base, ...body }, capability });

    const wrote = await internal({ action: 'write', request: { collection: 'todos', op: 'insert', data: { by: 'agent' } } });
    assert.equal(wrote.status, 201, wrote.text);
    const id = wrote.json.document.id;
    assert.deepEqual(await draftA.events(1), [{ type: 'data.change', op: 'insert', collection: 'todos', docId: id, scope: 'draft', version: 1 }]);
    draftA.close();
    const seen = await call(viewBase, 'GET', `${data(ws, appA)}/todos/${id}?scope=draft`, { bearer: bob });
    assert.deepEqual(seen.json.document.data, { by: 'agent' });
    assertError(await call(viewBase, 'GET', `${data(ws, appA)}/todos/${id}`, { bearer: bob }), 404, 'data_not_found');
    const up = await internal({ action: 'write', request: { collection: 'todos', op: 'update', docId: id, data: { done: true } } });
    assert.deepEqual(up.json.document.data, { by: 'agent', done: true });
    const read = await internal({ action: 'read', request: { collection: 'todos', docId: id } });
    assert.equal(read.json.document.version, 2);
    const listed = await internal({ action: 'read', request: { collection: 'todos', limit: 10 } });
    assert.deepEqual(listed.json.documents.map((d) => d.id), [id]);

    assertError(await internal({ action: 'read', request: { collection: 'secrets' } }), 403, 'collection_not_declared');
    assertError(await internal({ agentId: 'other', action: 'read', request: { collection: 'todos' } }), 403, 'forbidden');
    // The run's capability is for its own app only; one minted for app B reaches the lookup.
    assertError(await internal({ appId: appB, action: 'read', request: { collection: 'todos' } }), 403, 'invalid_run_capability');
    assertError(await internal({ appId: appB, action: 'read', request: { collection: 'todos' } }, agentCapability(ws, appB, made.json.id)),
      404, 'not_found');
    assertError(await internal({ action: 'read', request: { collection: 'todos' } }, null), 403, 'invalid_run_capability');
    assertError(await internal({ action: 'write', request: { collection: 'todos', op: 'insert', data: 'x' } }), 400, 'invalid_data');

    // Staleness: an edit after the approval blocks the data tools until the next approval.
    const edited = await call(writeBase, 'PATCH', `/api/workspaces/${ws}/apps/${appA}/agents`, { bearer: alice, body: agents('v2') });
    assert.equal(edited.status, 200, edited.text);
    assertError(await internal({ action: 'read', request: { collection: 'todos' } }), 409, 'approval_stale');
    await call(writeBase, 'POST', `/api/workspaces/${ws}/apps/${appA}/agents/approval`, { bearer: alice, body: { approvalHash: edited.json.hash } });
    assert.equal((await internal({ action: 'read', request: { collection: 'todos' } })).status, 200);

    // Once the run has finished its capability writes and reads nothing more.
    const complete = () => call(writeBase, 'POST', '/api/internal/agent-run-complete', { bearer: internalToken, capability: runCap,
      body: { workspaceId: ws, appId: appA, runId: made.json.id, status: 'completed', result: 'added one' } });
    const done = await complete();
    assert.equal(done.status, 200, done.text);
    assert.equal(done.json.duplicate, false);
    assertError(await internal({ action: 'read', request: { collection: 'todos' } }), 409, 'run_finished');
    assertError(await internal({ action: 'write', request: { collection: 'todos', op: 'insert', data: { late: true } } }), 409, 'run_finished');
    const listedAfter = await call(viewBase, 'GET', `${data(ws, appA)}/todos?scope=draft`, { bearer: alice });
    assert.ok(!listedAfter.json.documents.some((d) => d.data.late), 'the finished run wrote nothing');
    const again = await complete();
    assert.equal(again.status, 200, again.text);
    assert.equal(again.json.duplicate, true);
  });
}

async function main() {
  const common = {
    PLATFORM_WEB_PORT: '0',
    PLATFORM_WORKER_URL: 'http://127.0.0.1:1',
    PLATFORM_AUTH_MODE: 'external',
    PLATFORM_JWT_ISSUER: issuer,
    PLATFORM_JWT_AUDIENCE: audience,
    PLATFORM_JWT_HS256_SECRET: secret,
    INTERNAL_API_TOKEN: internalToken,
  };
  const single = await startWeb({ ...common, PLATFORM_DATA_DIR: path.join(tmp, 'single') });
  await suite('in-process', single, single, secretsKeyOf(path.join(tmp, 'single')));

  const pg = process.env.PLATFORM_TEST_PG_URL;
  const redis = process.env.PLATFORM_TEST_REDIS_URL;
  if (pg && redis) {
    const env = { ...common, PLATFORM_DATABASE_URL: pg, PLATFORM_REDIS_URL: redis };
    const one = await startWeb({ ...env, PLATFORM_DATA_DIR: path.join(tmp, 'r1') });
    const two = await startWeb({ ...env, PLATFORM_DATA_DIR: path.join(tmp, 'r2') });
    await suite('replicas (PostgreSQL + Redis)', one, two, secretsKeyOf(path.join(tmp, 'r1')));
  } else if (process.env.PLATFORM_TEST_REQUIRE_SERVICES === '1') {
    throw new Error('PLATFORM_TEST_PG_URL and PLATFORM_TEST_REDIS_URL must be set');
  } else {
    console.log('skip replicas (PostgreSQL + Redis): PLATFORM_TEST_PG_URL / PLATFORM_TEST_REDIS_URL not set');
  }
}

run(main);
