// Apps on platform-web: runtime settings persisted on the app (normalized, downgrades applied
// and reported, changed by PATCH and by a chat POST), the runtime registry for a model picker,
// the workspace's apps newest first with each one's latest builder run (the repair badge's
// source), an app's builder runs, paging, roles in `external` mode. No worker turn runs: the
// chat POST that changes settings is answered by a worker stand-in that ends the turn at once.
//
// Usage: node e2e-apps.mjs --build DIR
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { harness, identityProvider, runCapability, secretsKeyOf } from './harness.mjs';

const args = process.argv.slice(2);
const buildDir = path.resolve(args[args.indexOf('--build') + 1] ?? 'build');
const { tmp, check, start, run } = harness('platform-apps-');

async function call(base, method, p, { body, bearer } = {}) {
  const headers = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  const res = await fetch(base + p, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let json;
  try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: res.status, json, text };
}

// A worker that answers every builder turn with one line of text and a result, and records
// the settings it was asked to use.
function workerStandIn() {
  const turns = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      if (req.method === 'POST' && /\/messages$/.test(req.url)) {
        turns.push(JSON.parse(body));
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const event = (e) => ({ type: 'stream_event', event: e });
        const lines = [
          { type: 'system', subtype: 'init', session_id: 'ses-1' },
          event({ type: 'message_start', message: { id: 'm1', role: 'assistant', content: [] } }),
          event({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
          event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Noted.' } }),
          event({ type: 'content_block_stop', index: 0 }),
          { type: 'assistant', message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: 'Noted.' }] } },
          { type: 'result', subtype: 'success', is_error: false, result: 'Noted.', session_id: 'ses-1' },
          { type: 'platform_turn_end', workspaceChanged: false, sessionState: null },
        ];
        res.end(lines.map((l) => `data: ${JSON.stringify(l)}\n\n`).join('') + 'data: [DONE]\n\n');
      } else if (/\/session-state/.test(req.url)) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"sessionState":null}');
      } else {
        // No workspace snapshot, no opencode: what a worker without them answers.
        res.writeHead(/source-snapshot/.test(req.url) ? 404 : 503, { 'content-type': 'application/json' });
        res.end('{"error":{"code":"runtime_not_available","message":"not here"}}');
      }
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, turns, url: `http://127.0.0.1:${server.address().port}` })));
}

