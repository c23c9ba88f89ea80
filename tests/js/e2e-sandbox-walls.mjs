// The agent sandbox's walls end to end (docs/security.md), from inside, on every runtime: one
// builder turn per runtime (runtime-a: Claude Code's Bash; runtime-b: codex's exec_command;
// runtime-c: opencode's bash), each of its own attacker app, whose scripted model has the real
// CLI run the same hostile shell commands in its jail, each probing one wall. What each printed
// reaches the model as a tool result in the next request, which the runtime's scripted model
// server logs; the test reads it there and checks the host side. Walls: files (another app's
// workspace, the data dir, provider-keys.json, secrets.key), read-only trees (the template's
// node_modules, the runtime install, /usr), processes (a private pid namespace, a uid of the
// app's own, no capabilities), network (loopback only: no host service, no host address, no
// direct model server; the provider door forwards nowhere else), credentials (no canary in the
// environment or anywhere the model saw) and persistence (nothing outlives the turn).
// Where a runtime's own tooling stands in front of the jail, the probe gets past it or the
// refusal is explicit: runtime-b (codex) runs each command in its own workspace-write sandbox
// inside the jail (no network there, a pid namespace per command) and refuses a command that
// asks to leave it (netesc); runtime-c (opencode) refuses a command naming a path outside the
// workspace, so its probes hide their paths (base64), and it also runs finding 7's commands
// verbatim (`head -c 300 ../*/agents.json`, `env`), which once showed another app's files and
// every provider key.
// Positive controls: each turn writes its own workspace (as its jail uid), the model gets the
// real key although the CLI held only the placeholder (runtime-b's and -c's read on the host
// from the live CLI), the background sleep really ran (seen inside; outside too but on
// runtime-b, whose command sandbox ends with the command), and every probe printed its DONE
// marker (a probe that failed to run cannot pass a wall).
// Last, an app-agent run on runtime-a (app-data tools only): its CLI runs as the app's jail
// uid, never root, and the run completes.
//
// Usage: node e2e-sandbox-walls.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { harness, SseReader, use } from './harness.mjs';

const args = process.argv.slice(2);
const opt = (name) => args[args.indexOf(name) + 1];
const buildDir = path.resolve(opt('--build'));
const projectDir = path.resolve(opt('--project'));
const { tmp, check: harnessCheck, start, run } = harness('platform-walls-e2e-');

// SANDBOX_OPEN_WALL=<wall>: the worker opens that one wall (PLATFORM_SANDBOX_TEST_OPEN) and
// only runtime-a's turn runs; each check of that wall must then FAIL, which shows it can.
const openWall = process.env.SANDBOX_OPEN_WALL ?? '';
// SANDBOX_SHAPE=production: the same probes against a worker in the production shape of
// docs/operations.md (PLATFORM_ENV=production, its INTERNAL_API_TOKEN, the web at
// PLATFORM_WEB_URL), which takes no test switch: no wall opened, no allow-list for the door.
const production = process.env.SANDBOX_SHAPE === 'production';
async function wallCheck(rt, walls, name, fn) {
  if (!openWall) return harnessCheck(name, fn);
  if (!walls.includes(openWall)) return undefined;
  return harnessCheck(`${name}: FAILS with the ${openWall} wall open`, async () => {
    let failed = false;
    try { await fn(); } catch { failed = true; }
    assert.ok(failed, `the check passed with the ${openWall} wall open, so it could not fail`);
  });
}
// The other checks run only with every wall up; "every probe ran" runs always, so an opened
// wall's failing checks count only when the probes really ran.
const check = (name, fn) => (openWall ? undefined : harnessCheck(name, fn));

const rand = () => crypto.randomBytes(8).toString('hex');
const canary = {
  anthropic: `sk-ant-canary-${rand()}`,
  internal: `canary-internal-${rand()}`,
  openai: `sk-canary-openai-${rand()}`,    // runtime-c's provider key ({env:OPENAI_API_KEY})
  gemini: `canary-gemini-${rand()}`,
  codex: `canary-codex-${rand()}`,         // runtime-b's key
  fileKey: `sk-ant-canary-file-${rand()}`,   // provider-keys.json: the key the worker uses
  secretsKey: `canary-secrets-key-${rand()}`,
  runCapability: `canary-internal-${rand()}`,  // the turns' and the agent run's X-Run-Capability: the worker's, never the jail's
  victim: `VICTIM-MARKER-${rand()}`,
};
const digest = (s) => crypto.createHash('sha256').update(s).digest('hex').slice(0, 16);
const poll = async (what, pred, ms = 15000) => {
  for (const end = Date.now() + ms; Date.now() < end;) {
    const v = await pred();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 50));  // polling for a condition, not timing
  }
  throw new Error(`timed out waiting for ${what}`);
};

