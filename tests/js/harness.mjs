// What every end-to-end script here shares: named checks with a summary line, child
// processes that are ready when a line of their stdout says so (and are killed at the end),
// and an incremental reader of SSE bodies.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import http from 'node:http';
import path from 'node:path';

export function harness(prefix) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const children = [];
  let passed = 0;
  let failed = 0;

  // Each line ends with the check's seconds, to show where a slow test spends its time.
  async function check(name, fn) {
    const started = performance.now();
    const took = () => `(${((performance.now() - started) / 1000).toFixed(1)} s)`;
    try {
      await fn();
      passed += 1;
      console.log(`ok   ${name} ${took()}`);
    } catch (e) {
      failed += 1;
      console.log(`FAIL ${name} ${took()}: ${e?.stack ?? e}`);
    }
  }

  // Starts `cmd` with only PATH and `env`, stderr to <tmp>/<name>.log, and resolves with
  // { child, match } for the first stdout text matching `ready`.
  function start(name, cmd, argv, env, ready) {
    return new Promise((resolve, reject) => {
      const child = spawn(cmd, argv, { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(child);
      child.stderr.pipe(fs.createWriteStream(path.join(tmp, `${name}.log`)));
      let buffer = '';
      const timer = setTimeout(() => reject(new Error(`${name} did not start`)), 20000);
      child.stdout.on('data', (d) => {
        buffer += d;
        const m = buffer.match(ready);
        if (m) {
          clearTimeout(timer);
          resolve({ child, match: m });
        }
      });
      child.on('exit', (code) => reject(new Error(`${name} exited with ${code}`)));
    });
  }

  // Runs `main`, then stops the children, prints the summary and exits 0 or 1. Logs stay in
  // the temp dir when something failed.
  async function run(main) {
    try {
      await main();
    } catch (e) {
      failed += 1;
      console.log(`FAIL setup: ${e?.stack ?? e}`);
    } finally {
      // The children's exits first: a jailed runtime ends with its worker (--die-with-parent),
      // a moment later, and may still be writing into the temp dir; a removal that meets such
      // a last write tries again.
      await Promise.all(children.map((c) => (c.exitCode !== null || c.signalCode !== null ? null : new Promise((r) => { c.once('exit', r); c.kill('SIGKILL'); }))));
      if (failed === 0) fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
      else console.log(`logs kept in ${tmp}`);
      console.log(`${passed} passed, ${failed} failed`);
      process.exit(failed === 0 ? 0 : 1);
    }
  }

  return { tmp, check, start, run };
}

// SSE events of a fetch body, read incrementally: whole "data: ...\n\n" strings, or with
// { payload: true } only what follows "data: ". Keep-alive comments are skipped.
export class SseReader {
  constructor(res, { payload = false } = {}) {
    this.reader = res.body.getReader();
    this.decoder = new TextDecoder();
    this.payload = payload;
    this.buffer = '';
    this.events = [];
    this.done = false;
  }
  async until(pred) {
    while (!pred(this.events)) {
      if (this.done) throw new Error(`stream ended first; have ${this.events.length} events`);
      const { done, value } = await this.reader.read();
      if (done) {
        this.done = true;
        continue;
      }
      this.buffer += this.decoder.decode(value, { stream: true });
      let i;
      while ((i = this.buffer.indexOf('\n\n')) >= 0) {
        const ev = this.buffer.slice(0, i + 2);
        this.buffer = this.buffer.slice(i + 2);
        if (ev.startsWith(':')) continue;
        this.events.push(this.payload ? ev.slice(6, -2) : ev);
      }
    }
    return this.events;
  }
  toEnd() {
    const last = this.payload ? '[DONE]' : 'data: [DONE]\n\n';
    return this.until((e) => e.length > 0 && e[e.length - 1] === last);
  }
}

// The enterprise identity provider of the external auth mode: HS256 identity tokens for any
// subject, valid for an hour, and the platform-web settings that trust them.
export function identityProvider() {
  const secret = crypto.randomBytes(32).toString('hex');
  const issuer = 'https://idp.example.test';
  const audience = 'platform-e2e';
  const b64url = (buf) => Buffer.from(buf).toString('base64url');
  const token = (sub) => {
    const now = Math.floor(Date.now() / 1000);
    const body = { iss: issuer, aud: audience, iat: now, exp: now + 3600, sub, email: `${sub}@example.test`, name: sub };
    const signed = `${b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${b64url(JSON.stringify(body))}`;
    return `${signed}.${b64url(crypto.createHmac('sha256', secret).update(signed).digest())}`;
  };
  const env = { PLATFORM_AUTH_MODE: 'external', PLATFORM_JWT_ISSUER: issuer, PLATFORM_JWT_AUDIENCE: audience,
    PLATFORM_JWT_HS256_SECRET: secret };
  return { secret, issuer, audience, token, env };
}

// Pieces of scripted model replies (tests/model_server/README.md).
export const use = (id, name, input) => ({ type: 'tool_use', id, name, input });
export const toolTurn = (...blocks) => ({ blocks, stop_reason: 'tool_use' });
export const endTurn = (text) => ({ blocks: [{ type: 'text', text }], stop_reason: 'end_turn' });

// The tool_result of tool call `id` in a builder turn's worker messages (Claude Code's stream
// JSON): its text and whether it was an error.
export function toolResult(messages, id) {
  for (const m of messages) {
    if (m.type !== 'user' || !Array.isArray(m.message?.content)) continue;
    const block = m.message.content.find((b) => b.type === 'tool_result' && b.tool_use_id === id);
    if (!block) continue;
    const text = typeof block.content === 'string' ? block.content
      : block.content.filter((c) => c.type === 'text').map((c) => c.text).join('');
    return { text, isError: block.is_error === true };
  }
  throw new Error(`no tool_result for ${id} in ${messages.map((m) => m.type).join(',')}`);
}

/**
 * The scripted model server with `scenario` and a platform-worker whose runtime-a talks to it:
 * what the end-to-end chat tests start before their web processes. `start` is the harness's.
 * Resolves with { modelUrl, workerUrl }.
 */
export async function startModelAndWorker({ start, tmp }, { buildDir, projectDir, scenario }) {
  const scenarioFile = path.join(tmp, 'scenario.json');
  fs.writeFileSync(scenarioFile, JSON.stringify(scenario));
  const model = await start('model', 'python3', [path.join(projectDir, 'tests/model_server/model_server.py'),
    '--script', scenarioFile, '--port', '0', '--log', path.join(tmp, 'requests.jsonl'), '--idle-exit', '600'], {}, /^(\d+)\n/m);
  const modelUrl = `http://127.0.0.1:${model.match[1]}`;
  const worker = await start('worker', path.join(buildDir, 'servers/worker/platform-worker'), [], {
    PLATFORM_WORKER_PORT: '0',
    PLATFORM_DATA_DIR: path.join(tmp, 'data'),
    ANTHROPIC_BASE_URL: modelUrl,
    ANTHROPIC_API_KEY: 'scripted-model-key',
    CLAUDE_CODE_MAX_RETRIES: '0',
  }, /listening on (http:\S+)/);
  return { modelUrl, workerUrl: worker.match[1] };
}

/** The assistant message the real AI SDK client (DefaultChatTransport + readUIMessageStream)
 *  assembles from a UI message stream body. */
export async function assembleMessage(body) {
  const { DefaultChatTransport, readUIMessageStream } = await import('ai');
  const transport = new DefaultChatTransport({
    api: 'http://replay.invalid/chat',
    fetch: async () => new Response(body, { headers: { 'content-type': 'text/event-stream' } }),
  });
  const chunks = await transport.sendMessages({ chatId: 'c', messages: [], trigger: 'submit-message', messageId: undefined, abortSignal: undefined });
  let last;
  for await (const m of readUIMessageStream({ stream: chunks, onError: (e) => { throw e; } })) last = m;
  return last;
}

// platform-web's 32-byte secrets key, as PLATFORM_SECRETS_KEY spells it (64 hex chars, or
// base64), or as the web keeps it in <data dir>/secrets.key when that is unset (hex and a
// newline, written at the web's first start).
export function secretsKeyFrom(text) {
  const t = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(t) ? Buffer.from(t, 'hex') : Buffer.from(t, 'base64');
  if (key.length !== 32) throw new Error('not a 32-byte secrets key');
  return key;
}
export const secretsKeyOf = (dataDir) => secretsKeyFrom(fs.readFileSync(path.join(dataDir, 'secrets.key'), 'utf8'));

// The capability platform-web mints for one run and checks, as X-Run-Capability, on its
// /api/internal/* routes: kind is 'builder' for a builder turn, 'agent' for an app-agent run.
export function runCapability(secretsKey, kind, workspaceId, appId, runId) {
  const k = crypto.createHmac('sha256', secretsKey).update('platform run capabilities v1').digest();
  return `rc1.${crypto.createHmac('sha256', k).update(`${kind}\n${workspaceId}\n${appId}\n${runId}`).digest('hex')}`;
}

// A stop that stops spending (issue 33): the runtime processes of a test's turns, as the host
// sees them in /proc, and the model requests still open. Root reads every process's cwd,
// cmdline and environment; the worker runs as root here and its jails as uids 61000..61999.
export const inJailRange = (uid) => uid >= 61000 && uid <= 61999;

// Whether /proc/<pid>/stat's text is of a process that has ended: a zombie (state Z), a dead one
// (X), or one far down the kernel's exit path: exiting (PF_EXITING) with its memory released
// (vsize 0), which comes before its files are closed, e.g. a jail's pid-namespace init waiting
// for the namespace's last process to go. A process just killed, still releasing its memory,
// has not ended.
export function statEnded(stat) {
  const after = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return after[0] === 'Z' || after[0] === 'X' || ((Number(after[6]) & 0x4) !== 0 && after[20] === '0');
}

// Live host processes: pid, ppid, uid, state, name (comm), argv, cmd (argv joined by spaces),
// cwd and environ ('' when unreadable). Ended ones (statEnded) are left out.
export function hostProcesses() {
  const out = [];
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
      const after = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const state = after[0];
      if (statEnded(stat)) continue;
      const uid = Number(fs.readFileSync(`/proc/${e}/status`, 'utf8').match(/^Uid:\s+(\d+)/m)[1]);
      const argv = fs.readFileSync(`/proc/${e}/cmdline`, 'utf8').split('\0').filter(Boolean);
      const read = (f, how) => { try { return how(f); } catch { return ''; } };
      out.push({
        pid: Number(e), ppid: Number(after[1]), uid, state, argv, cmd: argv.join(' '),
        name: read(`/proc/${e}/comm`, (f) => fs.readFileSync(f, 'utf8').trim()),
        cwd: read(`/proc/${e}/cwd`, (f) => fs.readlinkSync(f)),
        environ: read(`/proc/${e}/environ`, (f) => fs.readFileSync(f, 'utf8')),
      });
    } catch { /* gone meanwhile */ }
  }
  return out;
}