await run(async () => {
  const worker = await workerStandIn();
  const web = (await start('web', path.join(buildDir, 'servers/web/platform-web'), [], {
    PLATFORM_WEB_PORT: '0', PLATFORM_DATA_DIR: `${tmp}/web`, PLATFORM_WORKER_URL: worker.url, PLATFORM_CODEX_TRACE: '1',
  }, /listening on (http:\S+)/)).match[1];
  const ws = '/api/workspaces/default';

  await check('the registry for a model picker: every runtime, defaults and constraints, nothing secret', async () => {
    const r = await call(web, 'GET', '/api/runtimes');
    assert.equal(r.status, 200, r.text);
    const ids = r.json.runtimes.map((x) => x.id);
    assert.deepEqual(ids, ['runtime-a', 'runtime-b', 'runtime-c']);
    const a = r.json.runtimes[0];
    assert.ok(a.defaultModel && a.models.length > 0);
    assert.ok(a.params.some((p) => p.name === 'effort'));
    // runtime-c's models come from the worker's catalog; this worker has no usable opencode.
    assert.deepEqual(r.json.runtimes[2].models, []);
  });

  let app;
  await check('a new app persists normalized runtime settings: defaults filled, downgrades reported', async () => {
    const plain = await call(web, 'POST', `${ws}/apps`, { body: { name: 'Plain' } });
    assert.equal(plain.status, 201, plain.text);
    assert.equal(plain.json.runtimeId, 'runtime-a');
    assert.ok(plain.json.runtimeModel);
    assert.equal(plain.json.runtimeParams.effort, 'xhigh');
    assert.equal(plain.json.runtimeParams.thinking, 'adaptive');
    const registry = (await call(web, 'GET', '/api/runtimes')).json.runtimes[0];
    // A model that has no xhigh effort: downgraded to high, and said so.
    const small = registry.models.find((m) => !(m.params.effort?.values ?? []).includes('xhigh'));
    assert.ok(small, 'the registry has a model without xhigh');
    const made = await call(web, 'POST', `${ws}/apps`, {
      body: { name: 'Tuned', runtimeId: 'runtime-a', runtimeModel: small.id, runtimeParams: { effort: 'xhigh' } },
    });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.json.runtimeModel, small.id);
    assert.notEqual(made.json.runtimeParams.effort, 'xhigh');
    assert.ok(made.json.downgrades.some((d) => d.param === 'effort' && d.from === 'xhigh'), made.text);
    app = made.json;
    const got = await call(web, 'GET', `${ws}/apps/${app.id}`);
    assert.deepEqual(got.json.runtimeParams, made.json.runtimeParams);
  });

  await check('PATCH changes name and settings; switching runtime drops the old runtime\'s model and params', async () => {
    const renamed = await call(web, 'PATCH', `${ws}/apps/${app.id}`, { body: { name: 'Renamed' } });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(renamed.json.name, 'Renamed');
    assert.equal(renamed.json.runtimeModel, app.runtimeModel, 'settings kept when not named');
    const b = await call(web, 'PATCH', `${ws}/apps/${app.id}`, { body: { runtimeId: 'runtime-b' } });
    assert.equal(b.status, 200, b.text);
    assert.equal(b.json.runtimeId, 'runtime-b');
    assert.ok(!('effort' in b.json.runtimeParams) && 'reasoningEffort' in b.json.runtimeParams, b.text);
    for (const [body, code] of [[{ runtimeId: 'runtime-z' }, 'unknown_runtime'], [{ runtimeModel: 'no-such-model' }, 'unknown_model'],
      [{ runtimeParams: { sandboxMode: 'everything' } }, 'invalid_param_value'], [{ runtimeParams: { nope: 'x' } }, 'unknown_param'],
      [{ runtimeParams: { sandboxMode: 1 } }, 'invalid_body'], [{ runtimeParams: 'x' }, 'invalid_body'], [{ name: '' }, 'invalid_body'],
      [{ runtimeId: 'runtime-c', runtimeModel: 'text/m' }, 'unknown_model']]) {
      const r = await call(web, 'PATCH', `${ws}/apps/${app.id}`, { body });
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.json.error.code, code, JSON.stringify(body));
    }
    const after = await call(web, 'GET', `${ws}/apps/${app.id}`);
    assert.equal(after.json.runtimeId, 'runtime-b', 'a refused change changes nothing');
    assert.equal((await call(web, 'PATCH', `${ws}/apps/app_nope`, { body: { name: 'x' } })).status, 404);
  });

  await check("a chat POST's settings become the app's, and the worker gets them", async () => {
    const runId = (await call(web, 'POST', `${ws}/apps/${app.id}/runs`)).json.id;
    const chat = await call(web, 'POST', `${ws}/apps/${app.id}/runs/${runId}/chat`, {
      body: { messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hello' }] }], runtimeId: 'runtime-a' },
    });
    assert.equal(chat.status, 200, chat.text);
    assert.ok(chat.text.includes('Noted.'), chat.text);
    const turn = worker.turns.at(-1);
    assert.equal(turn.settings.settings.runtimeId, 'runtime-a');
    assert.equal(turn.runCapability, runCapability(secretsKeyOf(`${tmp}/web`), 'builder', 'default', app.id, runId),
      'the turn carries the capability the web minted for this run');
    const now = (await call(web, 'GET', `${ws}/apps/${app.id}`)).json;
    assert.equal(now.runtimeId, 'runtime-a');
    assert.equal(now.runtimeParams.effort, turn.settings.settings.runtimeParams.effort);
    // PLATFORM_CODEX_TRACE=1: ids, statuses and sizes on stderr, never the prompt or the answer.
    const log = path.join(tmp, 'web.log');
    const until = Date.now() + 10000;
    while (!fs.readFileSync(log, 'utf8').includes(`web: turn end app=${app.id} run=${runId} status=completed`)) {
      assert.ok(Date.now() < until, `no turn end trace:\n${fs.readFileSync(log, 'utf8')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const trace = fs.readFileSync(log, 'utf8');
    assert.ok(trace.includes(`web: turn start app=${app.id} run=${runId} runtime=runtime-a messages=1`), trace);
    assert.ok(!trace.includes('hello') && !trace.includes('Noted.'), trace);
  });

  await check('apps list newest first with their latest builder run; runs of an app; pages', async () => {
    const fresh = (await call(web, 'POST', `${ws}/apps`, { body: { name: 'Newest' } })).json;
    const list = await call(web, 'GET', `${ws}/apps`);
    assert.equal(list.status, 200, list.text);
    assert.equal(list.json.apps[0].id, fresh.id);
    assert.equal(list.json.apps[0].latestRun, null);
    const mine = list.json.apps.find((a) => a.id === app.id);
    assert.equal(mine.latestRun.status, 'completed');
    assert.ok(!('messages' in mine.latestRun), 'projected: no messages');
    assert.equal(list.json.nextCursor, null);
    const names = [];
    let cursor = null;
    do {
      const page = await call(web, 'GET', `${ws}/apps?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      assert.equal(page.status, 200, page.text);
      names.push(...page.json.apps.map((a) => a.name));
      cursor = page.json.nextCursor;
    } while (cursor);
    assert.deepEqual(names, list.json.apps.map((a) => a.name));
    const second = (await call(web, 'POST', `${ws}/apps/${app.id}/runs`)).json;
    const runs = await call(web, 'GET', `${ws}/apps/${app.id}/runs`);
    assert.equal(runs.status, 200, runs.text);
    assert.equal(runs.json.runs.length, 2);
    assert.equal(runs.json.runs[0].id, second.id);
    assert.equal(runs.json.runs[0].status, 'pending');
    assert.equal(runs.json.runs[1].status, 'completed');
    assert.ok(runs.json.runs.every((r) => !('messages' in r)));
    assert.equal((await call(web, 'GET', `${ws}/apps`)).json.apps.find((a) => a.id === app.id).latestRun.id, second.id);
    assert.equal((await call(web, 'GET', `${ws}/apps/app_nope/runs`)).status, 404);
    assert.equal((await call(web, 'GET', `${ws}/apps?limit=500`)).json.error.code, 'invalid_limit');
  });

  await check('external mode: members list their workspace\'s apps, viewers cannot change one, others see nothing', async () => {
    const idp = identityProvider();
    const ext = (await start('web-ext', path.join(buildDir, 'servers/web/platform-web'), [], {
      PLATFORM_WEB_PORT: '0', PLATFORM_DATA_DIR: `${tmp}/web-ext`, PLATFORM_WORKER_URL: worker.url, ...idp.env,
    }, /listening on (http:\S+)/)).match[1];
    const owner = idp.token('owner'), viewer = idp.token('viewer'), stranger = idp.token('stranger');
    await call(ext, 'GET', '/api/me', { bearer: viewer });
    const team = (await call(ext, 'POST', '/api/workspaces', { bearer: owner, body: { name: 'Team' } })).json.id;
    assert.equal((await call(ext, 'POST', `/api/workspaces/${team}/members`, { bearer: owner, body: { userId: 'viewer', role: 'viewer' } })).status, 200);
    const made = (await call(ext, 'POST', `/api/workspaces/${team}/apps`, { bearer: owner, body: { name: 'Shared' } })).json;
    const seen = await call(ext, 'GET', `/api/workspaces/${team}/apps`, { bearer: viewer });
    assert.deepEqual(seen.json.apps.map((a) => a.id), [made.id]);
    const denied = await call(ext, 'PATCH', `/api/workspaces/${team}/apps/${made.id}`, { bearer: viewer, body: { name: 'Mine' } });
    assert.equal(denied.status, 403, denied.text);
    assert.equal((await call(ext, 'GET', `/api/workspaces/${team}/apps`, { bearer: stranger })).status, 404);
    assert.equal((await call(ext, 'GET', '/api/runtimes')).status, 401);
  });
  worker.server.close();
});