// Host processes: pid, ppid, uid, cmdline, cwd.
function processes() {
  const out = [];
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const uid = Number(fs.readFileSync(`/proc/${e}/status`, 'utf8').match(/^Uid:\s+(\d+)/m)[1]);
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      let cwd = '';
      try { cwd = fs.readlinkSync(`/proc/${e}/cwd`); } catch { /* not ours to read */ }
      out.push({ pid: Number(e), ppid, uid, cmd: fs.readFileSync(`/proc/${e}/cmdline`, 'utf8').replaceAll('\0', ' '), cwd });
    } catch { /* gone meanwhile */ }
  }
  return out;
}
function descendantsOf(pid) {
  const all = processes();
  const out = [];
  for (let frontier = [pid]; frontier.length;) {
    const next = all.filter((p) => frontier.includes(p.ppid));
    out.push(...next);
    frontier = next.map((p) => p.pid);
  }
  return out;
}
const inJailRange = (uid) => uid >= 61000 && uid <= 61999;
// The app's jail uid (sandbox_identity_for: 61000 + FNV-1a(app id) % 1000).
const jailUidOf = (app) => {
  let h = 2166136261;
  for (const c of Buffer.from(app)) h = Math.imul(h ^ c, 16777619) >>> 0;
  return 61000 + (h % 1000);
};

// The three runtimes: each its own attacker app, its CLI's shell tool, and the API flavour its
// scripted model server speaks (which also decides where the tool results are in a request).
const runtimes = [
  // memScan: runtime-a's CLI holds its credential in memory (it came on fd 3), which its own
  // shell may read through /proc/<pid>/mem (same uid, Yama off): the scan must find no key.
  { id: 'runtime-a', app: 'appA-a', flavour: 'anthropic', settings: { runtimeId: 'runtime-a' }, memScan: true,
    call: (k, cmd) => use(`toolu_${k}`, 'Bash', { command: cmd, description: 'probe' }) },
  // codex runs each command in a sandbox of its own (workspace-write, its own pid namespace)
  // inside the jail, which ends with the command: its background sleep is seen inside only.
  { id: 'runtime-b', app: 'appA-b', flavour: 'responses', settings: { runtimeId: 'runtime-b', runtimeModel: 'gpt-5.5' },
    // netesc: the network probe again, asking codex to run it outside its sandbox (codex
    // refuses by itself; if it ran, the jail's walls would have to hold).
    sleepEndsWithCommand: true, netesc: true, refusals: { netesc: /you cannot ask for escalated permissions/ },
    // A long yield: the whole output comes back in one tool result, with no write_stdin round.
    call: (k, cmd) => use(`call_${k}`, 'exec_command', { cmd, yield_time_ms: 30000, max_output_tokens: 20000,
      ...(k === 'netesc' ? { sandbox_permissions: 'require_escalated', justification: 'The probe needs the network.' } : {}) }) },
  // opencode's bash tool refuses a command that names a path outside the workspace (its
  // external_directory rule); an attacker hides the path, as here, so the jail is what is tested.
  { id: 'runtime-c', app: 'appA-c', flavour: 'chat', settings: { runtimeId: 'runtime-c', runtimeModel: 'walls/m' },
    hide: (cmd) => `echo ${Buffer.from(cmd).toString('base64')} | base64 -d | sh`,
    call: (k, cmd) => use(`call_${k}`, 'bash', { command: cmd, description: 'probe' }) },
];
// Every readable mapping of every process the probe can see, searched for the canaries' shape
// (their prefixes and 16 hex digits); regions over 1 GiB (reservations) are skipped.
const memScanPy = `import os, re
pat = re.compile(rb'(?:sk-ant-canary-(?:file-)?|sk-canary-openai-|canary-(?:internal|gemini|codex|secrets-key)-)[0-9a-f]{16}')
found, scanned, pids = set(), 0, 0
for pid in os.listdir('/proc'):
    if not pid.isdigit() or int(pid) == os.getpid():
        continue
    try:
        maps = open('/proc/%s/maps' % pid).read().splitlines()
        mem = open('/proc/%s/mem' % pid, 'rb', 0)
    except OSError:
        continue
    pids += 1
    for line in maps:
        f = line.split()
        lo, hi = (int(x, 16) for x in f[0].split('-'))
        if 'r' not in f[1] or hi - lo > (1 << 30):
            continue
        try:
            mem.seek(lo)
            data = mem.read(hi - lo)
        except (OSError, ValueError, OverflowError):
            continue
        scanned += len(data)
        found.update(m.decode() for m in pat.findall(data))
print('MEM-SCANNED pids=%d MiB=%d' % (pids, scanned >> 20))
print('MEM-FOUND ' + ' '.join(sorted(found)))
`;
const modelRoute = { anthropic: /^\/v1\/messages/, responses: /\/responses$/, chat: /\/chat\/completions$/ };

// The tool results a request carried, by probe name (the tool call id without its prefix).
function resultsOf(flavour, req) {
  const text = (c) => (typeof c === 'string' ? c
    : Array.isArray(c) ? c.map((x) => x.text ?? '').join('') : c == null ? '' : JSON.stringify(c));
  const body = req?.body ?? {};
  let pairs = [];
  if (flavour === 'anthropic') {
    pairs = (body.messages ?? []).flatMap((m) => (Array.isArray(m.content) ? m.content : []))
      .filter((c) => c.type === 'tool_result').map((c) => [c.tool_use_id, text(c.content)]);
  } else if (flavour === 'responses') {
    pairs = (body.input ?? []).filter((i) => i.type === 'function_call_output').map((i) => [i.call_id, text(i.output)]);
  } else {
    pairs = (body.messages ?? []).filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, text(m.content)]);
  }
  return Object.fromEntries(pairs.map(([id, t]) => [String(id).replace(/^(toolu|call)_/, ''), t]));
}

