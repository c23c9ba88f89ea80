// The agent sandbox's walls end to end (docs/security.md), from inside: one builder turn of
// app A whose scripted model has the real Claude Code CLI run hostile Bash commands in its jail,
// each probing one wall. What each printed reaches the model as a tool_result in the next
// request, which the scripted model server logs; the test reads it there and checks the host
// side. Walls: files (another app's workspace, the data dir, provider-keys.json, secrets.key),
// read-only trees (the template's node_modules, the runtime install, /usr), processes (a
// private pid namespace, a uid of the app's own, no capabilities), network (loopback only: no
// host service, no host address, no direct model server; the provider door forwards nowhere
// else), credentials (no canary in the environment) and persistence (nothing outlives the
// turn). Positive controls: the turn writes its own workspace (as its jail uid), the model gets
// the real key although the CLI held only the placeholder, the background sleep really ran.
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
const { tmp, check, start, run } = harness('platform-walls-e2e-');

const rand = () => crypto.randomBytes(8).toString('hex');
const canary = {
  anthropic: `sk-ant-canary-${rand()}`,
  internal: `canary-internal-${rand()}`,
  openai: `sk-canary-openai-${rand()}`,
  gemini: `canary-gemini-${rand()}`,
  codex: `canary-codex-${rand()}`,
  fileKey: `sk-ant-canary-file-${rand()}`,   // provider-keys.json: the key the worker uses
  secretsKey: `canary-secrets-key-${rand()}`,
  victim: `VICTIM-MARKER-${rand()}`,
};
const okMark = `OK-MARK-${rand()}`;
const digest = (s) => crypto.createHash('sha256').update(s).digest('hex').slice(0, 16);
const poll = async (what, pred, ms = 15000) => {
  for (const end = Date.now() + ms; Date.now() < end;) {
    const v = await pred();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 50));  // polling for a condition, not timing
  }
  throw new Error(`timed out waiting for ${what}`);
};

// Host processes: pid, uid, cmdline, cwd.
function processes() {
  const out = [];
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const uid = Number(fs.readFileSync(`/proc/${e}/status`, 'utf8').match(/^Uid:\s+(\d+)/m)[1]);
      let cwd = '';
      try { cwd = fs.readlinkSync(`/proc/${e}/cwd`); } catch { /* not ours to read */ }
      out.push({ pid: Number(e), uid, cmd: fs.readFileSync(`/proc/${e}/cmdline`, 'utf8').replaceAll('\0', ' '), cwd });
    } catch { /* gone meanwhile */ }
  }
  return out;
}
const inJailRange = (uid) => uid >= 61000 && uid <= 61999;

