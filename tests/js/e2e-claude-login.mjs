// runtime-a on the operator's Claude Code login (spec "Authentication" 7: "runtime-a uses its
// CLI login, or the API key variable if set (the key takes priority)"), with the real CLI,
// platform-worker, platform-web and the scripted model server standing in for the provider
// (its model API and its OAuth token endpoint). The worker has no ANTHROPIC_API_KEY; the
// operator's login file is expired.
//  - detection says runtime-a is logged in, not on the demo provider;
//  - the worker refreshes the login once (the CLI's request: grant, refresh token, client id),
//    writes the rotated tokens back into the operator's file (0600, every other field kept),
//    and the model requests carry the new access token as a bearer (no API key);
//  - the agent's tools see no token: the Bash tool prints its environment, its config dir and
//    the CLI's /proc environ, and none of the three tokens appears there, in the runtime's
//    environment or files, or in the logs;
//  - a fresh login is not refreshed again;
//  - an API key entered on the onboarding route then takes priority (x-api-key, no bearer),
//    and is not in the runtime's environment either.
//
// Usage: node e2e-claude-login.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { endTurn, harness, SseReader, toolTurn, use } from './harness.mjs';

const args = process.argv.slice(2);
const opt = (name) => path.resolve(args[args.indexOf(name) + 1]);
const buildDir = opt('--build');
const projectDir = opt('--project');
const { tmp, check, start, run } = harness('platform-claude-login-');

const old = { access: 'sk-ant-oat01-OLD-access-5b1d', refresh: 'sk-ant-ort01-OLD-refresh-77c2' };
const fresh = { access: 'sk-ant-oat01-NEW-access-93e4', refresh: 'sk-ant-ort01-NEW-refresh-0a6f' };
const apiKey = 'sk-ant-api03-entered-key-4c8e';
const secrets = [old.access, old.refresh, fresh.access, fresh.refresh, apiKey];
const digest = (s) => crypto.createHash('sha256').update(s).digest('hex').slice(0, 16);

// What the agent's Bash tool can see of its process and its parent's.
const probe = 'env; echo "config: $CLAUDE_CONFIG_DIR"; ls -la "$CLAUDE_CONFIG_DIR"; '
  + 'cat "$CLAUDE_CONFIG_DIR/.credentials.json" 2>&1; tr "\\0" "\\n" < /proc/$PPID/environ 2>&1; echo PROBE-END';
const scenario = {
  turns: [
    { blocks: [{ type: 'pause', name: 'hold' }, use('p1', 'Bash', { command: probe, description: 'Look around' })], stop_reason: 'tool_use' },
    endTurn('Looked around.'),
  ],
  aux: endTurn('Login'),
  oauth: { status: 200, reply: { access_token: fresh.access, refresh_token: fresh.refresh, expires_in: 28800, token_type: 'Bearer' } },
};

const loginDoc = {
  claudeAiOauth: { accessToken: old.access, refreshToken: old.refresh, expiresAt: Date.now() - 60000,
    scopes: ['user:inference'], subscriptionType: 'max', rateLimitTier: 'default_claude_max_20x' },
  mcpOAuth: { keep: { me: true } },
};

// Every process whose working directory is one of this worker's workspaces: the runtime.
function runtimeProcesses(workspaces) {
  const out = [];
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (!fs.readlinkSync(`/proc/${pid}/cwd`).startsWith(workspaces)) continue;
      out.push({ pid, env: fs.readFileSync(`/proc/${pid}/environ`, 'utf8') });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

// A turn's jail (its HOME and TMPDIR under data/sandboxes) is removed once the turn's stream has
// ended, which may be while this walks it: what vanished meanwhile is gone, not a leak.
function filesUnder(dir) {
  const out = [];
  const walk = (d) => {
    let entries;
    try { entries = fs.readdirSync(d, { withFileTypes: true }); } catch (e) { if (e.code === 'ENOENT') return; throw e; }
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.push(p);
    }
  };
  walk(dir);
  return out;
}
const readIfThere = (f) => { try { return fs.readFileSync(f, 'utf8'); } catch (e) { if (e.code === 'ENOENT') return ''; throw e; } };

