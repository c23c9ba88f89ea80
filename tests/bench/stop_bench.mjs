// Benchmark (issue 33, "A stop that stops spending"): the time from a user's stop to the end of
// the turn's runtime, on the real runtime-a (Claude Code) with the scripted model server holding
// its reply. One platform-web and one platform-worker (its runtimes jailed: it runs as root);
// N sequential builder turns per way in, each on a new run of one app: the turn streams its
// first text, the model holds the rest at a pause, the client sends the stop.
//
// Measured at the client, from sending the stop: (1) until every process of the turn has exited
// (its Claude Code, platform-sandbox-relay and both bwraps, found in /proc before the stop and
// then polled in a tight, bounded loop; a zombie has exited), and until every one was at least
// down (far down the kernel's exit path: exiting, its memory released; harness statEnded),
// (2) until the stop's reply arrived, and (3) until the held model request's connection is
// closed (the provider stops generating; not waited for longer than 2 s). Ways in: the web's POST .../runs/{run}/stop (a user's stop) and
// the worker's POST /sessions/{app}/turns/{run}/stop that the web calls. Goal: (1) ≤ 1000 ms.
// It prints numbers; its checks are that every stop was answered 200 and that no process of the
// turn was running at the reply (one down its exit path is counted apart).
//
// Usage: node stop_bench.mjs --build DIR --project DIR [--stops 10] [--via web,worker] [--no-setup]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { connectionsTo, describeProcess, harness, isCli, runtimeProcesses, SseReader, statEnded } from '../js/harness.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const buildDir = path.resolve(opt('--build'));
const projectDir = path.resolve(opt('--project'));
const stops = Number(opt('--stops', '10'));
const ways = opt('--via', 'web,worker').split(',');
const goalMs = 1000;
const boundMs = 10000;       // a stop whose runtime outlives this is reported, not waited for
const connectionBoundMs = 2000;

// The runtime CLIs and the app template, as the end-to-end tests install them; each is a no-op
// once installed as its lock pins.
if (!args.includes('--no-setup')) {
  for (const script of ['scripts/setup-runtimes.sh', 'scripts/setup-template.sh']) {
    const r = spawnSync('bash', [path.join(projectDir, script)], { stdio: ['ignore', 'ignore', 'inherit'] });
    if (r.status !== 0) {
      console.log(`${script} failed (exit ${r.status})`);
      process.exit(1);
    }
  }
}

const { tmp, check, start, run } = harness('platform-stop-bench-');