async function main() {
  const data = path.join(tmp, 'data');
  const victimWs = path.join(data, 'workspaces', 'appB');
  const attackerWs = path.join(data, 'workspaces', 'appA');
  const templateNm = path.join(projectDir, 'templates/app-workspace/node_modules');
  const runtimesNm = path.join(projectDir, 'runtimes/node_modules');
  fs.mkdirSync(path.join(victimWs, 'src'), { recursive: true });
  fs.writeFileSync(path.join(victimWs, 'agents.json'), JSON.stringify({ agents: [], marker: canary.victim }));
  fs.writeFileSync(path.join(victimWs, 'src/secret.ts'), `export const secret = '${canary.victim}';\n`);
  fs.writeFileSync(path.join(data, 'provider-keys.json'), JSON.stringify({ ANTHROPIC_API_KEY: canary.fileKey }), { mode: 0o600 });
  fs.writeFileSync(path.join(data, 'secrets.key'), canary.secretsKey, { mode: 0o600 });
  for (const p of [path.join(templateNm, 'pwned'), path.join(runtimesNm, 'pwned'), '/usr/pwned']) {
    assert.ok(!fs.existsSync(p), `${p} exists before the test`);
  }

  // The stand-in internal service, on every host address.
  let internalHits = 0;
  const internal = http.createServer((req, res) => { internalHits += 1; res.end('INTERNAL-SERVICE-ANSWERED'); });
  await new Promise((r) => internal.listen(0, '0.0.0.0', r));
  const ip = internal.address().port;
  const hostAddr = Object.values(os.networkInterfaces()).flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal)?.address ?? '';

  const logFile = path.join(tmp, 'requests.jsonl');
  const sh = (cmd) => ({ command: cmd, description: 'probe' });
  const probes = {
    files: sh(`cat ${victimWs}/agents.json ${victimWs}/src/secret.ts; echo LS-WS=$(ls ${data}/workspaces | tr '\\n' ,);`
      + ` echo LS-DATA=$(ls ${data} | tr '\\n' ,);`
      + ` cat ${data}/provider-keys.json ${data}/secrets.key; echo x > ${victimWs}/pwned; echo FILES-DONE`),
    // Through sh -c: Claude Code itself refuses a redirect it sees resolving outside the
    // workspace, and the jail is what is under test here.
    ro: sh(`for d in node_modules ${templateNm} ${runtimesNm} /usr; do sh -c 'echo x > "$0/pwned"' "$d"; done;`
      + ' echo RO-DONE'),
    proc: sh(`echo PROCS=$(ls /proc | grep -cE '^[0-9]+$'); echo UID=$(id -u) GID=$(id -g);`
      + ` grep -E '^(CapEff|CapPrm|NoNewPrivs)' /proc/self/status; cat /proc/*/environ | tr '\\0' '\\n' | grep -E 'KEY|TOKEN';`
      + ' echo PROC-DONE'),
    net: sh(`curl -s -m 3 http://127.0.0.1:${ip}/ || echo NET-REFUSED-LOCAL;`
      + (hostAddr ? ` curl -s -m 3 http://${hostAddr}:${ip}/ || echo NET-REFUSED-HOST;` : '')
      + ` curl -s -m 3 -H 'Host: 127.0.0.1:${ip}' http://127.0.0.1:47801/ ; echo;`
      + ` curl -s -m 3 -x http://127.0.0.1:47801 http://127.0.0.1:${ip}/ ; echo;`
      // The model server's and the worker's ports, which only exist once they run (below).
      + ' . ./probe-ports.env; echo PORTS=$MODEL_PORT,$WORKER_PORT; curl -s -m 3 http://127.0.0.1:$MODEL_PORT/v1/models || echo NET-REFUSED-MODEL;'
      + ' curl -s -m 3 http://127.0.0.1:$WORKER_PORT/health || echo NET-REFUSED-WORKER; echo NET-DONE'),
    cred: sh("env | grep -iE 'key|token|secret'; cat /proc/self/environ | tr '\\0' '\\n'; echo CRED-DONE"),
    persist: sh("setsid sh -c 'exec sleep 3171' </dev/null >/dev/null 2>&1 & (sleep 3172 </dev/null >/dev/null 2>&1 &) ;"
      + ' echo PERSIST-DONE'),
    write: sh(`echo ${okMark} > src/ok.txt && echo WRITE-DONE`),
  };
  const ids = Object.keys(probes);
  const scenario = {
    turns: [
      { blocks: ids.map((k) => use(`toolu_${k}`, 'Bash', probes[k])), stop_reason: 'tool_use' },
      // Held here until the host has seen the background sleep running.
      { blocks: [{ type: 'pause', name: 'after' }, { type: 'text', text: 'Probed.' }], stop_reason: 'end_turn' },
    ],
    aux: { blocks: [{ type: 'text', text: 'Title' }], stop_reason: 'end_turn' },
  };
  fs.writeFileSync(path.join(tmp, 'scenario.json'), JSON.stringify(scenario));
  const model = await start('model', 'python3', [path.join(projectDir, 'tests/model_server/model_server.py'),
    '--script', path.join(tmp, 'scenario.json'), '--port', '0', '--idle-exit', '600', '--log', logFile], {}, /^(\d+)\n/m);
  const modelPort = model.match[1];
  const modelUrl = `http://127.0.0.1:${modelPort}`;
  const worker = await start('worker', path.join(buildDir, 'servers/worker/platform-worker'), [], {
    PLATFORM_WORKER_PORT: '0', PLATFORM_DATA_DIR: data, INTERNAL_API_TOKEN: canary.internal,
    ANTHROPIC_BASE_URL: modelUrl, ANTHROPIC_API_KEY: canary.anthropic, CLAUDE_CODE_MAX_RETRIES: '0',
    OPENAI_API_KEY: canary.openai, GEMINI_API_KEY: canary.gemini, CODEX_API_KEY: canary.codex,
  }, /listening on (http:\S+)/);
  const workerUrl = worker.match[1];
  // The workspace takes the template's files around it at the turn's start.
  fs.mkdirSync(attackerWs, { recursive: true });
  fs.writeFileSync(path.join(attackerWs, 'probe-ports.env'), `MODEL_PORT=${modelPort}\nWORKER_PORT=${new URL(workerUrl).port}\n`);

  // (A line the server is still writing is skipped.)
  const requests = () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').split('\n').flatMap((l) => {
    try { return [JSON.parse(l)]; } catch { return []; }
  }) : []);
  const results = (req) => Object.fromEntries((req?.body?.messages ?? []).flatMap((m) => (Array.isArray(m.content) ? m.content : []))
    .filter((c) => c.type === 'tool_result')
    .map((c) => [c.tool_use_id.replace('toolu_', ''),
      typeof c.content === 'string' ? c.content : (c.content ?? []).filter((x) => x.type === 'text').map((x) => x.text).join('')]));

  const r = await fetch(`${workerUrl}/sessions/appA/messages`, {
    method: 'POST', headers: { authorization: `Bearer ${canary.internal}`, 'content-type': 'application/json' },
    body: JSON.stringify({ runId: 'run1', workspaceId: 'ws1', appId: 'appA', prompt: 'Probe the sandbox.',
      systemPrompt: 'Builder.', settings: { settings: { runtimeId: 'runtime-a' } }, sessionState: null }),
  });
  assert.equal(r.status, 200);
  const sse = new SseReader(r, { payload: true });
  const streamed = sse.toEnd();

  // The request carrying the probes' results, then (the reply held) the jail still running.
  const probed = await poll('the tool results request', () => requests().find((q) => Object.keys(results(q)).length === ids.length), 45000);
  const out = results(probed);
  let jailUid;
  await check('while the turn runs, the background sleep lives as the jail uid (the persistence probe really ran)', async () => {
    const sleeper = await poll('sleep 3171 on the host', () => processes().find((p) => p.cmd.startsWith('sleep 3171') && p.cwd === attackerWs), 5000);
    jailUid = sleeper.uid;
    assert.ok(inJailRange(jailUid), `sleep runs as uid ${jailUid}`);
  });
  await fetch(`${modelUrl}/control/release/after`, { method: 'POST' });
  const events = await streamed;
  const finished = events.filter((e) => e !== '[DONE]').map((e) => JSON.parse(e)).find((m) => m.type === 'result');

  await check('every probe ran to its end and the turn finished', async () => {
    assert.ok(finished && !finished.is_error, 'the turn finished');
    for (const [k, done] of Object.entries({ files: 'FILES-DONE', ro: 'RO-DONE', proc: 'PROC-DONE', net: 'NET-DONE',
      cred: 'CRED-DONE', persist: 'PERSIST-DONE', write: 'WRITE-DONE' })) {
      assert.ok(out[k].includes(done), `${k} printed ${done}: ${out[k].slice(0, 400)}`);
    }
  });

  await check('files: no other workspace, data dir or key file exists inside; nothing written to B', async () => {
    assert.ok(!out.files.includes(canary.victim), `B's marker leaked: ${out.files.slice(0, 400)}`);
    assert.match(out.files, /agents\.json: No such file or directory/);
    assert.match(out.files, /provider-keys\.json: No such file or directory/);
    assert.match(out.files, /secrets\.key: No such file or directory/);
    assert.equal(out.files.match(/LS-WS=(.*)/)?.[1], 'appA,', 'only its own workspace exists inside');
    assert.doesNotMatch(out.files.match(/LS-DATA=(.*)/)?.[1] ?? '', /provider-keys|secrets/);
    assert.ok(!fs.existsSync(path.join(victimWs, 'pwned')), 'B\'s workspace has a pwned file');
  });

  await check('read-only: the template tree, the runtime install and /usr are not writable', async () => {
    for (const p of [path.join(templateNm, 'pwned'), path.join(runtimesNm, 'pwned'), '/usr/pwned']) {
      assert.ok(!fs.existsSync(p), `${p} was written`);
    }
    assert.equal(out.ro.match(/Read-only file system|Permission denied/g)?.length, 4, out.ro.slice(0, 600));
  });

  await check('processes: a private pid namespace, the app\'s own uid, no capabilities, no_new_privs', async () => {
    const procs = Number(out.proc.match(/PROCS=(\d+)/)?.[1]);
    assert.ok(procs > 0 && procs < 10, `${procs} processes visible inside: ${out.proc.slice(0, 400)}`);
    const uid = Number(out.proc.match(/UID=(\d+)/)?.[1]);
    const gid = Number(out.proc.match(/GID=(\d+)/)?.[1]);
    assert.ok(inJailRange(uid) && inJailRange(gid), `id -u ${uid}, id -g ${gid}`);
    assert.equal(uid, jailUid, 'the same uid on the host');
    assert.match(out.proc, /CapEff:\s+0{16}/);
    assert.match(out.proc, /CapPrm:\s+0{16}/);
    assert.match(out.proc, /NoNewPrivs:\s+1/);
  });

  await check('network: loopback only; host services, the host address and the model server are unreachable', async () => {
    assert.ok(!out.net.includes('INTERNAL-SERVICE-ANSWERED'), out.net.slice(0, 400));
    assert.ok(out.net.includes(`PORTS=${modelPort},${new URL(workerUrl).port}`), 'the probe knew the ports');
    assert.ok(out.net.includes('NET-REFUSED-LOCAL') && out.net.includes('NET-REFUSED-MODEL') && out.net.includes('NET-REFUSED-WORKER'));
    if (hostAddr) assert.ok(out.net.includes('NET-REFUSED-HOST'));
    assert.equal(internalHits, 0, 'the internal service was reached');
    assert.ok(!requests().some((q) => q.path.startsWith('/v1/models')), 'the model server was reached directly');
  });

  await check('credentials: no canary in any model request, tool result or the stream; the door swapped the key in', async () => {
    const raw = fs.readFileSync(logFile, 'utf8') + JSON.stringify(events);
    for (const [name, value] of Object.entries(canary)) assert.ok(!raw.includes(value), `${name} canary leaked`);
    assert.ok(out.cred.includes('ANTHROPIC_BASE_URL=http://127.0.0.1:47801'), out.cred.slice(0, 400));
    const model = requests().filter((q) => q.path.startsWith('/v1/messages'));
    assert.ok(model.length >= 2, 'requests came through the provider door');
    const keys = new Set([digest(canary.fileKey), digest(canary.anthropic)]);
    for (const q of model) {
      assert.ok(keys.has(q.secret_digests['x-api-key']), `a request carried ${q.secret_digests['x-api-key']}, not the real key`);
    }
  });

  await check('the positive control: the turn wrote its own workspace, as its jail uid', async () => {
    const ok = path.join(attackerWs, 'src/ok.txt');
    assert.equal(fs.readFileSync(ok, 'utf8').trim(), okMark);
    const { uid } = fs.statSync(ok);
    assert.ok(inJailRange(uid) && uid === jailUid, `src/ok.txt is owned by uid ${uid}`);
  });

  await check('persistence: no jail process outlives the turn', async () => {
    // This test's jail processes (other tests' jails may run meanwhile): any uid of the jail
    // range working in this test's tree, whatever names it (bwrap, the relay), the sleeps.
    const harnessed = new Set([process.pid, model.child.pid, worker.child.pid]);
    const ours = () => processes().filter((p) => !harnessed.has(p.pid) && ((inJailRange(p.uid) && p.cwd.startsWith(tmp))
      || p.cmd.includes(tmp) || /^sleep 317[12]\b/.test(p.cmd)));
    await poll('the jail\'s processes to end', () => ours().length === 0, 10000).catch(() => {});
    assert.deepEqual(ours(), [], 'processes of the jail remain');
  });
}

await run(main);