run(async () => {
  fs.writeFileSync(path.join(tmp, 'scenario.json'), JSON.stringify(scenario));
  const requestLog = path.join(tmp, 'requests.jsonl');
  const model = await start('model', 'python3', [path.join(projectDir, 'tests/model_server/model_server.py'),
    '--script', path.join(tmp, 'scenario.json'), '--port', '0', '--log', requestLog, '--idle-exit', '600'], {}, /^(\d+)\n/m);
  const modelUrl = `http://127.0.0.1:${model.match[1]}`;
  const loginDir = path.join(tmp, 'operator', '.claude');
  fs.mkdirSync(loginDir, { recursive: true });
  const loginFile = path.join(loginDir, '.credentials.json');
  fs.writeFileSync(loginFile, JSON.stringify(loginDoc), { mode: 0o600 });
  const dataDir = path.join(tmp, 'data');
  const workspaces = path.join(dataDir, 'workspaces');
  const worker = (await start('worker', path.join(buildDir, 'servers/worker/platform-worker'), [], {
    PLATFORM_WORKER_PORT: '0', PLATFORM_DATA_DIR: dataDir, HOME: path.join(tmp, 'operator'),
    PLATFORM_APP_TEMPLATE_DIR: path.join(projectDir, 'templates/app-workspace'),
    ANTHROPIC_BASE_URL: modelUrl, CLAUDE_CODE_MAX_RETRIES: '0',
    PLATFORM_CLAUDE_OAUTH_TOKEN_URL: `${modelUrl}/v1/oauth/token`,
  }, /listening on (http:\S+)/)).match[1];
  const web = (await start('web', path.join(buildDir, 'servers/web/platform-web'), [], {
    PLATFORM_WEB_PORT: '0', PLATFORM_DATA_DIR: path.join(tmp, 'web'), PLATFORM_WORKER_URL: worker,
  }, /listening on (http:\S+)/)).match[1];
  const call = (method, p, body) => fetch(web + p, { method, headers: body ? { 'content-type': 'application/json' } : {},
    body: body && JSON.stringify(body) });
  const requests = () => fs.readFileSync(requestLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const modelRequests = () => requests().filter((r) => r.path.startsWith('/v1/messages'));
  const refreshes = () => requests().filter((r) => r.path === '/v1/oauth/token');
  const app = await (await call('POST', '/api/workspaces/default/apps', { name: 'Login' })).json();

  // One turn in a run of its own; `during` runs while the model holds it, the runtime alive.
  const turn = async (during) => {
    await fetch(`${modelUrl}/control/arm/hold`, { method: 'POST', body: '{}' });
    const created = await (await call('POST', `/api/workspaces/default/apps/${app.id}/runs`, {})).json();
    const res = await call('POST', `/api/workspaces/default/apps/${app.id}/runs/${created.id}/chat`,
      { messages: [{ id: `u-${created.id}`, role: 'user', parts: [{ type: 'text', text: 'Look around' }] }] });
    assert.equal(res.status, 200);
    const reader = new SseReader(res, { payload: true });
    let seen;
    for (;;) {
      seen = runtimeProcesses(workspaces);
      if (seen.length > 0 && modelRequests().length > 0 && seen.some((p) => p.env.includes('CLAUDE_CONFIG_DIR='))) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const result = await during(seen);
    await fetch(`${modelUrl}/control/release/hold`, { method: 'POST', body: '{}' });
    const chunks = (await reader.toEnd()).filter((e) => e !== '[DONE]').map((e) => JSON.parse(e));
    const output = chunks.find((c) => c.type === 'tool-output-available');
    assert.ok(output, 'the Bash probe ran');
    assert.ok(JSON.stringify(output.output).includes('PROBE-END'));
    return { output: JSON.stringify(output.output), result };
  };

  await check('detection: runtime-a is logged in with the CLI, not on a key or the demo provider', async () => {
    const d = await (await call('GET', '/api/setup/detect-provider')).json();
    assert.equal(d.runtimes['runtime-a'].loggedIn, true);
    assert.equal(d.runtimes['runtime-a'].demo, false);
    assert.equal(d.auth.ANTHROPIC_API_KEY, false);
  });

  let first;
  await check('an expired login is refreshed once by the worker and written back; the model gets the new token as a bearer', async () => {
    first = await turn(async (procs) => procs);
    const r = refreshes();
    assert.equal(r.length, 1, 'one refresh');
    assert.equal(r[0].body.grant_type, 'refresh_token');
    assert.equal(r[0].body.refresh_token, `sha256:${digest(old.refresh)}`);
    assert.equal(r[0].body.client_id, '9d1c250a-e61b-44d9-88ed-5944d1962f5e');
    assert.equal(r[0].body.scope, 'user:inference');
    const stored = JSON.parse(fs.readFileSync(loginFile, 'utf8'));
    assert.equal(stored.claudeAiOauth.accessToken, fresh.access);
    assert.equal(stored.claudeAiOauth.refreshToken, fresh.refresh);
    assert.ok(stored.claudeAiOauth.expiresAt > Date.now() + 7 * 3600 * 1000);
    assert.equal(stored.claudeAiOauth.rateLimitTier, loginDoc.claudeAiOauth.rateLimitTier);
    assert.deepEqual(stored.mcpOAuth, loginDoc.mcpOAuth);
    assert.equal(fs.statSync(loginFile).mode & 0o777, 0o600);
    const sent = modelRequests();
    assert.ok(sent.length >= 2);
    for (const m of sent) {
      assert.equal(m.secret_digests.authorization, digest(`Bearer ${fresh.access}`), 'the new access token');
      assert.equal(m.headers['x-api-key'], undefined, 'no API key');
      assert.match(m.headers['anthropic-beta'], /oauth-2025-04-20/);
    }
  });

  await check('the agent\'s tools, the runtime\'s environment and files, and the logs hold no token', async () => {
    for (const s of secrets) assert.ok(!first.output.includes(s), 'the Bash tool saw a token');
    assert.ok(first.output.includes('CLAUDE_CODE_OAUTH_TOKEN_FILE_DESCRIPTOR=3'), 'the probe read the CLI\'s environ');
    for (const p of first.result) for (const s of secrets) assert.ok(!p.env.includes(s), `pid ${p.pid}'s environment holds a token`);
    for (const f of [...filesUnder(dataDir), ...fs.readdirSync(tmp).filter((x) => x.endsWith('.log') || x.endsWith('.jsonl')).map((x) => path.join(tmp, x))]) {
      const text = readIfThere(f);
      for (const s of secrets) assert.ok(!text.includes(s), `${f} holds a token`);
    }
  });

  await check('a fresh login is used as it is, without another refresh', async () => {
    const before = modelRequests().length;
    await turn(async () => null);
    assert.equal(refreshes().length, 1);
    for (const m of modelRequests().slice(before)) assert.equal(m.secret_digests.authorization, digest(`Bearer ${fresh.access}`));
  });

  await check('an API key takes priority over the login, and stays out of the runtime\'s environment', async () => {
    const put = await call('PUT', '/api/setup/provider-keys/ANTHROPIC_API_KEY', { value: apiKey });
    assert.equal(put.status, 200);
    const before = modelRequests().length;
    const t = await turn(async (procs) => procs);
    for (const m of modelRequests().slice(before)) {
      assert.equal(m.secret_digests['x-api-key'], digest(apiKey));
      assert.equal(m.headers.authorization, undefined, 'no bearer');
    }
    for (const p of t.result) assert.ok(!p.env.includes(apiKey), 'the key is in the runtime\'s environment');
    assert.ok(!t.output.includes(apiKey), 'the Bash tool saw the key');
  });
});