// The runtime CLIs and the jail's own programs, by name (comm is cut at 15 characters; a
// node-started CLI names its script first).
const runtimeNames = ['claude', 'claude.exe', 'codex', 'codex.js', 'opencode', 'opencode.js', 'bwrap', 'platform-sandbox-relay'];
const isRuntime = (p) => [p.name, path.basename(p.argv[0] ?? ''), path.basename(p.argv[1] ?? '')]
  .some((n) => n && runtimeNames.some((r) => r === n || r.slice(0, 15) === n));

/**
 * The runtime processes of a test's turns, alive now: those that belong to any of `roots` (the
 * test's temp dir, an app's workspace). A process of a jail uid working there (cwd) or naming
 * it (cmdline), or a runtime CLI (claude, codex, opencode, bwrap, platform-sandbox-relay)
 * naming it in its cmdline or environment.
 */
export function runtimeProcesses(roots) {
  const within = (s) => roots.some((r) => s.includes(r));
  return hostProcesses().filter((p) => p.pid !== process.pid
    && ((inJailRange(p.uid) && (roots.some((r) => p.cwd.startsWith(r)) || within(p.cmd)))
      || (isRuntime(p) && (within(p.cmd) || within(p.environ)))));
}
// (A long command line, as bwrap's, by its start and its end: what the jail runs comes last.)
export const describeProcess = (p) => `pid ${p.pid} (ppid ${p.ppid}) uid ${p.uid} state ${p.state} ${p.name} cwd=${p.cwd}: `
  + (p.cmd.length > 400 ? `${p.cmd.slice(0, 100)} … ${p.cmd.slice(-300)}` : p.cmd);