// Where `pid` is in its end: 'running'; 'exiting' (down the kernel's exit path, its memory
// released, not a zombie yet: statEnded); 'exited' (a zombie, or gone).
function phase(pid) {
  let stat;
  try { stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8'); } catch { return 'exited'; }
  if (stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z') return 'exited';
  return statEnded(stat) ? 'exiting' : 'running';
}
// Whether any of the sockets `inodes` is still an established connection (/proc/net/tcp{,6}).
function established(inodes) {
  for (const f of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try { text = fs.readFileSync(f, 'utf8'); } catch { continue; }
    for (const line of text.split('\n').slice(1)) {
      const c = line.trim().split(/\s+/);
      if (c.length >= 10 && c[3] === '01' && inodes.has(c[9])) return true;
    }
  }
  return false;
}
const yieldToIo = () => new Promise((r) => setImmediate(r));

async function main() {
  const scenario = {
    turns: [{ blocks: [{ type: 'text', text: 'Working. ' }, { type: 'pause', name: 'hold' }, { type: 'text', text: 'Never said.' }],
      stop_reason: 'end_turn' }],
    aux: { blocks: [{ type: 'text', text: 'Title' }], stop_reason: 'end_turn' },
  };
  fs.writeFileSync(path.join(tmp, 'scenario.json'), JSON.stringify(scenario));
  const model = await start('model', 'python3', [path.join(projectDir, 'tests/model_server/model_server.py'),
    '--script', path.join(tmp, 'scenario.json'), '--port', '0', '--idle-exit', '600', '--max-requests', '100000'], {}, /^(\d+)\n/m);
  const modelUrl = `http://127.0.0.1:${model.match[1]}`;
  const modelPort = model.match[1];
  const token = 'stop-bench-internal-token-0123456789abcdef';
  // The turns' processes work in or name the worker's data dir (the app's workspace, the jails'
  // homes); what the worker runs for itself (runtime-c's model discovery) lives in its TMPDIR.
  const workerData = path.join(tmp, 'worker-data');
  fs.mkdirSync(path.join(tmp, 'worker-tmp'));
  const turnProcesses = () => runtimeProcesses([`${workerData}/`]);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const worker = (await start('worker', path.join(buildDir, 'servers/worker/platform-worker'), [], {
    PLATFORM_WORKER_PORT: '0', PLATFORM_DATA_DIR: workerData, TMPDIR: path.join(tmp, 'worker-tmp'), INTERNAL_API_TOKEN: token,
    ANTHROPIC_BASE_URL: modelUrl, ANTHROPIC_API_KEY: 'bench-key', CLAUDE_CODE_MAX_RETRIES: '0',
  }, /listening on (http:\S+)/)).match[1];
  const web = (await start('web', path.join(buildDir, 'servers/web/platform-web'), [], {
    PLATFORM_WEB_PORT: '0', PLATFORM_DATA_DIR: path.join(tmp, 'web-data'), PLATFORM_WORKER_URL: worker, INTERNAL_API_TOKEN: token,
  }, /listening on (http:\S+)/)).match[1];
  const post = (base, p, body, h = { 'content-type': 'application/json' }) =>
    fetch(base + p, { method: 'POST', headers: h, body: JSON.stringify(body ?? {}) });
  const app = await (await post(web, '/api/workspaces/default/apps', { name: 'Stop bench' })).json();
  const appPath = `/api/workspaces/default/apps/${app.id}`;
  const textIn = (events) => events.some((e) => e.includes('Working.'));

  // One held turn, ready to stop: { stream, stop() → fetch of the stop }.
  const heldTurn = {
    web: async (i) => {
      const r = await (await post(web, `${appPath}/runs`, {})).json();
      const res = await post(web, `${appPath}/runs/${r.id}/chat`,
        { messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: `Stop me ${i}` }] }] });
      if (res.status !== 200) throw new Error(`chat: HTTP ${res.status} ${await res.text()}`);
      const stream = new SseReader(res);
      await stream.until(textIn);
      return { stream, stop: () => post(web, `${appPath}/runs/${r.id}/stop`, {}) };
    },
    worker: async (i) => {
      const runId = `wrun${i}`;
      const res = await post(worker, `/sessions/${app.id}-w/messages`, { runId, workspaceId: 'default', appId: `${app.id}-w`,
        prompt: `Stop me ${i}`, systemPrompt: 'Builder.', settings: { settings: { runtimeId: 'runtime-a' } }, sessionState: null,
        runCapability: `cap-${runId}` }, headers);
      if (res.status !== 200) throw new Error(`worker turn: HTTP ${res.status} ${await res.text()}`);
      const stream = new SseReader(res, { payload: true });
      await stream.until(textIn);
      return { stream, stop: () => post(worker, `/sessions/${app.id}-w/turns/${runId}/stop`, undefined, headers) };
    },
  };

  const results = {};
  for (const way of ways) {
    const rows = [];
    results[way] = rows;
    for (let i = 0; i < stops; i += 1) {
      await fetch(`${modelUrl}/control/arm/hold`, { method: 'POST' });
      const turn = await heldTurn[way](i);
      // The turn's processes and its held model request, found before the stop.
      const procs = turnProcesses();
      if (!procs.some((p) => isCli(p, 'claude'))) throw new Error(`no Claude Code before stop ${i}: ${procs.map(describeProcess).join('\n')}`);
      const held = new Set(connectionsTo(modelPort).map((c) => c.inode));
      const row = { pids: procs.length };
      const t0 = performance.now();
      const pids = procs.map((p) => p.pid);
      // The first moment every pid seen before the stop was past `running` (down: exiting or
      // exited), and past `exiting` (exited: a zombie or gone).
      const look = () => {
        const phases = pids.map(phase);
        const now = performance.now() - t0;
        if (row.downMs === undefined && !phases.includes('running')) row.downMs = now;
        if (row.exitedMs === undefined && phases.every((x) => x === 'exited')) row.exitedMs = now;
        return phases;
      };
      const stopped = turn.stop().then(async (r) => {
        row.replyMs = performance.now() - t0;
        row.status = r.status;
        // At the reply: the pids seen before, then a full scan (slower, after the times are
        // taken) for any process of the turn started since.
        const phases = look();
        row.exitingAtReply = phases.filter((x) => x === 'exiting').length;
        row.leftAtReply = [...procs.filter((p, k) => phases[k] === 'running').map((p) => `${describeProcess(p)} (seen before the stop)`),
          ...turnProcesses().map(describeProcess)];
        await r.text();
      });
      stopped.catch((e) => { row.error = e.message; row.replyMs = NaN; });
      // Tight and bounded: /proc between turns of the event loop, so the stop's I/O goes on.
      const waiting = () => row.exitedMs === undefined || row.replyMs === undefined
        || (row.closedMs === undefined && performance.now() - t0 < connectionBoundMs);
      while (performance.now() - t0 < boundMs && waiting()) {
        look();
        if (row.closedMs === undefined && !established(held)) row.closedMs = performance.now() - t0;
        await yieldToIo();
      }
      await stopped.catch(() => {});
      row.heldConnections = held.size;
      rows.push(row);
      await turn.stream.toEnd().catch(() => {});
      await fetch(`${modelUrl}/control/release/hold`, { method: 'POST' });
    }
  }

  const fmt = (xs) => {
    const v = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
    if (v.length === 0) return 'none';
    return `min ${v[0].toFixed(1)} ms, median ${v[Math.floor((v.length - 1) / 2)].toFixed(1)} ms, max ${v.at(-1).toFixed(1)} ms`
      + (v.length < xs.length ? ` (${xs.length - v.length} of ${xs.length} beyond the bound)` : '');
  };
  for (const way of ways) {
    const rows = results[way];
    const exited = rows.map((r) => r.exitedMs ?? NaN);
    const worst = Math.max(...exited.map((x) => (Number.isFinite(x) ? x : Infinity)));
    console.log(`stop via the ${way === 'web' ? 'web (POST .../runs/{run}/stop)' : 'worker (POST /sessions/{app}/turns/{run}/stop)'}, ${rows.length} stops, runtime-a (Claude Code) held by the model:`);
    console.log(`  stop sent -> every process of the turn exited (zombie or gone): ${fmt(exited)}; goal <= ${goalMs} ms: ${worst <= goalMs ? 'met' : 'MISSED'}`);
    console.log(`  stop sent -> every process down (memory released, or exited):   ${fmt(rows.map((r) => r.downMs ?? NaN))}`);
    console.log(`  stop sent -> the stop's reply:                                   ${fmt(rows.map((r) => r.replyMs))}`);
    console.log(`  stop sent -> the held model request closed:                      ${fmt(rows.map((r) => r.closedMs ?? NaN))}`
      + ` (bound ${connectionBoundMs} ms; ${rows.filter((r) => r.closedMs === undefined).length} of ${rows.length} still open then)`);
    console.log(`  processes per turn: ${[...new Set(rows.map((r) => r.pids))].join(', ')}; stops whose reply came while one was still`
      + ` in its exit path (memory released, not a zombie yet): ${rows.filter((r) => r.exitingAtReply > 0).length} of ${rows.length}`);
  }

  await check(`every stop was answered 200 and no process of its turn was alive at the reply (${ways.join(', ')})`, async () => {
    for (const way of ways) {
      for (const [i, r] of results[way].entries()) {
        if (r.status !== 200) throw new Error(`${way} stop ${i}: HTTP ${r.status} ${r.error ?? ''}`);
        if (r.leftAtReply.length) throw new Error(`${way} stop ${i}: alive at the reply:\n${r.leftAtReply.join('\n')}`);
      }
    }
  });
}

await run(main);
