// The whole app-agent flow end to end: platform-web + platform-worker + the real Claude Code CLI
// + the scripted model server + a local provider on 127.0.0.1 (allow-listed for the web's HTTP
// executor). A workspace and app are created, agents.json (one agent with a static-secret custom
// tool and dataCollections ['notes']) is seeded through PATCH agents and approved, the secret is
// stored through the integration settings route. Then the trigger flow: create → startOnly →
// the model calls the custom tool (the worker's broker → the web's tool-execute → the provider
// with the secret header and the input) and the data tool, then answers → the completion
// callback stores the run (summary, UI messages) and publishes one compact run.completed event;
// the note lands in the draft data scope. A canary secret (echoed back by the provider) and the
// internal and turn tokens never appear in any web or worker reply, SSE stream, the stored
// transcript, the model's requests, the logs, the data dirs or the runtime's environment and
// files; nor does the run's capability (the worker's, for the web's internal routes). Then staleness in the same flow: a semantic PATCH after the approval → a new run's
// custom tool (and data tool) get failed tool results (approval_stale) while the run completes;
// re-approval → the tool runs again.
//
// Draft runs throughout: staleness applies only to the draft (a published run keeps the payload
// approved at publish, docs/app-runtime.md "Staleness"), so one kind of run covers both halves of
// the flow; the published data scope is checked to stay empty.
//
// Usage: node e2e-app-agent-flow.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { harness, SseReader, runCapability, secretsKeyOf } from './harness.mjs';

const args = process.argv.slice(2);
const opt = (name) => args[args.indexOf(name) + 1];
const buildDir = path.resolve(opt('--build'));
const projectDir = path.resolve(opt('--project'));
const { tmp, check, start, run } = harness('platform-app-agent-flow-');

const CANARY_KEY = `canary-flow-key-${crypto.randomBytes(8).toString('hex')}`;
const INTERNAL = `canary-internal-${crypto.randomBytes(24).toString('hex')}`;
const DEAL = 'D-4711';

// ---- the local provider ------------------------------------------------------------------------
const seen = [];  // every request: {path, headers}
const providerWaiters = [];
function startProvider() {
  const srv = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const url = new URL(req.url, 'http://x');
      seen.push({ path: url.pathname, headers: req.headers });
      for (const w of providerWaiters.splice(0)) w();
      const send = (status, obj) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(obj));
      };
      const m = url.pathname.match(/^\/deals\/([^/]+)$/);
      if (!m) return send(404, { error: 'not found' });
      if (req.headers['x-api-key'] !== CANARY_KEY) return send(401, { error: 'bad key' });
      // Echoes the key, as careless providers do: the server must scrub it.
      return send(200, { deal: { id: decodeURIComponent(m[1]), stage: 'won', amount: 1200 }, echo: `key ${CANARY_KEY}` });
    });
  });
  return new Promise((resolve) => srv.listen(0, '127.0.0.1', () => resolve(srv)));
}

// ---- the scripted model ------------------------------------------------------------------------
// Every run: the custom tool with the deal id, then a note through the data tool, then the
// answer. The first reply holds at a pause (released once, for good) so the live runtime can be
// inspected.
const usage = { input_tokens: 100, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 5 };
const scenario = {
  turns: [
    { blocks: [{ type: 'pause', name: 'first' },
      { type: 'tool_use', id: 'toolu_deal', name: 'mcp__app_tools__lookup_deal', input: { input: JSON.stringify({ dealId: DEAL }) } }],
    stop_reason: 'tool_use', usage },
    { blocks: [{ type: 'tool_use', id: 'toolu_note', name: 'mcp__app_data__update_app_data',
      input: { collection: 'notes', op: 'insert', data: { deal: DEAL, by: 'agent' } } }],
    stop_reason: 'tool_use', usage },
    { blocks: [{ type: 'text', text: `Deal ${DEAL} looked up and noted.` }], stop_reason: 'end_turn', usage },
  ],
  aux: { blocks: [{ type: 'text', text: 'Title' }], stop_reason: 'end_turn' },
};