export const isCli = (p, cli) => [p.name, path.basename(p.argv[0] ?? ''), path.basename(p.argv[1] ?? '')]
  .some((n) => n === cli || n === `${cli}.exe` || n === `${cli}.js`);

// The sockets each process holds open: inode → { pid, name, fd }.
function socketOwners() {
  const owners = new Map();
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    let fds = [];
    try { fds = fs.readdirSync(`/proc/${e}/fd`); } catch { continue; }
    for (const fd of fds) {
      let link = '';
      try { link = fs.readlinkSync(`/proc/${e}/fd/${fd}`); } catch { continue; }
      const m = link.match(/^socket:\[(\d+)\]$/);
      if (!m || owners.has(m[1])) continue;
      let name = '';
      try { name = fs.readFileSync(`/proc/${e}/comm`, 'utf8').trim(); } catch { /* gone */ }
      owners.set(m[1], { pid: Number(e), name, fd: Number(fd) });
    }
  }
  return owners;
}

/**
 * Established TCP connections from this host to 127.0.0.1:`port` (/proc/net/tcp and tcp6, the
 * host's network namespace), but the test's own (its fetches keep connections alive): a model
 * request still open, whose reply the provider would go on generating. Each: { local, inode,
 * owner: 'pid N name fd F' }.
 */
