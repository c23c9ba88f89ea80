// The builder's platform tools on platform-worker end to end: the real Claude Code CLI, driven
// by the scripted model server, calls mcp__platform__* through the worker's MCP broker in
// builder turns (POST /sessions/{appId}/messages). Covers: present_plan as an approval stop
// (the turn ends after its tool result, no further model request), present_agents with a bad
// then a good agents.json (needs_changes without a stop, then the approval card with the v1
// hash), done_building on a real Vite + React + TypeScript workspace made from the template
// (ok with a preview; a type error gives ok:false with tsc's message), and
// list_app_integration_keys / present_integration_setup against a small HTTP server standing
// in for the web server's internal routes.
//
// Usage: node e2e-builder-tools.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { harness, SseReader, use, toolTurn, endTurn, toolResult } from './harness.mjs';

const args = process.argv.slice(2);
const opt = (name) => args[args.indexOf(name) + 1];
const buildDir = path.resolve(opt('--build'));
const projectDir = path.resolve(opt('--project'));
const { tmp, check, start, run } = harness('platform-builder-tools-e2e-');
const token = 'internal-token-for-tests-0123456789abcdef';
const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
const aux = { blocks: [{ type: 'text', text: 'Title' }], stop_reason: 'end_turn' };

// ---- the web server's internal routes, as a recorder ----

const webCalls = [];
let integrationsReply = { integrations: [] };
const web = http.createServer((req, res) => {
  let body = '';
  req.on('data', (d) => { body += d; });
  req.on('end', () => {
    webCalls.push({ path: req.url, auth: req.headers.authorization, capability: req.headers['x-run-capability'],
      body: JSON.parse(body || 'null') });
    res.writeHead(200, { 'content-type': 'application/json' });
    if (req.url === '/api/internal/workspace-integrations') res.end(JSON.stringify(integrationsReply));
    else res.end('{"ok":true}');
  });
});

// ---- one model server + one worker per scenario ----

async function startPair(name, turns, env = {}) {
  const scenario = path.join(tmp, `${name}.json`);
  fs.writeFileSync(scenario, JSON.stringify({ turns, aux }));
  const log = path.join(tmp, `${name}-requests.jsonl`);
  const model = await start(`${name}-model`, 'python3', [path.join(projectDir, 'tests/model_server/model_server.py'),
    '--script', scenario, '--port', '0', '--idle-exit', '600', '--log', log], {}, /^(\d+)\n/m);
  const dataDir = dataDirOf(name);
  const worker = (await start(`${name}-worker`, path.join(buildDir, 'servers/worker/platform-worker'), [], {
    PLATFORM_WORKER_PORT: '0',
    PLATFORM_DATA_DIR: dataDir,
    PLATFORM_APP_TEMPLATE_DIR: path.join(projectDir, 'templates/app-workspace'),
    PLATFORM_WEB_URL: `http://127.0.0.1:${web.address().port}`,
    INTERNAL_API_TOKEN: token,
    ANTHROPIC_BASE_URL: `http://127.0.0.1:${model.match[1]}`,
    ANTHROPIC_API_KEY: 'scripted-model-key',
    CLAUDE_CODE_MAX_RETRIES: '0',
    ...env,
  }, /listening on (http:\S+)/)).match[1];
  // Model requests that offered tools: the builder's own turns (titles and summaries offer none).
  const toolRequests = () => fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
    .filter((r) => r.method === 'POST' && r.path.startsWith('/v1/messages') && r.body?.tools?.length > 0);
  return { worker, toolRequests };
}
const dataDirOf = (name) => path.join(tmp, `${name}-data`);
// Where the worker keeps an app's workspace (PLATFORM_DATA_DIR/workspaces/<appId>).
const workspaceOf = (name, appId) => path.join(dataDirOf(name), 'workspaces', appId);

// The run capability a builder turn of `appId` is dispatched with (any string, for the worker).
const capabilityOf = (appId) => `cap-builder-ws1-${appId}`;

// One builder turn: the worker messages of its SSE response, without [DONE].
async function turn(worker, appId, prompt) {
  const r = await fetch(`${worker}/sessions/${appId}/messages`, {
    method: 'POST', headers: auth,
    body: JSON.stringify({ runId: `run-${appId}`, workspaceId: 'ws1', prompt, systemPrompt: 'You are the app builder.',
      runCapability: capabilityOf(appId) }),
  });
  assert.equal(r.status, 200, await r.clone().text());
  const events = await new SseReader(r, { payload: true }).toEnd();
  return events.slice(0, -1).map((e) => JSON.parse(e));
}

