// Benchmark: N concurrent app-agent runs on one platform-worker with the real Claude Code CLI
// and the scripted model server. Prints the time from POST agent-run to the first buffered
// message of each run (seen by a viewer attached right after the POST answered), and memory
// while all N runs are live: the worker's RSS, and the runtimes' RSS (every process the runs
// started) per run. Bounded: N runs, each held at one pause in the model's reply and then
// released; it stops by itself.
//
// Usage: node agent_runs_bench.mjs --build DIR --project DIR [--runs 100]
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { harness, SseReader } from '../js/harness.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const buildDir = path.resolve(opt('--build'));
const projectDir = path.resolve(opt('--project'));
const runs = Number(opt('--runs', '100'));
const { tmp, check, start, run } = harness('platform-agent-bench-');

function rssKiB(pid) {
  try {
    const m = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

// Every descendant of `root`.
function descendants(root) {
  const parent = new Map();
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
      parent.set(Number(e), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch { /* gone */ }
  }
  const out = [];
  const stack = [root];
  while (stack.length) {
    const p = stack.pop();
    for (const [pid, pp] of parent) if (pp === p) { out.push(pid); stack.push(pid); }
  }
  return out;
}

const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];

async function main() {
  const callbacks = new Map();
  let allDone;
  const finished = new Promise((r) => { allDone = r; });
  const receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      callbacks.set(JSON.parse(body).runId, JSON.parse(body).status);
      if (callbacks.size === runs) allDone();
      res.end('{}');
    });
  });
  await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
  const scenario = { turns: [{ blocks: [{ type: 'text', text: 'Working. ' }, { type: 'pause', name: 'hold' },
    { type: 'text', text: 'Done.' }], stop_reason: 'end_turn' }], aux: { blocks: [{ type: 'text', text: 'T' }] } };
  fs.writeFileSync(path.join(tmp, 'scenario.json'), JSON.stringify(scenario));
  const model = await start('model', 'python3', [path.join(projectDir, 'tests/model_server/model_server.py'),
    '--script', path.join(tmp, 'scenario.json'), '--port', '0', '--idle-exit', '600', '--max-requests', '100000'], {}, /^(\d+)\n/m);
  const modelUrl = `http://127.0.0.1:${model.match[1]}`;
  const token = 'bench-internal-token-0123456789abcdef0123';
  const started = await start('worker', path.join(buildDir, 'servers/worker/platform-worker'), [], {
    PLATFORM_WORKER_PORT: '0', PLATFORM_DATA_DIR: path.join(tmp, 'data'), INTERNAL_API_TOKEN: token,
    PLATFORM_WORKER_MAX_AGENT_RUNS: String(runs), ANTHROPIC_BASE_URL: modelUrl, ANTHROPIC_API_KEY: 'bench-key',
    CLAUDE_CODE_MAX_RETRIES: '0',
  }, /listening on (http:\S+)/);
  const worker = started.match[1];
  const workerPid = started.child.pid;
  const idleWorkerKiB = rssKiB(workerPid);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const callbackUrl = `http://127.0.0.1:${receiver.address().port}/api/internal/agent-run-complete`;

  const firstMs = [];
  const viewers = [];
  const startOne = async (i) => {
    const runId = `b${i}`;
    const body = { runId, appId: 'app1', workspaceId: 'ws1', prompt: `Task ${i}`, systemPrompt: 'Bench agent.',
      agentConfig: { id: 'bench', tools: [], dataCollections: [] }, allowedTools: ['WebFetch'], callbackUrl,
      sourceFiles: { 'README.md': 'bench\n' }, runCapability: `cap-${runId}` };
    const t0 = performance.now();
    const r = await fetch(`${worker}/sessions/app1__agent__${runId}/agent-run`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (r.status !== 202) throw new Error(`run ${i}: HTTP ${r.status} ${await r.text()}`);
    const viewer = new SseReader(await fetch(`${worker}/sessions/app1__agent__${runId}/agent-run/${runId}/events`, { headers }),
      { payload: true });
    await viewer.until((events) => events.length >= 1);
    firstMs.push(performance.now() - t0);
    viewers.push(viewer);
    // Live: the run has produced its first text and now waits at the pause.
    await viewer.until((events) => events.some((e) => e.includes('Working.'))).catch((e) => { throw new Error(`run ${i}: ${e.message}: ${viewer.events?.slice(-3).join(' | ').slice(0, 600)}`); });
  };
  const t0 = performance.now();
  // Started 10 at a time, as a web server's requests arrive, not as one burst of connects.
  for (let i = 0; i < runs; i += 10) {
    await Promise.all(Array.from({ length: Math.min(10, runs - i) }, (_, k) => startOne(i + k)));
  }
  const allLiveMs = performance.now() - t0;

  const workerKiB = rssKiB(workerPid);
  const runtimePids = descendants(workerPid);
  const runtimeKiB = runtimePids.reduce((sum, pid) => sum + rssKiB(pid), 0);
  const health = await (await fetch(`${worker}/health`)).json();

  await fetch(`${modelUrl}/control/release/hold`, { method: 'POST' });
  await finished;
  for (const v of viewers) v.reader.cancel().catch(() => {});

  const ms = (x) => `${x.toFixed(1)} ms`;
  console.log(`agent runs: ${runs} concurrent (started 10 at a time), all live (first text buffered) after ${ms(allLiveMs)}`);
  console.log(`POST agent-run -> first buffered message: median ${ms(percentile(firstMs, 0.5))}, ` +
    `p95 ${ms(percentile(firstMs, 0.95))}, max ${ms(Math.max(...firstMs))}`);
  console.log(`worker RSS: idle ${(idleWorkerKiB / 1024).toFixed(1)} MiB, with ${runs} live runs ` +
    `${(workerKiB / 1024).toFixed(1)} MiB (${((workerKiB - idleWorkerKiB) / runs).toFixed(0)} KiB per run)`);
  console.log(`runtime processes: ${runtimePids.length}, RSS ${(runtimeKiB / 1024).toFixed(0)} MiB ` +
    `(${(runtimeKiB / 1024 / runs).toFixed(1)} MiB per run)`);

  await check(`${runs} runs started, were all live at once and completed`, async () => {
    if (health.agentRuns !== runs) throw new Error(`worker held ${health.agentRuns} runs`);
    const completed = [...callbacks.values()].filter((s) => s === 'completed').length;
    if (completed !== runs) throw new Error(`${completed} of ${runs} completed`);
  });
}

await run(main);