export function connectionsTo(port) {
  const found = [];
  for (const f of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try { text = fs.readFileSync(f, 'utf8'); } catch { continue; }
    for (const line of text.split('\n').slice(1)) {
      const c = line.trim().split(/\s+/);
      if (c.length < 10 || c[3] !== '01') continue;  // 01: ESTABLISHED
      const [addr, hex] = c[2].split(':');
      if (parseInt(hex, 16) !== Number(port) || !/^(0100007F|0{16}FFFF00000100007F)$/i.test(addr)) continue;
      found.push({ local: c[1], inode: c[9] });
    }
  }
  if (found.length === 0) return found;
  const owners = socketOwners();
  return found.filter((c) => owners.get(c.inode)?.pid !== process.pid).map((c) => {
    const o = owners.get(c.inode);
    return { ...c, owner: o ? `pid ${o.pid} ${o.name} fd ${o.fd}` : 'no process' };
  });
}
export const describeConnection = (c) => `${c.local} → the model (socket ${c.inode}, held by ${c.owner})`;

// Polls `pred` until it returns a truthy value (resolved with it), at most `ms`: a wait for a
// condition, never a timing.
export async function waitUntil(what, pred, ms = 30000, every = 50) {
  for (const end = Date.now() + ms; ;) {
    const v = await pred();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, every));
  }
}

// GET `url` from the server on 127.0.0.1 at `port` (default the URL's own), with the URL's host
// as the Host header: *.preview.localhost need not resolve here.
export function previewGet(url, port) {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: port ?? u.port, path: u.pathname + u.search, headers: { host: u.host } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}