function agentsDoc(base, { systemPrompt = 'You look up deals and note them.' } = {}) {
  return {
    agents: [{
      id: 'dealer', name: 'Dealer', description: 'Looks up deals.', systemPrompt,
      tools: [{
        type: 'custom', name: 'lookup_deal', description: 'Looks up one deal; input {"dealId"}.', enabled: true,
        recommended: false,
        integration: { name: 'Deals', domain: '127.0.0.1', keySlug: 'deals' },
        endpoint: { method: 'GET', url: `${base}/deals/{{dealId}}`, headers: { 'X-Api-Key': '{{secrets.API_KEY}}' } },
        mockData: [{ deal: { id: 'mock-1' } }, { deal: { id: 'mock-2' } }, { deal: { id: 'mock-3' } }],
      }],
      dataCollections: ['notes'],
    }],
  };
}

// ---- helpers -------------------------------------------------------------------------------------
function descendantsOf(pid) {
  const parent = new Map();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      parent.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch { /* gone meanwhile */ }
  }
  const out = [];
  const todo = [pid];
  while (todo.length) {
    const p = todo.pop();
    for (const [c, pp] of parent) if (pp === p) { out.push(c); todo.push(c); }
  }
  return out;
}

function filesUnder(dir) {
  const out = [];
  if (!fs.existsSync(dir)) return out;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

// A condition met by a change of state (a provider request, a stream event): no fixed sleeps.
const providerCalls = () => seen.filter((r) => r.path.startsWith('/deals/')).length;

async function main() {
  const provider = await startProvider();
  const port = provider.address().port;
  const base = `http://127.0.0.1:${port}`;

  fs.writeFileSync(path.join(tmp, 'scenario.json'), JSON.stringify(scenario));
  const model = await start('model', 'python3', [path.join(projectDir, 'tests/model_server/model_server.py'),
    '--script', path.join(tmp, 'scenario.json'), '--port', '0', '--log', path.join(tmp, 'requests.jsonl'),
    '--idle-exit', '600'], {}, /^(\d+)\n/m);
  const modelUrl = `http://127.0.0.1:${model.match[1]}`;
  const workerTmp = path.join(tmp, 'worker-tmp');
  fs.mkdirSync(workerTmp);
  // No PLATFORM_WEB_URL: the worker's internal calls go to the callback's loopback origin, the
  // web server the run came from (as in e2e-app-agent-runs.mjs).
  const workerStarted = await start('worker', path.join(buildDir, 'servers/worker/platform-worker'), [], {
    PLATFORM_WORKER_PORT: '0',
    PLATFORM_DATA_DIR: path.join(tmp, 'worker-data'),
    TMPDIR: workerTmp,
    INTERNAL_API_TOKEN: INTERNAL,
    PLATFORM_CODEX_TRACE: '1',
    ANTHROPIC_BASE_URL: modelUrl,
    ANTHROPIC_API_KEY: 'scripted-model-key',
    CLAUDE_CODE_MAX_RETRIES: '0',
  }, /listening on (http:\S+)/);
  const worker = workerStarted.match[1];
  const workerPid = workerStarted.child.pid;
  const web = (await start('web', path.join(buildDir, 'servers/web/platform-web'), [], {
    PLATFORM_WEB_PORT: '0',
    PLATFORM_DATA_DIR: path.join(tmp, 'web-data'),
    PLATFORM_WORKER_URL: worker,
    INTERNAL_API_TOKEN: INTERNAL,
    PLATFORM_HTTP_ACTION_ALLOW: `127.0.0.1:${port}`,
    PLATFORM_SSE_HEARTBEAT_MS: '500',
  }, /listening on (http:\S+)/)).match[1];

  // Every reply body of web and worker, every SSE stream read: the canary check reads them all.
  const replies = [];
  const streams = [];
  const call = async (method, url, body, headers = {}) => {
    const h = { ...headers };
    if (body !== undefined) h['content-type'] = 'application/json';
    const res = await fetch(url, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    replies.push(text, JSON.stringify([...res.headers]));
    let json;
    try { json = JSON.parse(text); } catch { json = undefined; }
    return { status: res.status, json, text };
  };
  const ok = (r, status = 200) => {
    assert.equal(r.status, status, r.text);
    return r.json;
  };
  const W = (method, p, body) => call(method, web + p, body);
  // The capability the web mints for an agent run and checks on its internal routes.
  const capabilityOf = (runId) => runCapability(secretsKeyOf(path.join(tmp, 'web-data')), 'agent', ws, app, runId);

  const ws = ok(await W('POST', '/api/workspaces', { name: 'Flow' }), 201).id;
  const app = ok(await W('POST', `/api/workspaces/${ws}/apps`, { name: 'Deals' }), 201).id;
  const appPath = `/api/workspaces/${ws}/apps/${app}`;
  const runsPath = `${appPath}/agent-runs`;

  const events = new SseReader(await fetch(`${web}/api/workspaces/${ws}/events`), { payload: true });
  streams.push(events);
  const runEvents = (runId) => events.events.map((e) => JSON.parse(e)).filter((e) => e.runId === runId);
  const dataEvents = new SseReader(await fetch(`${web}${appPath}/data-events?scope=draft`), { payload: true });
  streams.push(dataEvents);

  const approve = async () => {
    const view = ok(await W('GET', `${appPath}/agents`));
    ok(await W('POST', `${appPath}/agents/approval`, { approvalHash: view.draftHash ?? view.hash }));
    return ok(await W('GET', `${appPath}/agents`));
  };
  const notes = async (scope) => ok(await W('GET', `${appPath}/data/notes?scope=${scope}`)).documents;

  // One draft run of the agent, triggered and started the way the parent page does.
  const trigger = async (prompt) => {
    const created = ok(await W('POST', runsPath, { agentId: 'dealer', prompt, draft: true }), 201);
    assert.equal(created.status, 'pending');
    const started = ok(await W('POST', `${runsPath}/${created.id}/stream?startOnly=1`), 202);
    assert.deepEqual(started, { runId: created.id, status: 'running', started: true });
    return created.id;
  };
  const completed = async (runId) => {
    await events.until(() => runEvents(runId).length > 0);
    return runEvents(runId)[0];
  };
  const toolResults = (messages) => messages.flatMap((m) => m.parts ?? [])
    .filter((p) => typeof p.type === 'string' && (p.type.startsWith('tool-') || p.type === 'dynamic-tool'));
  const partName = (p) => p.toolName ?? p.type.slice('tool-'.length);

  // ---- setup: agents.json, approval, the secret --------------------------------------------------
  await check('setup: agents.json seeded and approved, the secret stored write-only', async () => {
    const patched = ok(await W('PATCH', `${appPath}/agents`, agentsDoc(base)));
    assert.equal(patched.valid, true, JSON.stringify(patched.problems));
    const view = await approve();
    assert.equal(view.approvalStatus, 'approved');
    assert.equal(view.toolsAllowed, true);
    ok(await W('PUT', `${appPath}/integrations/secrets`, { domain: '127.0.0.1', keySlug: 'deals', name: 'API_KEY', value: CANARY_KEY }));
    const listed = JSON.stringify(ok(await W('GET', `${appPath}/integrations`)));
    assert.match(listed, /API_KEY/);
  });

  // ---- the main run --------------------------------------------------------------------------------
  const callsBefore = providerCalls();
  const runA = await trigger(`Look up deal ${DEAL} and note it`);
  let turnToken;

  await check('while the run is live: the runtime holds no secret or internal token in its env or files', async () => {
    // The model holds its first reply: the runtime is up with its grant. Find its turn config.
    // Polling for the file to appear whole (the worker may be writing it), not timing.
    const [cfgFile, mcp] = await (async () => {
      for (;;) {
        // Each jailed runtime's private HOME: <data>/sandboxes/<turn>/home (docs/security.md).
        const jails = path.join(tmp, 'worker-data', 'sandboxes');
        const f = (fs.existsSync(jails) ? fs.readdirSync(jails) : [])
          .map((d) => path.join(jails, d, 'home', 'platform-mcp.json')).find((p) => fs.existsSync(p));
        if (f) {
          try {
            return [f, JSON.parse(fs.readFileSync(f, 'utf8'))];
          } catch {
            // not written whole yet
          }
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    assert.deepEqual(Object.keys(mcp.mcpServers).sort(), ['app_data', 'app_tools']);
    turnToken = mcp.mcpServers.app_tools.headers.Authorization.slice('Bearer '.length);
    assert.match(turnToken, /^[0-9a-f]{64}$/);
    const s = ok(await W('GET', `${runsPath}/${runA}`));
    assert.ok(['running', 'streaming'].includes(s.status), s.status);
    const kids = descendantsOf(workerPid);
    assert.ok(kids.length >= 1, 'the runtime runs');
    let read = 0;
    for (const pid of kids) {
      let env;
      try { env = fs.readFileSync(`/proc/${pid}/environ`, 'utf8'); } catch { continue; }
      read += 1;
      for (const c of [CANARY_KEY, INTERNAL, capabilityOf(runA)]) assert.ok(!env.includes(c), `runtime env (pid ${pid}) holds a canary`);
      assert.ok(!env.includes('INTERNAL_API_TOKEN') && !env.includes('PLATFORM_HTTP_ACTION_ALLOW'));
    }
    assert.ok(read >= 1, 'the runtime environment was read');
    for (const f of filesUnder(path.dirname(cfgFile))) {
      const text = fs.readFileSync(f, 'utf8');
      for (const c of [CANARY_KEY, INTERNAL, capabilityOf(runA)]) assert.ok(!text.includes(c), `${f} holds a canary`);
    }
    assert.equal(providerCalls(), callsBefore, 'nothing called the provider yet');
  });

  ok(await call('POST', `${modelUrl}/control/release/first`, {}));
  const evA = await completed(runA);

  await check('the provider got the call: the input in the path, the secret in the header', async () => {
    assert.equal(providerCalls(), callsBefore + 1);
    const req = seen.filter((r) => r.path.startsWith('/deals/')).at(-1);
    assert.equal(req.path, `/deals/${DEAL}`);
    assert.equal(req.headers['x-api-key'], CANARY_KEY);
  });

  await check('completion: one compact run.completed event, ids and status only', async () => {
    assert.deepEqual(evA, { type: 'run.completed', workspaceId: ws, appId: app, runId: runA, kind: 'agent', status: 'completed' });
  });

  await check('the summary: completed with the answer, no transcript', async () => {
    const s = ok(await W('GET', `${runsPath}/${runA}`));
    assert.equal(s.status, 'completed');
    assert.equal(s.draft, true);
    assert.equal(s.sourceVersion, 'draft');
    assert.match(s.result, new RegExp(`Deal ${DEAL} looked up and noted\\.`));
    assert.equal(s.error, null);
    assert.equal(s.activeStreamId, null);
    assert.ok(!('transcript' in s) && !('messages' in s));
    // The spec's record carries the runtime's session: Claude Code's own session id (a UUID).
    assert.match(String(s.sessionId), /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, `sessionId ${s.sessionId}`);
  });

  let messagesA;
  await check('the stored UI messages hold the tool result (redacted) and the data write', async () => {
    const m = ok(await W('GET', `${runsPath}/${runA}/messages`));
    assert.equal(m.status, 'completed');
    assert.equal(m.messages.length, 1);
    assert.equal(m.messages[0].role, 'assistant');
    messagesA = m.messages;
    const parts = toolResults(m.messages);
    const deal = parts.find((p) => partName(p) === 'mcp__app_tools__lookup_deal');
    assert.ok(deal, JSON.stringify(m.messages[0].parts.map((p) => p.type)));
    assert.equal(deal.state, 'output-available', JSON.stringify(deal));
    const out = JSON.stringify(deal.output);
    assert.match(out, /won/);
    assert.match(out, new RegExp(DEAL));
    assert.match(out, /REDACTED/, 'the echoed key is replaced');
    const note = parts.find((p) => partName(p) === 'mcp__app_data__update_app_data');
    assert.ok(note);
    assert.equal(note.state, 'output-available', JSON.stringify(note));
    const text = m.messages[0].parts.filter((p) => p.type === 'text').map((p) => p.text).join('');
    assert.match(text, /looked up and noted/);
  });

  await check('the data write landed in the draft scope of this app only', async () => {
    const draft = await notes('draft');
    assert.equal(draft.length, 1);
    assert.deepEqual(draft[0].data, { deal: DEAL, by: 'agent' });
    assert.equal((await notes('published')).length, 0);
    await dataEvents.until((e) => e.some((x) => x.includes('"data.change"')));
    const change = JSON.parse(dataEvents.events.find((x) => x.includes('"data.change"')));
    assert.equal(change.op, 'insert');
    assert.equal(change.docId, draft[0].id);
    assert.equal(change.scope, 'draft');
  });

  await check('the finished run streams whole from its transcript; the worker replays its buffer', async () => {
    const viewer = new SseReader(await fetch(`${web}${runsPath}/${runA}/stream`), { payload: true });
    streams.push(viewer);
    const whole = await viewer.toEnd();
    assert.ok(whole.some((e) => e.includes('looked up and noted')));
    const res = await fetch(`${worker}/sessions/${app}__agent__${runA}/agent-run/${runA}/events`,
      { headers: { authorization: `Bearer ${INTERNAL}` } });
    assert.equal(res.status, 200);
    const replay = new SseReader(res, { payload: true });
    streams.push(replay);
    const all = await replay.toEnd();
    assert.ok(all.some((e) => e.includes('tool_result')), 'the worker buffer holds the tool results');
    replies.push(JSON.stringify(ok(await call('GET', `${worker}/health`))));
  });

  // ---- staleness -----------------------------------------------------------------------------------
  await check('a semantic PATCH after the approval makes it stale', async () => {
    const patched = ok(await W('PATCH', `${appPath}/agents`,
      agentsDoc(base, { systemPrompt: 'You look up deals, note them and say so.' })));
    assert.equal(patched.valid, true, JSON.stringify(patched.problems));
    const view = ok(await W('GET', `${appPath}/agents`));
    assert.equal(view.approvalStatus, 'stale');
    assert.equal(view.toolsAllowed, false);
  });

  const callsBeforeB = providerCalls();
  const runB = await trigger(`Look up deal ${DEAL} again`);
  const evB = await completed(runB);

  await check('stale: the run completes, its custom tool and data tool get failed results (approval_stale)', async () => {
    assert.deepEqual(evB, { type: 'run.completed', workspaceId: ws, appId: app, runId: runB, kind: 'agent', status: 'completed' });
    assert.equal(providerCalls(), callsBeforeB, 'the provider was not called');
    const s = ok(await W('GET', `${runsPath}/${runB}`));
    assert.equal(s.status, 'completed');
    const m = ok(await W('GET', `${runsPath}/${runB}/messages`));
    const parts = toolResults(m.messages);
    const deal = parts.find((p) => partName(p) === 'mcp__app_tools__lookup_deal');
    assert.ok(deal, JSON.stringify(m.messages));
    assert.equal(deal.state, 'output-error', JSON.stringify(deal));
    assert.match(JSON.stringify(deal), /approval_stale/);
    const note = parts.find((p) => partName(p) === 'mcp__app_data__update_app_data');
    assert.ok(note);
    assert.equal(note.state, 'output-error', JSON.stringify(note));
    assert.match(JSON.stringify(note), /approval_stale/);
    assert.equal((await notes('draft')).length, 1, 'no note was written');
    // Run A's single event: B's event came after it, so any second one for A would have too.
    assert.equal(runEvents(runA).length, 1);
  });

  await check('re-approval: a new run calls the provider again and writes its note', async () => {
    const view = await approve();
    assert.equal(view.approvalStatus, 'approved');
    assert.equal(view.toolsAllowed, true);
    const before = providerCalls();
    const runC = await trigger(`Look up deal ${DEAL} once more`);
    const evC = await completed(runC);
    assert.deepEqual(evC, { type: 'run.completed', workspaceId: ws, appId: app, runId: runC, kind: 'agent', status: 'completed' });
    assert.equal(providerCalls(), before + 1);
    assert.equal(seen.at(-1).headers['x-api-key'], CANARY_KEY);
    const m = ok(await W('GET', `${runsPath}/${runC}/messages`));
    const deal = toolResults(m.messages).find((p) => partName(p) === 'mcp__app_tools__lookup_deal');
    assert.equal(deal.state, 'output-available', JSON.stringify(deal));
    assert.match(JSON.stringify(deal.output), /won/);
    assert.equal((await notes('draft')).length, 2);
    assert.equal((await notes('published')).length, 0);
    assert.equal(runEvents(runB).length, 1);
    // The duplicate callback changes nothing and publishes nothing.
    const dup = ok(await call('POST', `${web}/api/internal/agent-run-complete`,
      { workspaceId: ws, appId: app, runId: runC, status: 'failed', result: null, error: 'late', usage: null, transcript: [] },
      { authorization: `Bearer ${INTERNAL}`, 'x-run-capability': capabilityOf(runC) }));
    assert.deepEqual(dup, { ok: true, duplicate: true });
    assert.equal(ok(await W('GET', `${runsPath}/${runC}`)).status, 'completed');
    assert.equal(runEvents(runC).length, 1);
  });

  // ---- canaries ------------------------------------------------------------------------------------
  await check('canary secret and tokens: in no reply, SSE stream, transcript, model request, log or data dir', async () => {
    const secrets = [['the API key', CANARY_KEY], ['the internal token', INTERNAL], ['the turn token', turnToken],
      ['the run capability', capabilityOf(runA)]];
    const sse = streams.map((s) => s.events.join('\n')).join('\n');
    assert.ok(events.events.length >= 3 && sse.length > 0);
    const transcript = JSON.stringify(messagesA);
    const modelRequests = fs.readFileSync(path.join(tmp, 'requests.jsonl'), 'utf8');
    assert.match(modelRequests, /REDACTED/, 'the model saw the redacted tool result');
    const webLog = fs.readFileSync(path.join(tmp, 'web.log'), 'utf8');
    const workerLog = fs.readFileSync(path.join(tmp, 'worker.log'), 'utf8');
    assert.match(webLog, /tool=lookup_deal/, 'tool outcomes are logged (ids only)');
    assert.match(workerLog, /tool=mcp__app_tools__lookup_deal/, 'broker calls are traced');
    const dataFiles = [...filesUnder(path.join(tmp, 'web-data')), ...filesUnder(path.join(tmp, 'worker-data')),
      ...filesUnder(workerTmp)];
    for (const [what, c] of secrets) {
      assert.ok(!replies.some((t) => t.includes(c)), `a reply carried ${what}`);
      assert.ok(!sse.includes(c), `an SSE stream carried ${what}`);
      assert.ok(!transcript.includes(c), `the transcript carried ${what}`);
      assert.ok(!modelRequests.includes(c), `a model request carried ${what}`);
      assert.ok(!webLog.includes(c), `the web log carried ${what}`);
      assert.ok(!workerLog.includes(c), `the worker log carried ${what}`);
      // Where the servers keep a run's capability is theirs to choose; the runtime's own files
      // were searched for it while it ran. The data dirs are searched for the others.
      if (what === 'the run capability') continue;
      for (const f of dataFiles) assert.ok(!fs.readFileSync(f).includes(c), `${f} holds ${what}`);
    }
  });

  for (const s of streams) s.reader.cancel().catch(() => {});
  provider.close();
}

await run(main);