const payloadOf = (messages, id) => {
  const r = toolResult(messages, id);
  assert.equal(r.isError, false, r.text);
  return JSON.parse(r.text);
};
const resultOf = (messages) => messages.filter((m) => m.type === 'result').at(-1);
const texts = (messages) => messages.filter((m) => m.type === 'assistant')
  .flatMap((m) => m.message.content).filter((b) => b.type === 'text').map((b) => b.text).join('');

// RFC 8785 for the plain documents used here (strings, integers, booleans, arrays, objects):
// an independent check of the worker's v1 approval hash.
const canonical = (v) => (Array.isArray(v) ? `[${v.map(canonical).join(',')}]`
  : v && typeof v === 'object' ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`
    : JSON.stringify(v));

const goodAgents = {
  agents: [{
    id: 'deal-summarizer', name: 'Deal summarizer', description: 'Summarizes open CRM deals.',
    systemPrompt: 'You summarize CRM deals.', dataCollections: ['summaries'],
    tools: [{
      type: 'custom', name: 'crm_search', displayName: 'Search deals', description: 'Searches CRM deals by stage.',
      enabled: true, recommended: true,
      integration: { name: 'Acme CRM', domain: 'api.acme-crm.example', keySlug: 'default' },
      endpoint: { method: 'GET', url: 'https://api.acme-crm.example/v1/deals',
        headers: { 'X-Api-Key': '{{secrets.ACME_API_KEY}}' }, queryParams: { stage: '{{stage}}' } },
      mockData: [{ deals: [] }, { deals: [{ id: 'd1' }] }, { deals: [{ id: 'd2' }] }],
    }],
  }],
};
// The same tool without its endpoint: present_agents must refuse it.
const badAgents = structuredClone(goodAgents);
delete badAgents.agents[0].tools[0].endpoint;

const setupFile = {
  integrations: [{
    name: 'Acme CRM', domain: 'api.acme-crm.example', keySlug: 'default', keyName: 'Acme CRM key',
    capabilityLabel: 'Read deals', why: 'The summarizer reads open deals.',
    permissionGroups: [{ name: 'Deals', description: 'Read deals', permissions: ['deals:read'] }],
    secrets: [{ name: 'ACME_API_KEY', label: 'API key', description: 'From the Acme admin console' }],
    setupInstructions: { overview: 'Create a key.', steps: [{ title: 'Open settings', url: 'https://acme-crm.example/settings' }], links: [] },
  }],
};

const counterTsx = `import { useState } from 'react';
import { Button } from './Button.tsx';

export function Counter() {
  const [count, setCount] = useState(0);
  return <Button onClick={() => setCount(count + 1)}>Clicked {count} times</Button>;
}
`;
const appTsx = `import { Counter } from './components/Counter.tsx';

export default function App() {
  return (
    <main className="p-8">
      <h1 className="text-2xl font-bold">Counter app</h1>
      <Counter />
    </main>
  );
}
`;
const brokenTsx = `export const total: number = 'not a number';
`;

async function main() {
  await new Promise((r) => web.listen(0, '127.0.0.1', r));

  await check('present_plan: a bad call is a tool error; the card payload ends the turn with no further model request', async () => {
    const plan = { title: 'Counter app', summary: 'A page with a counter.', steps: ['Add a Counter component', 'Show it in App'] };
    const pair = await startPair('plan', [
      toolTurn(use('toolu_plan_bad', 'mcp__platform__present_plan', { title: 'Counter app' })),
      toolTurn({ type: 'text', text: 'Here is the plan.' }, use('toolu_plan', 'mcp__platform__present_plan', plan)),
      // A request the CLI may still send after the card is held here, so its text can never
      // reach the turn even if the worker's stop races it.
      { blocks: [{ type: 'pause', name: 'after-stop' }, { type: 'text', text: 'AFTER THE STOP' }], stop_reason: 'end_turn' },
    ]);
    const msgs = await turn(pair.worker, 'app-plan', 'Build a counter app');
    const init = msgs.find((m) => m.type === 'system' && m.subtype === 'init');
    for (const name of ['present_plan', 'present_agents', 'list_app_integration_keys', 'present_integration_setup', 'add_packages', 'done_building']) {
      assert.ok(init.tools.includes(`mcp__platform__${name}`), `${name} offered: ${init.tools}`);
    }
    const bad = toolResult(msgs, 'toolu_plan_bad');
    assert.equal(bad.isError, true);
    assert.match(bad.text, /"steps" is required/);
    const card = payloadOf(msgs, 'toolu_plan');
    assert.deepEqual(card, { status: 'awaiting_approval', card: 'plan', ...plan, message: card.message });
    const result = resultOf(msgs);
    assert.equal(result.stop_reason, 'approval_stop');
    assert.ok(!texts(msgs).includes('AFTER THE STOP'));
    // Every offered tool has a strict object schema.
    const offered = pair.toolRequests()[0].body.tools.filter((t) => t.name.startsWith('mcp__platform__'));
    assert.equal(offered.length, 6);
    for (const t of offered) {
      assert.equal(t.input_schema.type, 'object', t.name);
      assert.equal(t.input_schema.additionalProperties, false, t.name);
      assert.ok(t.description.length > 80, t.name);
    }
    assert.equal(result.num_turns, 1);
  });

  await check('present_agents: a bad agents.json needs changes (no stop); a good one is an approval card with the v1 hash', async () => {
    const ws = workspaceOf('agents', 'app-agents');
    const turns = [
      toolTurn(use('toolu_w1', 'Write', { file_path: path.join(ws, 'agents.json'), content: JSON.stringify(badAgents, null, 2) })),
      toolTurn(use('toolu_pa1', 'mcp__platform__present_agents', {})),
      toolTurn(use('toolu_fix', 'Bash', { command: `cat > agents.json <<'EOF'\n${JSON.stringify(goodAgents, null, 2)}\nEOF`, description: 'Fix agents.json' })),
      toolTurn(use('toolu_pa2', 'mcp__platform__present_agents', {})),
      endTurn('AFTER THE AGENTS CARD'),
    ];
    const pair = await startPair('agents', turns);
    const msgs = await turn(pair.worker, 'app-agents', 'Add a deal summarizer agent');
    const fixIt = payloadOf(msgs, 'toolu_pa1');
    assert.equal(fixIt.status, 'needs_changes');
    assert.match(fixIt.message, /fix agents\.json then call present_agents again/);
    assert.ok(fixIt.problems.length > 0);
    assert.ok(fixIt.problems.some((p) => p.path.startsWith('agents[0].tools[0]') && /endpoint/.test(`${p.path} ${p.message}`)),
      JSON.stringify(fixIt.problems));
    const card = payloadOf(msgs, 'toolu_pa2');
    assert.equal(card.status, 'awaiting_approval');
    assert.equal(card.card, 'agents');
    const expected = `v1:${crypto.createHash('sha256').update(canonical(goodAgents)).digest('hex')}`;
    assert.equal(card.approvalHash, expected);
    assert.equal(card.agents[0].id, 'deal-summarizer');
    assert.deepEqual(card.agents[0].tools[0].integration, { name: 'Acme CRM', domain: 'api.acme-crm.example', keySlug: 'default' });
    assert.equal(card.agents[0].tools[0].auth, 'secrets');
    assert.ok(!JSON.stringify(card).includes('You summarize CRM deals.'), 'the card summarizes, it does not echo prompts');
    assert.equal(resultOf(msgs).stop_reason, 'approval_stop');
    assert.ok(!texts(msgs).includes('AFTER THE AGENTS CARD'));
    // needs_changes let the turn go on: the model saw the fix-it result and fixed the file.
    assert.equal(pair.toolRequests().length, 4);
  });

  await check('done_building: a new workspace from the template builds with a preview; a type error gives tsc\'s message', async () => {
    const ws = workspaceOf('build', 'app-build');
    const turns = [
      toolTurn(use('toolu_read', 'Read', { file_path: path.join(ws, 'src/App.tsx') })),
      toolTurn(use('toolu_w_app', 'Write', { file_path: path.join(ws, 'src/App.tsx'), content: appTsx }),
        use('toolu_w_counter', 'Write', { file_path: path.join(ws, 'src/components/Counter.tsx'), content: counterTsx })),
      toolTurn(use('toolu_done1', 'mcp__platform__done_building', { summary: 'A counter app.' })),
      toolTurn(use('toolu_w_broken', 'Write', { file_path: path.join(ws, 'src/components/Broken.tsx'), content: brokenTsx })),
      toolTurn(use('toolu_done2', 'mcp__platform__done_building', {})),
      endTurn('Finished.'),
    ];
    const pair = await startPair('build', turns);
    const msgs = await turn(pair.worker, 'app-build', 'Build a counter app');
    const ok = payloadOf(msgs, 'toolu_done1');
    assert.equal(ok.ok, true, JSON.stringify(ok).slice(0, 2000));
    assert.equal(ok.summary, 'A counter app.');
    assert.equal(ok.preview.entry, 'dist/index.html');
    assert.match(ok.preview.digest, /^sha256:[0-9a-f]{64}$/);
    assert.ok(ok.preview.files.some((f) => f.path === 'index.html'));
    assert.ok(ok.preview.files.some((f) => /^assets\/.+\.js$/.test(f.path) && f.bytes > 1000));
    assert.ok(fs.lstatSync(path.join(ws, 'node_modules')).isSymbolicLink(), 'node_modules is the shared template tree');
    const html = fs.readFileSync(path.join(ws, 'dist/index.html'), 'utf8');
    assert.match(html, /<script type="module"[^>]*src="\.\/assets\//);
    const js = ok.preview.files.find((f) => /^assets\/.+\.js$/.test(f.path));
    assert.ok(fs.readFileSync(path.join(ws, 'dist', js.path), 'utf8').includes('Clicked'));

    const failed = payloadOf(msgs, 'toolu_done2');
    assert.equal(failed.ok, false);
    assert.equal(failed.typecheck.ok, false);
    assert.match(failed.typecheck.output, /Broken\.tsx\(1,14\): error TS2322/);
    assert.equal(failed.typecheck.truncated, false);
    assert.equal(typeof failed.build.ok, 'boolean');
    assert.equal(typeof failed.build.output, 'string');
    assert.notEqual(resultOf(msgs).stop_reason, 'approval_stop');
    assert.ok(texts(msgs).includes('Finished.'));
  });

  await check('integration keys are metadata only; the setup is validated and synced with the internal token', async () => {
    integrationsReply = { integrations: [{
      name: 'Acme CRM', domain: 'api.acme-crm.example', keySlug: 'default', configured: true,
      secrets: [{ name: 'ACME_API_KEY', configured: true, value: 'super-secret-value-123' }],
      accessToken: 'tok-should-not-pass', note: 'Bearer should-not-pass',
    }] };
    const ws = workspaceOf('integrations', 'app-int');
    const turns = [
      toolTurn(use('toolu_pis0', 'mcp__platform__present_integration_setup', {})),
      toolTurn(use('toolu_keys', 'mcp__platform__list_app_integration_keys', {})),
      toolTurn(use('toolu_w_setup', 'Write', { file_path: path.join(ws, 'integration-setup.json'), content: JSON.stringify(setupFile, null, 2) })),
      toolTurn(use('toolu_pis', 'mcp__platform__present_integration_setup', {})),
      endTurn('Setup presented.'),
    ];
    const pair = await startPair('integrations', turns);
    webCalls.length = 0;
    const msgs = await turn(pair.worker, 'app-int', 'Connect Acme CRM');
    const missing = payloadOf(msgs, 'toolu_pis0');
    assert.equal(missing.status, 'needs_changes');
    assert.equal(missing.problems[0].code, 'file_missing');

    const keys = toolResult(msgs, 'toolu_keys');
    assert.equal(keys.isError, false, keys.text);
    assert.ok(!keys.text.includes('super-secret-value-123'));
    assert.ok(!keys.text.includes('should-not-pass'));
    const listed = JSON.parse(keys.text);
    assert.equal(listed.count, 1);
    assert.deepEqual(listed.integrations[0].secrets, [{ name: 'ACME_API_KEY', configured: true }]);

    const presented = payloadOf(msgs, 'toolu_pis');
    assert.equal(presented.status, 'presented');
    assert.equal(presented.card, 'integration_setup');
    assert.deepEqual(presented.integrations[0].secrets, ['ACME_API_KEY']);
    assert.notEqual(resultOf(msgs).stop_reason, 'approval_stop', 'the setup card is not an approval stop');
    assert.ok(texts(msgs).includes('Setup presented.'));

    assert.deepEqual(webCalls.map((c) => c.path), ['/api/internal/workspace-integrations', '/api/internal/integration-requirements']);
    for (const c of webCalls) assert.equal(c.auth, `Bearer ${token}`);
    for (const c of webCalls) assert.equal(c.capability, capabilityOf('app-int'), `${c.path} carries the turn's X-Run-Capability`);
    assert.deepEqual(webCalls[0].body, { workspaceId: 'ws1', appId: 'app-int', runId: 'run-app-int' });
    const sync = webCalls[1].body;
    assert.equal(sync.workspaceId, 'ws1');
    assert.equal(sync.appId, 'app-int');
    assert.equal(sync.runId, 'run-app-int');
    assert.equal(sync.setup.integrations[0].domain, 'api.acme-crm.example');
    assert.equal(sync.setup.integrations[0].keySlug, 'default');
    assert.deepEqual(sync.setup.integrations[0].secrets[0],
      { name: 'ACME_API_KEY', label: 'API key', description: 'From the Acme admin console', required: true });
    assert.deepEqual(sync.setup.integrations[0].permissionGroups[0].permissions, ['deals:read']);
  });

  await check('an unreachable web server is a clear tool error', async () => {
    const pair = await startPair('noweb', [
      toolTurn(use('toolu_keys', 'mcp__platform__list_app_integration_keys', {})),
      endTurn('Could not list keys.'),
    ], { PLATFORM_WEB_URL: 'http://127.0.0.1:9' });
    const msgs = await turn(pair.worker, 'app-noweb', 'List keys');
    const r = toolResult(msgs, 'toolu_keys');
    assert.equal(r.isError, true);
    assert.match(r.text, /web server could not be reached/);
  });
}

await run(main);
