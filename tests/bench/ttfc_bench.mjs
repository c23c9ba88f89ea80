// Benchmark (issue 17): the time from a builder chat POST to its first text chunk, and the
// platform's share of it, per runtime. One platform-web and one platform-worker with all three
// runtimes (the real Claude Code, codex app-server and opencode CLIs) answering from the
// scripted model server on 127.0.0.1; for each runtime, N sequential builder turns, each on a
// new app and run (the first one a warm-up, not counted), each a short scripted text reply.
//
// Measured at the client: the chat POST sent -> the first `text-delta` chunk read. The worker's
// trace (PLATFORM_CODEX_TRACE=1, `worker: turn timing`) gives the runtime CLI's own time: from
// the worker asking for its process to the first worker message with text (runtime-b: the
// app-server's start and handshake included). The platform's share is total - CLI, per turn.
// The web's trace (`web: turn timing`) and the worker's split that share: the route before the
// claim, the claim, the turn thread before the worker request, the worker before the spawn
// (workspace, broker grant, the CLI's configuration), the HTTP hops, the text's way into the
// replay buffer and out to the client. It prints numbers; it is not a timed test.
//
// Usage: node ttfc_bench.mjs --build DIR --project DIR [--turns 5] [--runtimes runtime-a,runtime-b,runtime-c]
//        [--no-setup]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { harness } from '../js/harness.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const buildDir = path.resolve(opt('--build'));
const projectDir = path.resolve(opt('--project'));
const turns = Number(opt('--turns', '5'));
const runtimes = opt('--runtimes', 'runtime-a,runtime-b,runtime-c').split(',');
const shareLimitMs = 10;

// The runtime CLIs and the app template, as the end-to-end tests install them (tests/js/run-e2e.sh);
// each is a no-op once installed as its lock pins. tests/js/harness.mjs needs no npm package.
if (!args.includes('--no-setup')) {
  for (const script of ['scripts/setup-runtimes.sh', 'scripts/setup-template.sh']) {
    const r = spawnSync('bash', [path.join(projectDir, script)], { stdio: ['ignore', 'ignore', 'inherit'] });
    if (r.status !== 0) {
      console.log(`${script} failed (exit ${r.status})`);
      process.exit(1);
    }
  }
}

const { tmp, check, start, run } = harness('platform-ttfc-bench-');
const reply = 'Hello from the scripted model.';

