// The live preview outlives the worker (issue 12, "Preview and published apps"; docs/http-api.md,
// "Live preview"). A builder turn through platform-web with the real Claude Code CLI and the
// scripted model server writes src/App.tsx and calls done_building; then the worker is killed
// (SIGKILL) and its data dir, workspaces included, removed. The app's preview is still served
// from its own origin ({appId}.preview.localhost on the web's port), file for file the bytes the
// build produced; a fresh worker has no build and changes nothing; a second web replica on the
// same store (the shared SQLite file, or with --replicas PostgreSQL + Redis), started only after
// the worker died, serves the same build and accepts the first replica's link. A tampered, an
// expired or another app's token gets 403, other paths 404, and no answer sets a cookie.
//
// Usage: node e2e-preview-store.mjs --build DIR --project DIR [--replicas]
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { harness, previewGet, SseReader, toolTurn, use, runCapability } from './harness.mjs';
import { apiClient, startPlatform } from './browser/platform.mjs';

const args = process.argv.slice(2);
const opt = (name) => path.resolve(args[args.indexOf(name) + 1]);
const buildDir = opt('--build');
const projectDir = opt('--project');
const replicas = args.includes('--replicas');
const { tmp, check, start, run } = harness('platform-preview-store-e2e-');

const marker = 'Preview outlives its worker 7f3a';
const appTsx = `export default function App() {
  return <main className="p-8"><h1 className="text-2xl font-bold">${marker}</h1></main>;
}
`;
const turns = [
  toolTurn(use('t_write', 'Bash', { command: `cat > src/App.tsx <<'EOF'\n${appTsx}EOF`, description: 'Write the app' })),
  toolTurn(use('t_build', 'mcp__platform__done_building', { summary: 'A heading' })),
  { blocks: [{ type: 'text', text: 'Built the app.' }], stop_reason: 'end_turn' },
];

// The replicas sign preview links with a key derived from this one (secrets_key.cpp).
const secretsKey = crypto.randomBytes(32);
const previewKey = crypto.createHmac('sha256', secretsKey).update('platform preview tokens v1').digest();
// A token as the web signs it (lib/platform/src/preview_access.cpp), for any expiry.
const signToken = (appId, digestHex, expiresAt) => `${expiresAt}.${digestHex}.${crypto.createHmac('sha256', previewKey)
  .update(`platform-preview-v1\n${appId}\n${digestHex}\n${expiresAt}`).digest('hex')}`;

// Every file under `dir`, by its path relative to it.
function filesOf(dir, prefix = '') {
  const out = new Map();
  for (const e of fs.readdirSync(path.join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) for (const [p, b] of filesOf(dir, rel)) out.set(p, b);
    else out.set(rel, fs.readFileSync(path.join(dir, rel)));
  }
  return out;
}

function assertPreviewAnswer(r, what) {
  assert.equal(r.headers['set-cookie'], undefined, `${what}: no cookie on the preview origin`);
}

// Each file of the build, fetched relative to the preview's entry URL, is 200 with the bytes
// the build produced and the preview's headers.
async function assertServesBuild(entryUrl, built, port) {
  for (const [file, bytes] of built) {
    const r = await previewGet(new URL(file, entryUrl).href, port);
    assert.equal(r.status, 200, `${file}: ${r.body}`);
    assertPreviewAnswer(r, file);
    assert.ok(r.body.equals(bytes), `${file}: the bytes the build produced`);
    assert.match(r.headers['content-security-policy'], /connect-src 'none'/);
    assert.equal(r.headers['x-content-type-options'], 'nosniff');
  }
}

