// Authentication and roles end to end on platform-web: `external` mode with identity tokens
// signed here (HS256), workspaces, members and the role rules of the browser routes; then
// `none` mode's provider setup page; then production mode refusing to start without an
// internal token, platform-web's and platform-worker's. No worker is needed: nothing here
// reaches a runtime (a chat POST that passed every check would, so the allowed one is not sent).
//
// Usage: node e2e-auth.mjs --build DIR
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { harness } from './harness.mjs';

const args = process.argv.slice(2);
const buildDir = path.resolve(args[args.indexOf('--build') + 1] ?? 'build');
const web = path.join(buildDir, 'servers/web/platform-web');
const workerBin = path.join(buildDir, 'servers/worker/platform-worker');
const { tmp, check, start, run } = harness('platform-auth-');
let webs = 0;
const startWeb = async (env) => (await start(`web-${webs++}`, web, [], env, /listening on (http:\S+)/)).match[1];

// Runs platform-web (or `bin`) expecting it to refuse to start; resolves with its exit code
// and stderr.
function refuseToStart(env, bin = web) {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, [], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => { err += d; });
    child.stdout.on('data', (d) => {
      if (/listening on/.test(String(d))) {
        child.kill();
        reject(new Error(`${path.basename(bin)} started`));
      }
    });
    child.on('exit', (code) => resolve({ code, err }));
  });
}