async function main() {
  const data = path.join(tmp, 'data');
  const victimWs = path.join(data, 'workspaces', 'appB');
  const wsOf = (app) => path.join(data, 'workspaces', app);
  const templateNm = path.join(projectDir, 'templates/app-workspace/node_modules');
  const runtimesNm = path.join(projectDir, 'runtimes/node_modules');
  const pwnedPaths = [path.join(templateNm, 'pwned'), path.join(runtimesNm, 'pwned'), '/usr/pwned'];
  fs.mkdirSync(path.join(victimWs, 'src'), { recursive: true });
  fs.writeFileSync(path.join(victimWs, 'agents.json'), JSON.stringify({ agents: [], marker: canary.victim }));
  fs.writeFileSync(path.join(victimWs, 'src/secret.ts'), `export const secret = '${canary.victim}';\n`);
  fs.writeFileSync(path.join(data, 'provider-keys.json'), JSON.stringify({ ANTHROPIC_API_KEY: canary.fileKey }), { mode: 0o600 });
  fs.writeFileSync(path.join(data, 'secrets.key'), canary.secretsKey, { mode: 0o600 });
  for (const p of pwnedPaths) assert.ok(!fs.existsSync(p), `${p} exists before the test`);

  // The stand-in internal service, on every host address. Each runtime's probes name it in
  // their paths, so a hit (like a model server's /v1/models) says whose probe got through.
  const internalHits = [];
  const internal = http.createServer((req, res) => { internalHits.push(req.url); res.end('INTERNAL-SERVICE-ANSWERED'); });
  await new Promise((r) => internal.listen(0, '0.0.0.0', r));
  const ip = internal.address().port;
  const hostAddr = Object.values(os.networkInterfaces()).flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal)?.address ?? '';
  // The stand-in for the public internet: on 127.0.0.1, which the internet door's guard refuses
  // like any loopback address, except that the worker's test-only allow-list names this port.
  const publicHits = [];
  const publicSite = http.createServer((req, res) => { publicHits.push(req.url); res.end(`PUBLIC-SITE-ANSWERED${req.url}`); });
  await new Promise((r) => publicSite.listen(0, '127.0.0.1', r));
  const publicPort = publicSite.address().port;

  // The stand-in web server: the app-agent run's completion callback.
  const callbacks = new Map();
  const receiver = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => { raw += d; });
    req.on('end', () => {
      if (req.url === '/api/internal/agent-run-complete') {
        const body = JSON.parse(raw || '{}');
        callbacks.set(body.runId, { auth: req.headers.authorization, capability: req.headers['x-run-capability'], body, raw });
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
  });
  await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
  const receiverUrl = `http://127.0.0.1:${receiver.address().port}`;

  // The hostile commands, the same on every runtime; `rt` only names its own app.
  const probesFor = (rt) => {
    const probes = {
      files: `cat ${victimWs}/agents.json ${victimWs}/src/secret.ts; echo LS-WS=$(ls ${data}/workspaces | tr '\\n' ,);`
        + ` echo LS-DATA=$(ls ${data} | tr '\\n' ,);`
        + ` cat ${data}/provider-keys.json ${data}/secrets.key; echo x > ${victimWs}/pwned; echo FILES-DONE`,
      // Through sh -c: Claude Code itself refuses a redirect it sees resolving outside the
      // workspace, and the jail is what is under test here.
      ro: `for d in node_modules ${templateNm} ${runtimesNm} /usr; do sh -c 'echo x > "$0/pwned"' "$d"; done;`
        + ' echo RO-DONE',
      proc: `echo PROCS=$(ls /proc | grep -cE '^[0-9]+$') INIT=$(tr '\\0' ' ' </proc/1/cmdline | cut -c1-60); echo UID=$(id -u) GID=$(id -g);`
        + ` grep -E '^(CapEff|CapPrm|NoNewPrivs)' /proc/self/status; cat /proc/*/environ | tr '\\0' '\\n' | grep -E 'KEY|TOKEN';`
        + ' echo PROC-DONE',
      // Direct first (--noproxy: around the internet door the jail's HTTPS_PROXY names).
      net: `curl -s -m 3 --noproxy '*' http://127.0.0.1:${ip}/${rt.id} || echo NET-REFUSED-LOCAL;`
        + (hostAddr ? ` curl -s -m 3 --noproxy '*' http://${hostAddr}:${ip}/${rt.id} || echo NET-REFUSED-HOST;` : '')
        + ` curl -s -m 3 -H 'Host: 127.0.0.1:${ip}' http://127.0.0.1:47801/${rt.id} ; echo;`
        + ` curl -s -m 3 -x http://127.0.0.1:47801 http://127.0.0.1:${ip}/${rt.id} ; echo;`
        // The internet door (HTTPS_PROXY): a tunnel to the internal service, on loopback and on
        // the host's address, is refused; a plain http:// request through it too.
        + ` env -u NO_PROXY -u no_proxy curl -sf -m 3 -p -x http://127.0.0.1:47803 http://127.0.0.1:${ip}/${rt.id} || echo NET-REFUSED-DOOR-LOCAL;`
        + (hostAddr ? ` env -u NO_PROXY -u no_proxy curl -sf -m 3 -p -x http://127.0.0.1:47803 http://${hostAddr}:${ip}/${rt.id} || echo NET-REFUSED-DOOR-HOST;` : '')
        + ` env -u NO_PROXY -u no_proxy curl -sf -m 3 -x http://127.0.0.1:47803 http://127.0.0.1:${ip}/${rt.id} || echo NET-REFUSED-DOOR-PLAIN;`
        // ... and the allowed path: the public stand-in, through the proxy the jail was given.
        + ' echo PROXY=$HTTPS_PROXY;'
        + ` env -u NO_PROXY -u no_proxy curl -s -m 5 -p -x "$HTTPS_PROXY" http://127.0.0.1:${publicPort}/${rt.id}; echo;`
        // Every model server's and the worker's ports, which only exist once they run (below).
        + ' . ./probe-ports.env; echo PORTS=$MODEL_PORTS,$WORKER_PORT;'
        + ` for p in $MODEL_PORTS; do curl -s -m 3 http://127.0.0.1:$p/v1/models?from=${rt.id} || echo NET-REFUSED-MODEL-$p; done;`
        + ' curl -s -m 3 http://127.0.0.1:$WORKER_PORT/health || echo NET-REFUSED-WORKER; echo NET-DONE',
      cred: "env | grep -iE 'key|token|secret'; cat /proc/self/environ | tr '\\0' '\\n'; echo CRED-DONE",
      // Two ways out of the command's process group, then (polling /proc) the sleep as seen inside.
      persist: "setsid sh -c 'exec sleep 3171' </dev/null >/dev/null 2>&1 & (sleep 3172 </dev/null >/dev/null 2>&1 &) ;"
        + " for i in $(seq 200); do for f in /proc/[0-9]*/cmdline; do [ \"$(tr '\\0' ' ' 2>/dev/null <$f)\" = 'sleep 3171 ' ]"
        + ' && echo SLEEPING-AS=$(stat -c %u ${f%/cmdline}) && break 2; done; done; echo PERSIST-DONE',
      write: `echo ${rt.okMark} > src/ok.txt && echo WRITE-DONE`,
    };
    if (rt.netesc) probes.netesc = probes.net.replace(/NET-DONE$/, 'NETESC-DONE');
    if (rt.memScan) probes.mem = `echo ${Buffer.from(memScanPy).toString('base64')} | base64 -d | python3; echo MEM-DONE`;
    if (rt.hide) for (const k of Object.keys(probes)) probes[k] = rt.hide(probes[k]);
    // Finding 7, verbatim: on runtime-c these once printed another app's agents.json and every
    // provider key.
    if (rt.id === 'runtime-c') Object.assign(probes, { f7head: 'head -c 300 ../*/agents.json; echo; echo F7HEAD-DONE', f7env: 'env; echo F7ENV-DONE' });
    return probes;
  };
  const doneMark = (k) => `${k.toUpperCase()}-DONE`;

  // One scripted model server per runtime (one API flavour each): the probes, then a reply
  // held until the host has looked at the jail.
  for (const rt of runtimes) {
    rt.okMark = `OK-MARK-${rand()}`;
    rt.ws = wsOf(rt.app);
    rt.probes = probesFor(rt);
    const scenario = {
      turns: [
        { blocks: Object.entries(rt.probes).map(([k, cmd]) => rt.call(k, cmd)), stop_reason: 'tool_use' },
        { blocks: [{ type: 'pause', name: 'after' }, { type: 'text', text: 'Probed.' }], stop_reason: 'end_turn' },
      ],
      aux: { blocks: [{ type: 'text', text: 'Title' }], stop_reason: 'end_turn' },
    };
    const file = path.join(tmp, `scenario-${rt.id}.json`);
    fs.writeFileSync(file, JSON.stringify(scenario));
    rt.log = path.join(tmp, `requests-${rt.id}.jsonl`);
    rt.model = await start(`model-${rt.id}`, 'python3', [path.join(projectDir, 'tests/model_server/model_server.py'),
      '--script', file, '--port', '0', '--idle-exit', '600', '--log', rt.log], {}, /^(\d+)\n/m);
    rt.modelPort = rt.model.match[1];
    rt.modelUrl = `http://127.0.0.1:${rt.modelPort}`;
    // (A line the server is still writing is skipped.)
    rt.requests = () => (fs.existsSync(rt.log) ? fs.readFileSync(rt.log, 'utf8').split('\n').flatMap((l) => {
      try { return [JSON.parse(l)]; } catch { return []; }
    }) : []);
  }
  const [rtA, rtB, rtC] = runtimes;

  // runtime-c's operator config: one provider, the runtime-c model server, keyed by OPENAI_API_KEY.
  const opencodeConfig = path.join(tmp, 'operator-opencode.json');
  fs.writeFileSync(opencodeConfig, JSON.stringify({
    $schema: 'https://opencode.ai/config.json', model: 'walls/m',
    provider: { walls: { npm: '@ai-sdk/openai-compatible', name: 'Scripted walls',
      options: { baseURL: `${rtC.modelUrl}/v1`, apiKey: '{env:OPENAI_API_KEY}' },
      models: { m: { name: 'Scripted', reasoning: true, tool_call: true, limit: { context: 128000, output: 8192 },
        cost: { input: 1, output: 2, cache_read: 0.1 } } } } },
  }));
  const workerTmp = path.join(tmp, 'worker-tmp');
  fs.mkdirSync(workerTmp);
  // One worker with all three runtimes' settings. runtime-b is cold: a warm app-server would
  // outlive the turn by design.
  const worker = await start('worker', path.join(buildDir, 'servers/worker/platform-worker'), [], {
    PLATFORM_WORKER_PORT: '0', PLATFORM_DATA_DIR: data, TMPDIR: workerTmp, INTERNAL_API_TOKEN: canary.internal,
    ANTHROPIC_BASE_URL: rtA.modelUrl, ANTHROPIC_API_KEY: canary.anthropic, CLAUDE_CODE_MAX_RETRIES: '0',
    PLATFORM_CODEX_BASE_URL: `${rtB.modelUrl}/v1`, CODEX_API_KEY: canary.codex, PLATFORM_CODEX_APP_SERVER_WARM: '0',
    ...(production ? { PLATFORM_ENV: 'production', PLATFORM_WEB_URL: receiverUrl }
      : { PLATFORM_SANDBOX_TEST_OPEN: openWall, PLATFORM_SANDBOX_INTERNET_ALLOW: `127.0.0.1:${publicPort}` }),
    PLATFORM_OPENCODE_CONFIG: opencodeConfig, PLATFORM_OPENCODE_PATH: path.join(runtimesNm, '.bin/opencode'),
    OPENAI_API_KEY: canary.openai, GEMINI_API_KEY: canary.gemini,
  }, /listening on (http:\S+)/);
  const workerUrl = worker.match[1];
  const workerPort = new URL(workerUrl).port;
  const modelPorts = runtimes.map((rt) => rt.modelPort);
  const harnessed = new Set([process.pid, worker.child.pid, ...runtimes.map((rt) => rt.model.child.pid)]);
  // This test's jail processes (other tests' jails may run meanwhile): any uid of the jail
  // range working in this test's tree, whatever names it (bwrap, the relay), the sleeps.
  const ours = () => processes().filter((p) => !harnessed.has(p.pid) && ((inJailRange(p.uid) && p.cwd.startsWith(tmp))
    || p.cmd.includes(tmp) || /^sleep 317[12]\b/.test(p.cmd)));
  const headers = { authorization: `Bearer ${canary.internal}`, 'content-type': 'application/json' };
  const allEvents = [];

  for (const rt of openWall ? [rtA] : runtimes) {
    const ids = Object.keys(rt.probes);
    const expectedUid = jailUidOf(rt.app);
    const t0 = performance.now();
    // The workspace takes the template's files around it at the turn's start.
    fs.mkdirSync(rt.ws, { recursive: true });
    fs.writeFileSync(path.join(rt.ws, 'probe-ports.env'), `MODEL_PORTS="${modelPorts.join(' ')}"\nWORKER_PORT=${workerPort}\n`);
    // Not awaited: a runtime may send its first message (and the worker its response head)
    // only after the model's replies, and the second one is held below.
    const streamed = fetch(`${workerUrl}/sessions/${rt.app}/messages`, {
      method: 'POST', headers,
      body: JSON.stringify({ runId: 'run1', workspaceId: 'ws1', appId: rt.app, prompt: 'Probe the sandbox.',
        systemPrompt: 'Builder.', settings: { settings: rt.settings }, sessionState: null, runCapability: canary.runCapability }),
    }).then(async (r) => {
      if (r.status !== 200) throw new Error(`the turn was refused: ${r.status} ${(await r.text()).slice(0, 300)}`);
      return new SseReader(r, { payload: true }).toEnd();
    });
    const results = (q) => resultsOf(rt.flavour, q);

    // The request carrying the probes' results, then (the reply held) the jail still running.
    // A turn that ends first (an error) ends the wait too.
    let ended = false;
    streamed.then(() => { ended = true; }, () => { ended = true; });
    const probed = await poll(`${rt.id}: the tool results request`, () => rt.requests()
      .find((q) => ids.every((k) => k in results(q))) ?? (ended ? {} : null), 90000);
    const out = results(probed);
    let sleeper;
    await wallCheck(rt, ['identity'], `${rt.id}: while the turn runs, the background sleep lives as the app's jail uid (the persistence probe really ran)`, async () => {
      assert.ok(!ended, 'the turn ended before the probes\' results came back');
      assert.equal(out.persist?.match(/SLEEPING-AS=(\d+)/)?.[1], String(expectedUid), `inside: ${out.persist?.slice(0, 400)}`);
      if (rt.sleepEndsWithCommand) return;
      sleeper = await poll('sleep 3171 on the host', () => processes().find((p) => p.cmd.startsWith('sleep 3171') && p.cwd === rt.ws), 5000);
      assert.equal(sleeper.uid, expectedUid, `sleep runs as uid ${sleeper.uid} on the host`);
    });
    // The key the live CLI holds, read by the host while the reply is held: runtime-b's in
    // codex's environment (which its shell cannot read: codex is not dumpable), runtime-c's in
    // the jail's opencode.json. (runtime-a's came on fd 3, a pipe it has read.)
    let heldKey;
    try {
      if (rt.id === 'runtime-b') {
        const codex = processes().find((p) => p.cwd === rt.ws && path.basename(p.cmd.split(' ')[0]) === 'codex');
        heldKey = fs.readFileSync(`/proc/${codex.pid}/environ`, 'utf8').split('\0').find((e) => e.startsWith('CODEX_API_KEY='))?.slice(14);
      } else if (rt.id === 'runtime-c') {
        const sandboxes = path.join(data, 'sandboxes');
        const config = fs.readdirSync(sandboxes).map((d) => path.join(sandboxes, d, 'home/config/opencode/opencode.json')).find((f) => fs.existsSync(f));
        heldKey = JSON.parse(fs.readFileSync(config, 'utf8')).provider.walls.options.apiKey;
      }
    } catch (e) { heldKey = `unreadable: ${e.message}`; }
    await fetch(`${rt.modelUrl}/control/release/after`, { method: 'POST' });
    // A refused or broken turn fails this runtime's checks; the next runtime still runs.
    let turnError;
    const events = (await streamed.catch((e) => { turnError = e; return []; }))
      .filter((e) => e !== '[DONE]').map((e) => JSON.parse(e));
    allEvents.push(...events);
    const finished = events.find((m) => m.type === 'result');
    const took = ((performance.now() - t0) / 1000).toFixed(1);

    // A wall's assertions count only when its probe printed its DONE marker; a probe the
    // runtime's own tooling may refuse passes with that explicit refusal (null) instead.
    const probe = (k) => {
      assert.ok(typeof out[k] === 'string', `no result for the ${k} probe`);
      if (!out[k].includes(doneMark(k)) && rt.refusals?.[k]?.test(out[k])) return null;
      assert.ok(out[k].includes(doneMark(k)), `${k} did not print ${doneMark(k)}: ${out[k].slice(0, 600)}`);
      return out[k];
    };

    await harnessCheck(`${rt.id}: every probe ran to its end and the turn finished (turn ${took} s)`, async () => {
      assert.ifError(turnError);
      assert.ok(finished && !finished.is_error, `the turn finished: ${JSON.stringify(finished ?? events.at(-1))?.slice(0, 400)}`);
      for (const k of ids) probe(k);
    });

    await wallCheck(rt, ['files'], `${rt.id}: files: no other workspace, data dir or key file exists inside; nothing written to B`, async () => {
      const files = probe('files');
      assert.ok(!files.includes(canary.victim), `B's marker leaked: ${files.slice(0, 400)}`);
      assert.match(files, /agents\.json: No such file or directory/);
      assert.match(files, /provider-keys\.json: No such file or directory/);
      assert.match(files, /secrets\.key: No such file or directory/);
      assert.equal(files.match(/LS-WS=(.*)/)?.[1], `${rt.app},`, 'only its own workspace exists inside');
      assert.doesNotMatch(files.match(/LS-DATA=(.*)/)?.[1] ?? '', /provider-keys|secrets/);
      assert.ok(!fs.existsSync(path.join(victimWs, 'pwned')), 'B\'s workspace has a pwned file');
    });

    if (rt.id === 'runtime-c') {
      await check(`${rt.id}: finding 7: \`head -c 300 ../*/agents.json\` and \`env\` show no other app's files and no key`, async () => {
        const head = probe('f7head');
        const env = probe('f7env');
        assert.ok(!head.includes(canary.victim), `B's agents.json leaked: ${head.slice(0, 400)}`);
        for (const [name, value] of Object.entries(canary)) {
          assert.ok(!head.includes(value) && !env.includes(value), `${name} canary in the output`);
        }
        assert.doesNotMatch(env, /^(OPENAI|ANTHROPIC|GEMINI|CODEX|GOOGLE)\w*_API_KEY=/m, env.slice(0, 600));
        assert.match(env, /^HOME=/m, 'env printed the environment');
      });
    }

    await check(`${rt.id}: read-only: the template tree, the runtime install and /usr are not writable`, async () => {
      const ro = probe('ro');
      for (const p of pwnedPaths) assert.ok(!fs.existsSync(p), `${p} was written`);
      assert.equal(ro.match(/Read-only file system|Permission denied/g)?.length, 4, ro.slice(0, 600));
    });

    await wallCheck(rt, ['processes', 'identity'], `${rt.id}: processes: a private pid namespace, the app's own uid, no capabilities, no_new_privs`, async () => {
      const proc = probe('proc');
      const procs = Number(proc.match(/PROCS=(\d+)/)?.[1]);
      // pid 1 is the jail's bwrap (a nested sandbox of the runtime's own may sit below it).
      assert.match(proc.match(/INIT=(.*)/)?.[1] ?? '', /bwrap/, proc.slice(0, 400));
      // (codex's parallel commands, each in a sandbox of its own, make runtime-b's count the largest.)
      assert.ok(procs > 0 && procs < 60, `${procs} processes visible inside: ${proc.slice(0, 400)}`);
      const uid = Number(proc.match(/UID=(\d+)/)?.[1]);
      const gid = Number(proc.match(/GID=(\d+)/)?.[1]);
      assert.ok(inJailRange(uid) && inJailRange(gid), `id -u ${uid}, id -g ${gid}`);
      assert.equal(uid, expectedUid, 'the app\'s own uid');
      if (!rt.sleepEndsWithCommand) assert.equal(uid, sleeper?.uid, 'the same uid on the host');
      assert.match(proc, /CapEff:\s+0{16}/);
      assert.match(proc, /CapPrm:\s+0{16}/);
      assert.match(proc, /NoNewPrivs:\s+1/);
    });

    await wallCheck(rt, ['network'], `${rt.id}: network: loopback only; host services, the host address, the model servers and the worker are unreachable`, async () => {
      for (const k of ['net', 'netesc'].filter((x) => x in rt.probes)) {
        const net = probe(k);
        if (net === null) continue;  // refused by the runtime: nothing ran
        assert.ok(!net.includes('INTERNAL-SERVICE-ANSWERED'), net.slice(0, 400));
        assert.ok(net.includes(`PORTS=${modelPorts.join(' ')},${workerPort}`), 'the probe knew the ports');
        assert.ok(net.includes('NET-REFUSED-LOCAL') && net.includes('NET-REFUSED-WORKER'), net.slice(0, 600));
        for (const p of modelPorts) assert.ok(net.includes(`NET-REFUSED-MODEL-${p}`), `model server ${p}: ${net.slice(0, 600)}`);
        if (hostAddr) assert.ok(net.includes('NET-REFUSED-HOST'));
        assert.ok(net.includes('NET-REFUSED-DOOR-LOCAL') && net.includes('NET-REFUSED-DOOR-PLAIN'), `the internet door: ${net.slice(0, 600)}`);
        if (hostAddr) assert.ok(net.includes('NET-REFUSED-DOOR-HOST'), `the internet door, host address: ${net.slice(0, 600)}`);
      }
      assert.ok(out.net.includes('NET-DONE'), 'the plain network probe ran');
      assert.deepEqual(internalHits.filter((u) => u.includes(rt.id)), [], 'the internal service was reached');
      for (const other of runtimes) {
        assert.ok(!other.requests().some((q) => q.path.startsWith(`/v1/models?from=${rt.id}`)), `${other.id}'s model server was reached directly`);
      }
    });

    await check(`${rt.id}: network: the internet door is the jail's HTTPS_PROXY and reaches what its guard allows (${production ? 'in production no allow-list: not the loopback stand-in' : 'the test\'s allow-listed stand-in'})`, async () => {
      const net = probe('net');
      if (net === null) return assert.fail('the network probe did not run');
      assert.match(net, /^PROXY=http:\/\/127\.0\.0\.1:47803$/m, net.slice(0, 600));
      // runtime-b's shell runs inside codex's own workspace-write sandbox, which has no network
      // at all (its inner layer): no door is reachable from that shell, and codex's web search
      // runs at the provider. The other two shells reach the stand-in through the door.
      // In production nothing is allow-listed: the stand-in on loopback stays refused.
      if (rt.id === 'runtime-b' || production) {
        assert.ok(!net.includes('PUBLIC-SITE-ANSWERED'), 'the shell reached the loopback stand-in');
        assert.deepEqual(publicHits.filter((u) => u.includes(rt.id)), []);
        return;
      }
      assert.ok(net.includes(`PUBLIC-SITE-ANSWERED/${rt.id}`), `through the door: ${net.slice(0, 800)}`);
      assert.ok(publicHits.includes(`/${rt.id}`));
    });

    await wallCheck(rt, ['credentials'], `${rt.id}: credentials: no canary in the environment, the CLI's memory, any model request, tool result or the stream; the door swapped the key in`, async () => {
      const cred = probe('cred');
      if (rt.memScan) {
        const mem = probe('mem');
        assert.match(mem, /MEM-SCANNED pids=[1-9]\d* MiB=[1-9]/, `the scan read memory: ${mem.slice(0, 200)}`);
        assert.match(mem, /^MEM-FOUND $/m, `a key in a jailed process's memory: ${mem.slice(0, 300)}`);
      }
      assert.match(cred, /^HOME=/m, 'the probe printed its environment');
      assert.doesNotMatch(cred, /^(OPENAI|ANTHROPIC|GEMINI|GOOGLE|CODEX)\w*_API_KEY=/m, cred.slice(0, 600));
      const raw = fs.readFileSync(rt.log, 'utf8') + JSON.stringify(events);
      for (const [name, value] of Object.entries(canary)) assert.ok(!raw.includes(value), `${name} canary leaked`);
      const model = rt.requests().filter((q) => modelRoute[rt.flavour].test(q.path));
      assert.ok(model.length >= 2, 'requests came through the provider door');
      if (rt.id === 'runtime-a') {
        assert.ok(cred.includes('ANTHROPIC_BASE_URL=http://127.0.0.1:47801'), cred.slice(0, 400));
        const keys = new Set([digest(canary.fileKey), digest(canary.anthropic)]);
        for (const q of model) assert.ok(keys.has(q.secret_digests['x-api-key']), `a request carried ${q.secret_digests['x-api-key']}, not the real key`);
      } else {
        assert.match(heldKey ?? '', /^platform-sandbox-[0-9a-f]{32}$/, 'the CLI holds the jail\'s placeholder, not a key');
        const key = rt.id === 'runtime-b' ? canary.codex : canary.openai;
        for (const q of model) assert.equal(q.secret_digests.authorization, digest(`Bearer ${key}`), 'the real key, swapped in by the door');
      }
    });

    await check(`${rt.id}: the positive control: the turn wrote its own workspace, as its jail uid`, async () => {
      probe('write');
      const ok = path.join(rt.ws, 'src/ok.txt');
      assert.equal(fs.readFileSync(ok, 'utf8').trim(), rt.okMark);
      const { uid } = fs.statSync(ok);
      assert.ok(inJailRange(uid) && uid === expectedUid, `src/ok.txt is owned by uid ${uid}`);
    });

    await wallCheck(rt, ['processes'], `${rt.id}: persistence: no jail process outlives the turn`, async () => {
      probe('persist');
      const left = () => ours().filter((p) => p.cwd.startsWith(rt.ws) || p.cmd.includes(rt.ws) || /^sleep 317[12]\b/.test(p.cmd));
      await poll('the jail\'s processes to end', () => left().length === 0, 10000).catch(() => {});
      assert.deepEqual(left(), [], 'processes of the jail remain');
    });
  }

  // An app-agent run on runtime-a with app-data tools only. Its model replays runtime-a's
  // script: the probes' Bash calls (the agent has no Bash: refused), then the held reply.
  // An opened processes wall lets the probes' sleeps escape the turn: they end here.
  if (openWall) for (const p of ours()) { try { process.kill(p.pid, 'SIGKILL'); } catch { /* gone */ } }

  await check('app-agent run (runtime-a, app-data tools only): its CLI runs as the app\'s jail uid, never root; the run completes', async () => {
    await fetch(`${rtA.modelUrl}/control/arm/after`, { method: 'POST' });
    const before = rtA.requests().length;
    const r = await fetch(`${workerUrl}/sessions/${rtA.app}__agent__ar1/agent-run`, {
      method: 'POST', headers,
      body: JSON.stringify({
        runId: 'ar1', appId: rtA.app, workspaceId: 'ws1', prompt: 'Read the notes.', systemPrompt: 'You are the notes agent.',
        agentConfig: { id: 'notes', tools: [], dataCollections: ['notes'] },
        allowedTools: ['mcp__app_data__read_app_data', 'mcp__app_data__update_app_data'],
        callbackUrl: `${receiverUrl}/api/internal/agent-run-complete`, sourceFiles: { 'README.md': 'app\n' },
        settings: { settings: { runtimeId: 'runtime-a' } }, runCapability: canary.runCapability,
      }),
    });
    assert.equal(r.status, 202, await r.clone().text());
    // Its second request (the refused calls' results) is held at the pause: the CLI is live.
    const agentReqs = () => rtA.requests().slice(before).filter((q) => modelRoute.anthropic.test(q.path) && q.body?.tools?.length);
    const held = await poll('the agent run\'s held request', () => agentReqs().find((q) => Object.keys(resultsOf('anthropic', q)).length > 0), 30000);
    try {
      // The run's jail: the worker's descendants in or naming its own workspace (worker-tmp).
      const runWs = `${workerTmp}/platform-agent-`;
      const tree = descendantsOf(worker.child.pid).filter((p) => p.cwd.startsWith(runWs) || p.cmd.includes(runWs));
      const cli = tree.filter((p) => /^claude(\.exe)?$/.test(path.basename(p.cmd.split(' ')[0])));
      assert.ok(cli.length > 0, `the CLI among the worker's descendants: ${JSON.stringify(tree.map((p) => [p.uid, p.cmd.slice(0, 80)]))}`);
      for (const p of cli) assert.equal(p.uid, jailUidOf(rtA.app), `${p.cmd.slice(0, 80)} runs as uid ${p.uid}`);
      // Only bwrap (the namespaces' setup and their init) is root; all under it is the app's uid.
      for (const p of tree.filter((x) => !x.cmd.startsWith('/usr/bin/bwrap '))) {
        assert.equal(p.uid, jailUidOf(rtA.app), `${p.cmd.slice(0, 120)} runs as uid ${p.uid}`);
      }
      const tools = held.body.tools.map((t) => t.name);
      assert.ok(!tools.includes('Bash'), `the agent is offered no Bash: ${tools}`);
      assert.ok(tools.some((t) => t.startsWith('mcp__app_data__')), `its app-data tools: ${tools}`);
      for (const [k, t] of Object.entries(resultsOf('anthropic', held))) assert.ok(!t.includes(doneMark(k)), `the agent ran the ${k} probe: ${t.slice(0, 200)}`);
    } finally {
      await fetch(`${rtA.modelUrl}/control/release/after`, { method: 'POST' });
    }
    const done = await poll('the run\'s completion callback', () => callbacks.get('ar1'), 30000);
    assert.equal(done.auth, `Bearer ${canary.internal}`);
    assert.equal(done.capability, canary.runCapability);
    assert.equal(done.body.status, 'completed', JSON.stringify(done.body.error));
    assert.equal(done.body.result, 'Probed.');
    for (const [name, value] of Object.entries(canary)) assert.ok(!done.raw.includes(value), `${name} canary in the callback`);
  });

  await check('persistence: no process of any of the test\'s jails remains', async () => {
    await poll('the jails\' processes to end', () => ours().length === 0, 10000).catch(() => {});
    assert.deepEqual(ours(), [], 'processes of a jail remain');
  });

  await check('credentials: no canary in any runtime\'s model requests or streams', async () => {
    const raw = runtimes.map((rt) => fs.readFileSync(rt.log, 'utf8')).join('') + JSON.stringify(allEvents);
    for (const [name, value] of Object.entries(canary)) assert.ok(!raw.includes(value), `${name} canary leaked`);
  });
  receiver.close();
  internal.close();
  publicSite.close();
}

await run(main);