async function main() {
  const webEnv = { PLATFORM_SECRETS_KEY: secretsKey.toString('hex') };
  if (replicas) Object.assign(webEnv, { PLATFORM_DATABASE_URL: process.env.PLATFORM_TEST_PG_URL, PLATFORM_REDIS_URL: process.env.PLATFORM_TEST_REDIS_URL });
  // What startPlatform started, by name, to stop the worker and start its like again.
  const started = {};
  const startNamed = async (name, cmd, argv, env, ready) => {
    const r = await start(name, cmd, argv, env, ready);
    started[name] = { child: r.child, cmd, env, ready };
    return r;
  };
  const p = await startPlatform({ start: startNamed, tmp }, { buildDir, projectDir, turns, webEnv });
  const webPort = new URL(p.web).port;
  const call = apiClient(p.web);
  const app = await call('POST', '/api/workspaces/default/apps', { name: 'Preview app' });
  const other = await call('POST', '/api/workspaces/default/apps', { name: 'Another app' });
  const appPath = `/api/workspaces/default/apps/${app.id}`;
  const workerData = path.join(p.dataDir, 'worker');

  let built;  // dist/ as the worker's build left it: path → bytes
  let doneDigest;
  let turnCapability;  // the builder turn's run capability, as the web minted it
  await check('a builder turn through platform-web writes src/App.tsx and done_building builds it', async () => {
    const runRec = await call('POST', `${appPath}/runs`, {});
    turnCapability = runCapability(secretsKey, 'builder', 'default', app.id, runRec.id);
    const res = await fetch(`${p.web}${appPath}/runs/${runRec.id}/chat`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Build a heading.' }] }] }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    await new SseReader(res, { payload: true }).toEnd();
    const history = await call('GET', `${appPath}/runs/${runRec.id}/chat`);
    assert.equal(history.status, 'completed');
    const done = history.messages.flatMap((m) => m.parts).find((x) => x.toolName === 'mcp__platform__done_building');
    assert.ok(done, 'the done_building part');
    // The tool's result as Claude Code reports it: text content blocks holding the JSON.
    const payload = JSON.parse(done.output.filter((c) => c.type === 'text').map((c) => c.text).join(''));
    assert.equal(payload.ok, true, JSON.stringify(payload).slice(0, 2000));
    doneDigest = payload.preview.digest;
    built = filesOf(path.join(workerData, 'workspaces', app.id, 'dist'));
    const js = [...built.keys()].filter((f) => /^assets\/.+\.js$/.test(f));
    assert.equal(js.length, 1, [...built.keys()].join());
    assert.ok(built.get(js[0]).includes(marker), 'the bundle holds the app the turn wrote');
    assert.ok(built.get('index.html').includes(`./${js[0]}`), 'index.html loads the bundle by a relative URL');
    // The worker gives the build to the holder of the turn's capability only.
    const artifact = (headers) => fetch(`${p.worker}/sessions/${app.id}/preview-artifact`, { headers });
    const mine = await artifact({ 'x-run-capability': turnCapability });
    assert.equal(mine.status, 200, await mine.clone().text());
    await mine.arrayBuffer();
    for (const headers of [{}, { 'x-run-capability': runCapability(secretsKey, 'builder', 'default', other.id, runRec.id) }]) {
      const refused = await artifact(headers);
      assert.equal(refused.status, 403, JSON.stringify(headers));
      assert.equal((await refused.json()).error.code, 'invalid_run_capability');
    }
  });

  const worker = started['p-worker'];
  await check('the worker killed (SIGKILL) and its data and workspaces removed: GET the app still gives the preview, served byte for byte', async () => {
    const exited = new Promise((resolve) => worker.child.once('exit', resolve));
    worker.child.kill('SIGKILL');
    await exited;
    fs.rmSync(workerData, { recursive: true, force: true });
    const shown = await call('GET', appPath);
    assert.ok(shown.preview, 'the app has a preview');
    assert.equal(shown.preview.digest, doneDigest, 'the build done_building made');
    assert.equal(shown.preview.origin, `http://${app.id}.preview.localhost:${webPort}`);
    assert.ok(shown.preview.url.startsWith(`${shown.preview.origin}/p/`), shown.preview.url);
    const index = await previewGet(shown.preview.url);
    assert.equal(index.status, 200, String(index.body));
    assert.match(index.headers['content-type'], /^text\/html/);
    assert.ok(index.body.equals(built.get('index.html')), 'the entry is the build\'s index.html');
    await assertServesBuild(shown.preview.url, built);
  });

  let entryA;
  await check('a fresh worker on the same address has no build; the preview is unchanged', async () => {
    const fresh = await start('p-worker-2', worker.cmd, [], { ...worker.env, PLATFORM_WORKER_PORT: new URL(p.worker).port }, worker.ready);
    assert.equal(fresh.match[1], p.worker);
    // The new worker ran no turn of the app: the old turn's capability is not one it knows.
    const artifact = await fetch(`${p.worker}/sessions/${app.id}/preview-artifact`, { headers: { 'x-run-capability': turnCapability } });
    assert.equal(artifact.status, 403, 'the new worker holds no turn (and no build) of the app');
    assert.equal((await artifact.json()).error.code, 'invalid_run_capability');
    const shown = await call('GET', appPath);
    assert.equal(shown.preview.digest, doneDigest);
    entryA = shown.preview.url;
    await assertServesBuild(entryA, built);
  });

  await check(`a second web replica on the same store (${replicas ? 'PostgreSQL' : 'the SQLite file'}), started after the worker died, serves the same build`, async () => {
    const web = started['p-web'];
    const b = (await start('p-web-b', web.cmd, [], { ...web.env, PLATFORM_WEB_PORT: '0',
      ...(replicas ? { PLATFORM_DATA_DIR: path.join(tmp, 'web-b') } : {}) }, web.ready)).match[1];
    const portB = new URL(b).port;
    assert.notEqual(portB, webPort);
    const shown = await apiClient(b)('GET', appPath);
    assert.equal(shown.preview.digest, doneDigest);
    assert.equal(shown.preview.origin, `http://${app.id}.preview.localhost:${portB}`);
    await assertServesBuild(shown.preview.url, built);
    // The first replica's link works on the second (the replicas share the key).
    await assertServesBuild(entryA, built, portB);
  });

  await check('a tampered, expired or other app\'s token gets 403, other paths 404; no cookie in any answer', async () => {
    const token = new URL(entryA).pathname.split('/')[2];
    const [expires, digestHex, mac] = token.split('.');
    assert.equal(`sha256:${digestHex}`, doneDigest);
    const at = (tok, host = new URL(entryA).host, file = 'index.html') => previewGet(`http://${host}/p/${tok}/${file}`, webPort);
    const refused = async (r, status, code, what) => {
      assert.equal(r.status, status, `${what}: ${r.body}`);
      assertPreviewAnswer(r, what);
      if (code) assert.equal(JSON.parse(r.body).error.code, code, what);
      assert.ok(!r.body.includes(marker), `${what}: none of the build`);
    };
    // A token signed here the way the web signs it is accepted, so the refusals below are for
    // the expiry, the MAC and the app, not for a wrong signature scheme.
    assert.equal((await at(signToken(app.id, digestHex, Date.now() + 60_000))).status, 200);
    const flipped = mac.slice(0, -1) + (mac.at(-1) === '0' ? '1' : '0');
    await refused(await at(`${expires}.${digestHex}.${flipped}`), 403, 'invalid_preview_token', 'a tampered MAC');
    await refused(await at(`${Number(expires) + 1}.${digestHex}.${mac}`), 403, 'invalid_preview_token', 'a tampered expiry');
    await refused(await at(signToken(app.id, digestHex, Date.now() - 1000)), 403, 'preview_token_expired', 'an expired token');
    await refused(await at(token, `${other.id}.preview.localhost:${webPort}`), 403, 'invalid_preview_token', 'another app\'s origin');
    await refused(await at(token, undefined, 'missing.js'), 404, 'not_found', 'a file the build lacks');
    await refused(await previewGet(`http://${new URL(entryA).host}${appPath}`), 404, 'not_found', 'an API path on the preview origin');
    await refused(await previewGet(`http://${new URL(entryA).host}/`), 404, 'not_found', 'the preview origin\'s root');
  });
}

run(main);