const b64url = (buf) => Buffer.from(buf).toString('base64url');
const secret = crypto.randomBytes(32).toString('hex');
const issuer = 'https://idp.example.test';
const audience = 'platform-e2e';
function token(claims, { key = secret, header = { alg: 'HS256', typ: 'JWT' } } = {}) {
  const now = Math.floor(Date.now() / 1000);
  const body = { iss: issuer, aud: audience, iat: now, exp: now + 600, ...claims };
  const signed = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(body))}`;
  return `${signed}.${b64url(crypto.createHmac('sha256', key).update(signed).digest())}`;
}
const user = (sub) => token({ sub, email: `${sub}@example.test`, name: sub });

async function call(base, method, p, { bearer, cookie, body } = {}) {
  const headers = {};
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  if (cookie) headers.cookie = cookie;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(base + p, { method, headers, body: typeof body === 'string' ? body : body && JSON.stringify(body) });
  const text = await res.text();
  let json;
  try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: res.status, json, text, type: res.headers.get('content-type') ?? '', cookie: res.headers.get('set-cookie') };
}

function assertError(r, status, code) {
  assert.equal(r.status, status, r.text);
  assert.equal(typeof r.json?.error?.message, 'string', r.text);
  if (code) assert.equal(r.json.error.code, code, r.text);
}

async function main() {
  const base = await startWeb({
    PLATFORM_WEB_PORT: '0',
    PLATFORM_DATA_DIR: path.join(tmp, 'external'),
    PLATFORM_WORKER_URL: 'http://127.0.0.1:1',
    PLATFORM_AUTH_MODE: 'external',
    PLATFORM_JWT_ISSUER: issuer,
    PLATFORM_JWT_AUDIENCE: audience,
    PLATFORM_JWT_HS256_SECRET: secret,
  });
  const alice = user('alice');
  const bob = user('bob');
  const carol = user('carol');
  const dave = user('dave');

  await check('no token, a bad signature, expired, wrong audience or issuer, alg none: 401', async () => {
    assertError(await call(base, 'GET', '/api/me'), 401, 'unauthenticated');
    const now = Math.floor(Date.now() / 1000);
    for (const bad of [
      token({ sub: 'alice' }, { key: 'another-secret' }),
      token({ sub: 'alice', exp: now - 120 }),
      token({ sub: 'alice', aud: 'someone-else' }),
      token({ sub: 'alice', iss: 'https://evil.example.test' }),
      `${b64url(JSON.stringify({ alg: 'none' }))}.${b64url(JSON.stringify({ sub: 'alice', iss: issuer, aud: audience, exp: now + 60 }))}.`,
      'not-a-token',
    ]) {
      assertError(await call(base, 'GET', '/api/me', { bearer: bad }), 401, 'unauthenticated');
    }
  });

  await check('a valid token by header or session cookie identifies the user', async () => {
    const me = await call(base, 'GET', '/api/me', { bearer: alice });
    assert.equal(me.status, 200, me.text);
    assert.equal(me.json.id, 'alice');
    assert.equal(me.json.email, 'alice@example.test');
    assert.equal(me.json.defaultWorkspaceId, undefined);  // only local mode has one
    const viaCookie = await call(base, 'GET', '/api/me', { cookie: `theme=dark; platform_session=${bob}` });
    assert.equal(viaCookie.json.id, 'bob');
  });

  await check('a browser signs in: the token becomes an HttpOnly, SameSite=Strict session cookie; sign-out clears it', async () => {
    const opened = await call(base, 'POST', '/api/session', { bearer: alice });
    assert.equal(opened.status, 200, opened.text);
    assert.equal(opened.json.id, 'alice');
    const cookie = opened.cookie;
    assert.ok(cookie.startsWith(`platform_session=${alice};`), cookie);
    assert.match(cookie, /; HttpOnly/);
    assert.match(cookie, /; SameSite=Strict/);
    assert.match(cookie, /; Path=\//);
    const maxAge = Number(/Max-Age=(\d+)/.exec(cookie)[1]);
    assert.ok(maxAge > 500 && maxAge <= 600, cookie);  // the token's own lifetime
    assert.ok(!/; Secure/.test(cookie), 'plain http on 127.0.0.1');
    const me = await call(base, 'GET', '/api/me', { cookie: `platform_session=${alice}` });
    assert.equal(me.json.id, 'alice');
    assert.equal((await call(base, 'POST', '/api/session', {})).status, 400);
    assert.equal((await call(base, 'POST', '/api/session', { bearer: user('x').slice(0, -2) + 'xx' })).status, 401);
    const closed = await call(base, 'DELETE', '/api/session', { cookie: `platform_session=${alice}` });
    assert.equal(closed.status, 204);
    assert.match(closed.cookie, /^platform_session=; .*Max-Age=0/);
  });

  let ws;
  let appId;
  let runId;
  await check('a user creates a workspace and owns it; others do not see it', async () => {
    const made = await call(base, 'POST', '/api/workspaces', { bearer: alice, body: { name: 'Team' } });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.json.role, 'owner');
    ws = made.json.id;
    const mine = await call(base, 'GET', '/api/workspaces', { bearer: alice });
    assert.deepEqual(mine.json.workspaces, [{ id: ws, name: 'Team', role: 'owner' }]);
    const theirs = await call(base, 'GET', '/api/workspaces', { bearer: carol });
    assert.deepEqual(theirs.json.workspaces, []);
    assertError(await call(base, 'GET', `/api/workspaces/${ws}/members`, { bearer: carol }), 404, 'not_found');
    assertError(await call(base, 'GET', `/api/workspaces/${ws}/events`, { bearer: carol }), 404, 'not_found');
  });

  await check('owners add viewers and collaborators; bad member requests are clear errors', async () => {
    let r = await call(base, 'POST', `/api/workspaces/${ws}/members`, { bearer: alice, body: { userId: 'bob', role: 'viewer' } });
    assert.equal(r.status, 200, r.text);
    r = await call(base, 'POST', `/api/workspaces/${ws}/members`, { bearer: alice, body: { userId: 'dave', role: 'collaborator' } });
    assert.equal(r.status, 200, r.text);
    assertError(await call(base, 'POST', `/api/workspaces/${ws}/members`, { bearer: alice, body: { userId: 'x', role: 'owner' } }), 400, 'invalid_body');
    assertError(await call(base, 'POST', `/api/workspaces/${ws}/members`, { bearer: alice, body: { userId: 'x', role: 'emperor' } }), 400, 'invalid_body');
    assertError(await call(base, 'POST', `/api/workspaces/${ws}/members`, { bearer: alice, body: { userId: 7, role: 'viewer' } }), 400, 'invalid_body');
    assertError(await call(base, 'POST', `/api/workspaces/${ws}/members`, { bearer: alice, body: '{"userId":' }), 400, 'invalid_json');
    assertError(await call(base, 'POST', `/api/workspaces/${ws}/members`, { bearer: alice, body: { userId: 'alice', role: 'viewer' } }), 409, 'conflict');
    assertError(await call(base, 'POST', `/api/workspaces/${ws}/members`, { bearer: bob, body: { userId: 'carol', role: 'admin' } }), 403, 'forbidden');
    const members = await call(base, 'GET', `/api/workspaces/${ws}/members`, { bearer: bob });
    assert.deepEqual(members.json.members.map((m) => [m.userId, m.role]).sort(),
      [['alice', 'owner'], ['bob', 'viewer'], ['dave', 'collaborator']]);
    assert.equal((await call(base, 'GET', '/api/me', { bearer: carol })).status, 200);
    assert.equal((await call(base, 'GET', `/api/workspaces/${ws}/members`, { bearer: carol })).status, 404);
  });

  await check('collaborators create apps and runs; viewers read but cannot create or chat', async () => {
    const made = await call(base, 'POST', `/api/workspaces/${ws}/apps`, { bearer: dave, body: { name: 'Dave app' } });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.json.createdBy, 'dave');
    appId = made.json.id;
    const run = await call(base, 'POST', `/api/workspaces/${ws}/apps/${appId}/runs`, { bearer: dave, body: {} });
    assert.equal(run.status, 201, run.text);
    runId = run.json.id;
    assertError(await call(base, 'POST', `/api/workspaces/${ws}/apps`, { bearer: bob, body: { name: 'Nope' } }), 403, 'forbidden');
    assertError(await call(base, 'POST', `/api/workspaces/${ws}/apps/${appId}/runs`, { bearer: bob, body: {} }), 403, 'forbidden');
    const chat = { messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hi' }] }] };
    assertError(await call(base, 'POST', `/api/workspaces/${ws}/apps/${appId}/runs/${runId}/chat`, { bearer: bob, body: chat }), 403, 'forbidden');
    const app = await call(base, 'GET', `/api/workspaces/${ws}/apps/${appId}`, { bearer: bob });
    assert.equal(app.status, 200, app.text);
    const history = await call(base, 'GET', `/api/workspaces/${ws}/apps/${appId}/runs/${runId}/chat`, { bearer: bob });
    assert.equal(history.status, 200, history.text);
    assert.deepEqual(history.json.messages, []);
    assert.equal(history.json.status, 'pending');
  });

  await check('a non-member gets 404 on every route of the workspace, with or without real ids', async () => {
    const paths = [
      ['GET', `/api/workspaces/${ws}/apps/${appId}`],
      ['GET', `/api/workspaces/${ws}/apps/${appId}/runs/${runId}/chat`],
      ['GET', `/api/workspaces/${ws}/apps/${appId}/runs/${runId}/chat/stream`],
      ['GET', `/api/workspaces/${ws}/apps/${appId}/runs/${runId}/events`],
      ['POST', `/api/workspaces/${ws}/apps`],
      ['POST', `/api/workspaces/${ws}/apps/${appId}/runs`],
      ['POST', `/api/workspaces/${ws}/apps/${appId}/runs/${runId}/chat`],
    ];
    for (const [method, p] of paths) {
      assertError(await call(base, method, p, { bearer: carol, body: method === 'POST' ? {} : undefined }), 404, 'not_found');
    }
  });

  await check('the provider setup page is local mode only', async () => {
    assertError(await call(base, 'GET', '/onboarding/provider', { bearer: alice }), 404, 'not_found');
    const local = await startWeb({
      PLATFORM_WEB_PORT: '0',
      PLATFORM_DATA_DIR: path.join(tmp, 'local'),
      PLATFORM_WORKER_URL: 'http://127.0.0.1:1',
      // No built page: the page that says how to build it (the built page is e2e-ui-serving's).
      PLATFORM_UI_DIR: path.join(tmp, 'no-ui'),
    });
    const page = await call(local, 'GET', '/onboarding/provider');
    assert.equal(page.status, 200);
    assert.match(page.type, /^text\/html/);
    assert.match(page.text, /bash scripts\/setup-ui\.sh/);
    // The worker is down here: detect-provider says so with an error body, not a hang.
    assertError(await call(local, 'GET', '/api/setup/detect-provider'), 502);
    // Entering a provider key: local mode only, and a clear 502 while the worker is down.
    assertError(await call(base, 'PUT', '/api/setup/provider-keys/ANTHROPIC_API_KEY', { bearer: alice, body: { value: 'sk-x' } }), 404, 'not_found');
    assertError(await call(local, 'PUT', '/api/setup/provider-keys/ANTHROPIC_API_KEY', { body: { value: 'sk-x' } }), 502, 'worker_unreachable');
    assertError(await call(local, 'PUT', '/api/setup/provider-keys/ANTHROPIC_API_KEY', { body: { nope: 1 } }), 400, 'invalid_body');
    assertError(await call(local, 'POST', '/api/session', { bearer: alice }), 404, 'not_found');
  });

  await check('production mode refuses to start without an internal token or with local auth', async () => {
    const common = { PLATFORM_WEB_PORT: '0', PLATFORM_DATA_DIR: path.join(tmp, 'prod'), PLATFORM_WORKER_URL: 'http://127.0.0.1:1' };
    const external = { PLATFORM_AUTH_MODE: 'external', PLATFORM_JWT_ISSUER: issuer, PLATFORM_JWT_AUDIENCE: audience, PLATFORM_JWT_HS256_SECRET: secret };
    let r = await refuseToStart({ ...common, ...external, PLATFORM_ENV: 'production' });
    assert.notEqual(r.code, 0);
    assert.match(r.err, /INTERNAL_API_TOKEN/);
    r = await refuseToStart({ ...common, ...external, PLATFORM_ENV: 'production', INTERNAL_API_TOKEN: 'short' });
    assert.match(r.err, /INTERNAL_API_TOKEN/);
    r = await refuseToStart({ ...common, PLATFORM_ENV: 'production', INTERNAL_API_TOKEN: 'x'.repeat(40) });
    assert.match(r.err, /PLATFORM_AUTH_MODE=external/);
    assert.equal(r.err.includes('x'.repeat(40)), false);  // the token is never echoed
  });

  await check('production mode: platform-worker refuses to start without INTERNAL_API_TOKEN or with one under 32 bytes', async () => {
    const env = { PLATFORM_ENV: 'production', PLATFORM_WORKER_PORT: '0', PLATFORM_DATA_DIR: path.join(tmp, 'prod-worker') };
    for (const [what, extra] of [['no token', {}], ['an empty token', { INTERNAL_API_TOKEN: '' }], ['31 bytes', { INTERNAL_API_TOKEN: 'w'.repeat(31) }]]) {
      const r = await refuseToStart({ ...env, ...extra }, workerBin);
      assert.notEqual(r.code, 0, what);
      assert.match(r.err, /^platform-worker: .*INTERNAL_API_TOKEN/m, `${what}: ${r.err}`);
      if (extra.INTERNAL_API_TOKEN) assert.equal(r.err.includes(extra.INTERNAL_API_TOKEN), false, 'the token is never echoed');
    }
    // 32 bytes is enough: the same production worker starts.
    await start('prod-worker', workerBin, [], { ...env, INTERNAL_API_TOKEN: 'w'.repeat(32) }, /listening on (http:\S+)/);
  });
}

await run(main);