// One keep-alive connection's worth of client: the POST is written, then the body is read as it
// arrives; `onFirstText` gets the performance.now() of the read that brought the first text-delta
// chunk. node:http rather than fetch: less client work inside the measured time.
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
function request(base, method, route, body, { onFirstText } = {}) {
  return new Promise((resolve, reject) => {
    const u = new URL(route, base);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers = payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) };
    const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method, headers, agent }, (res) => {
      let text = '';
      let seen = false;
      res.setEncoding('utf8');
      res.on('data', (d) => {
        text += d;
        if (!seen && onFirstText && text.includes('"type":"text-delta"')) {
          seen = true;
          onFirstText(performance.now());
        }
      });
      res.on('end', () => resolve({ status: res.statusCode, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

async function call(base, method, route, body) {
  const r = await request(base, method, route, body);
  if (r.status < 200 || r.status > 299) throw new Error(`${method} ${route}: ${r.status} ${r.text.slice(0, 300)}`);
  return r.text ? JSON.parse(r.text) : undefined;
}

// `<prefix> turn timing app=<app> run=<run> ... name=value ...` from a server's log, waited for.
async function traceLine(log, prefix, appId, runId) {
  const want = `${prefix} turn timing app=${appId} run=${runId} `;
  for (let i = 0; i < 200; i += 1) {
    const line = fs.readFileSync(log, 'utf8').split('\n').find((l) => l.startsWith(want));
    if (line) return Object.fromEntries([...line.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], Number.isNaN(Number(m[2])) ? m[2] : Number(m[2])]));
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no "${want.trim()}" line in ${log}`);
}

// The parts of the platform's share, in the order the turn goes through them (they add up to it).
const splitKeys = ['postToClaim', 'claim', 'claimToRequest', 'requestToSpawn', 'workerHops', 'toBuffer', 'clientHops'];
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (x) => x.toFixed(1).padStart(10);
const head = (names) => names.map((h) => h.padStart(10)).join('');
const loadavg = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');

async function main() {
  const scenario = path.join(tmp, 'scenario.json');
  fs.writeFileSync(scenario, JSON.stringify({
    turns: [{ blocks: [{ type: 'text', text: reply }], stop_reason: 'end_turn' }],
    aux: { blocks: [{ type: 'text', text: 'Title' }], stop_reason: 'end_turn' },
  }));
  const model = await start('model', 'python3', [path.join(projectDir, 'tests/model_server/model_server.py'),
    '--script', scenario, '--port', '0', '--idle-exit', '900', '--max-requests', '100000'], {}, /^(\d+)\n/m);
  const modelUrl = `http://127.0.0.1:${model.match[1]}`;
  // runtime-c: one provider of the operator's opencode config, the scripted model server.
  const opencodeConfig = path.join(tmp, 'opencode.json');
  fs.writeFileSync(opencodeConfig, JSON.stringify({
    $schema: 'https://opencode.ai/config.json',
    model: 'bench/m',
    provider: { bench: { npm: '@ai-sdk/openai-compatible', name: 'Scripted', options: { baseURL: `${modelUrl}/v1`, apiKey: '{env:OPENAI_API_KEY}' },
      models: { m: { name: 'Scripted', tool_call: true, limit: { context: 128000, output: 8192 }, cost: { input: 1, output: 2 } } } } },
  }));
  const token = 'ttfc-bench-internal-token-0123456789abcdef';
  const workerLog = path.join(tmp, 'worker.log');
  const webLog = path.join(tmp, 'web.log');
  const worker = (await start('worker', path.join(buildDir, 'servers/worker/platform-worker'), [], {
    PLATFORM_WORKER_PORT: '0', PLATFORM_DATA_DIR: path.join(tmp, 'worker-data'), INTERNAL_API_TOKEN: token,
    PLATFORM_APP_TEMPLATE_DIR: path.join(projectDir, 'templates/app-workspace'),
    PLATFORM_CODEX_TRACE: '1',
    ANTHROPIC_BASE_URL: modelUrl, ANTHROPIC_API_KEY: 'scripted-model-key', CLAUDE_CODE_MAX_RETRIES: '0',
    PLATFORM_CODEX_BASE_URL: `${modelUrl}/v1`, CODEX_API_KEY: 'scripted-codex-key',
    PLATFORM_OPENCODE_CONFIG: opencodeConfig, PLATFORM_OPENCODE_PATH: path.join(projectDir, 'runtimes/node_modules/.bin/opencode'),
    OPENAI_API_KEY: 'scripted-openai-key',
  }, /listening on (http:\S+)/)).match[1];
  // A text turn calls no platform tool, so the worker needs no PLATFORM_WEB_URL.
  const webUrl = (await start('web', path.join(buildDir, 'servers/web/platform-web'), [], {
    PLATFORM_WEB_PORT: '0', PLATFORM_DATA_DIR: path.join(tmp, 'web-data'),
    PLATFORM_WORKER_URL: worker, INTERNAL_API_TOKEN: token, PLATFORM_CODEX_TRACE: '1',
  }, /listening on (http:\S+)/)).match[1];

  const catalog = (await call(webUrl, 'GET', '/api/runtimes')).runtimes;
  const loadBefore = loadavg();
  const results = new Map();
  for (const runtimeId of runtimes) {
    const entry = catalog.find((r) => r.id === runtimeId);
    if (!entry) throw new Error(`platform-web offers no ${runtimeId}`);
    const settings = { runtimeId, runtimeModel: entry.defaultModel };
    const rows = [];
    for (let i = 0; i <= turns; i += 1) {
      const app = await call(webUrl, 'POST', '/api/workspaces/default/apps', { name: `TTFC ${runtimeId} ${i}`, ...settings });
      const runId = (await call(webUrl, 'POST', `/api/workspaces/default/apps/${app.id}/runs`, {})).id;
      // As the chat's picker sends it: the messages, then the runtime and model.
      const body = { messages: [{ id: `u${i}`, role: 'user', parts: [{ type: 'text', text: 'Say hello.' }] }], ...settings };
      let firstText;
      const t0 = performance.now();
      const r = await request(webUrl, 'POST', `/api/workspaces/default/apps/${app.id}/runs/${runId}/chat`, body,
        { onFirstText: (t) => { firstText = t; } });
      if (r.status !== 200 || firstText === undefined) throw new Error(`${runtimeId} turn ${i}: HTTP ${r.status}, no text: ${r.text.slice(0, 600)}`);
      const said = r.text.split('\n').filter((l) => l.startsWith('data: {')).map((l) => JSON.parse(l.slice(6)))
        .filter((c) => c.type === 'text-delta').map((c) => c.delta).join('');
      if (said !== reply) throw new Error(`${runtimeId} turn ${i}: the text was ${JSON.stringify(said)}`);
      const w = await traceLine(workerLog, 'worker:', app.id, runId);
      const web = await traceLine(webLog, 'web:', app.id, runId);
      const total = firstText - t0;
      const cli = w.spawn_to_first_text_ms;
      const webTotal = web.post_to_claim_ms + web.claim_ms + web.claim_to_request_ms + web.request_to_first_text_ms + web.first_text_to_buffer_ms;
      rows.push({
        total, cli, share: total - cli,
        requestToSpawn: w.request_to_spawn_ms, spawnToStarted: w.spawn_to_started_ms,
        wRequest: w.request_ms, wWorkspace: w.workspace_ms, wGrant: w.grant_ms, wFingerprint: w.fingerprint_ms,
        wRuntimePrep: w.runtime_prep_ms,
        postToClaim: web.post_to_claim_ms, claim: web.claim_ms, claimToRequest: web.claim_to_request_ms,
        // The worker request's way there and the first text's way back (HTTP, SSE framing).
        workerHops: web.request_to_first_text_ms - w.request_to_spawn_ms - cli,
        toBuffer: web.first_text_to_buffer_ms,
        // The POST's way in, and the chunk's from the replay buffer to this client.
        clientHops: total - webTotal,
      });
      const row = rows.at(-1);
      console.log(`${runtimeId} turn ${i}${i === 0 ? ' (warm-up)' : ''}: total ${total.toFixed(1)} ms, CLI ${cli.toFixed(1)} ms, ` +
        `platform ${row.share.toFixed(1)} ms = ${splitKeys.map((k) => `${k} ${row[k].toFixed(1)}`).join(' + ')}, load ${loadavg()}`);
    }
    results.set(runtimeId, rows.slice(1));
  }
  const loadAfter = loadavg();

  const med = (rows, k) => median(rows.map((r) => r[k]));
  const table = (title, names, keys) => {
    console.log(`\n${title}`);
    console.log(`runtime   ${head(names)}`);
    for (const [id, rows] of results) console.log(`${id.padEnd(10)}${keys.map((k) => fmt(med(rows, k))).join('')}`);
  };
  console.log(`\nchat POST -> first text-delta chunk: medians of ${turns} turns per runtime (each a new app and run, ` +
    `after one warm-up turn), ms; load average ${loadBefore} before, ${loadAfter} after (${os.cpus().length} cores)`);
  console.log(`runtime   ${head(['total', 'CLI', 'platform', 'req>spawn'])}  platform <= ${shareLimitMs} ms`);
  for (const [id, rows] of results) {
    const share = med(rows, 'share');
    console.log(`${id.padEnd(10)}${fmt(med(rows, 'total'))}${fmt(med(rows, 'cli'))}${fmt(share)}${fmt(med(rows, 'requestToSpawn'))}  ` +
      `${share <= shareLimitMs ? 'yes' : 'no'}`);
  }
  table('the platform share, split (medians, ms): the web route before the claim; the claim (store, cache store); the turn ' +
    'thread before the worker request; the worker before the spawn; the web<->worker hops (request there, first text back); ' +
    'the text into the replay buffer; the client<->web hops (POST in, chunk out)',
  ['route', 'claim', 'thread', 'worker', 'w-hops', 'buffer', 'c-hops'], splitKeys);
  table('the worker before the spawn (medians, ms): reading the request (body, settings, session, workspace checks); the ' +
    'workspace (template copy, node_modules link); the broker grant; the workspace fingerprint; the runtime\'s own ' +
    'preparation (temp home, config files, credential). spawn>start: the CLI\'s start inside start_runtime_turn ' +
    '(counted as CLI: runtime-b\'s app-server handshake)',
  ['request', 'workspace', 'grant', 'fingerpr', 'rt-prep', 'spawn>st'],
  ['wRequest', 'wWorkspace', 'wGrant', 'wFingerprint', 'wRuntimePrep', 'spawnToStarted']);
  await check(`${turns} timed turns per runtime streamed the scripted text`, async () => {
    for (const [id, rows] of results) if (rows.length !== turns) throw new Error(`${id}: ${rows.length} turns`);
  });
}

await run(main);
