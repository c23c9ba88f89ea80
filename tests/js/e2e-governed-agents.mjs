// Governed agents end to end: platform-web (external auth, roles from memberships) +
// platform-worker + the real Claude Code CLI on the scripted model server. A builder turn
// writes agents.json with the Write tool and stops at present_agents; the draft snapshot
// follows it. A draft without a build is never published (409 no_build, before not_approved;
// also when a review is approved); the next turn of the run writes the app and builds it
// with done_building. Then roles on GET/PATCH/approval/publish, approval of the exact payload,
// an edit that makes the approval stale, re-approval and publish.
//
// Usage: node e2e-governed-agents.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { harness, identityProvider, use, toolTurn, endTurn, runCapability, secretsKeyOf, SseReader } from './harness.mjs';

const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const buildDir = path.resolve(opt('--build') ?? 'build');
const projectDir = path.resolve(opt('--project') ?? '.');
const { tmp, check, start, run } = harness('platform-governed-');

const { token, issuer, audience, secret } = identityProvider();

// RFC 8785 for the plain documents used here: an independent check of the v1 hash.
const canonical = (v) => (Array.isArray(v) ? `[${v.map(canonical).join(',')}]`
  : v && typeof v === 'object' ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`
    : JSON.stringify(v));
const v1 = (doc) => `v1:${crypto.createHash('sha256').update(canonical(doc)).digest('hex')}`;

const agentsV1 = {
  // An app action the page calls (its failure for missing input is the app's to fix: a builder repair).
  appTools: [{
    type: 'custom', name: 'deal_lookup', description: 'Looks up deals by stage.', enabled: true, recommended: true,
    integration: { name: 'Acme CRM', domain: 'api.acme-crm.example', keySlug: 'default' },
    endpoint: { method: 'GET', url: 'https://api.acme-crm.example/v1/deals', queryParams: { stage: '{{stage}}' } },
    mockData: [{ deals: [] }, { deals: [{ id: 'd1' }] }, { deals: [{ id: 'd2' }] }],
  }],
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
const agentsV2 = structuredClone(agentsV1);
agentsV2.agents[0].systemPrompt = 'You summarize CRM deals in one paragraph.';

// What the builder's second turn writes (with a shell command) before done_building builds it.
const appTsx = `export default function App() {
  return <main className="p-8"><h1 className="text-2xl font-bold">Open deals</h1></main>;
}
`;


// The present_agents card inside a tool output, however the MCP result wraps it.
function findCard(v) {
  if (typeof v === 'string') {
    try { return findCard(JSON.parse(v)); } catch { return undefined; }
  }
  if (v && typeof v === 'object') {
    if (typeof v.approvalHash === 'string') return v;
    for (const x of Object.values(v)) {
      const found = findCard(x);
      if (found) return found;
    }
  }
  return undefined;
}

function assertError(r, status, code) {
  assert.equal(r.status, status, r.text);
  assert.equal(typeof r.json?.error?.message, 'string', r.text);
  if (code) assert.equal(r.json.error.code, code, r.text);
}

// A free loopback port: the model server starts only once the app (and so the path the
// scripted Write tool writes to) exists, but the worker needs its address from the start.
function freePort() {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function main() {
  const dataDir = path.join(tmp, 'data');
  const modelPort = await freePort();
  const worker = await start('worker', path.join(buildDir, 'servers/worker/platform-worker'), [], {
    PLATFORM_WORKER_PORT: '0',
    PLATFORM_DATA_DIR: dataDir,
    ANTHROPIC_BASE_URL: `http://127.0.0.1:${modelPort}`,
    ANTHROPIC_API_KEY: 'scripted-model-key',
    CLAUDE_CODE_MAX_RETRIES: '0',
  }, /listening on (http:\S+)/);
  const web = (await start('web', path.join(buildDir, 'servers/web/platform-web'), [], {
    PLATFORM_WEB_PORT: '0',
    PLATFORM_DATA_DIR: dataDir,
    PLATFORM_WORKER_URL: worker.match[1],
    PLATFORM_AUTH_MODE: 'external',
    PLATFORM_JWT_ISSUER: issuer,
    PLATFORM_JWT_AUDIENCE: audience,
    PLATFORM_JWT_HS256_SECRET: secret,
  }, /listening on (http:\S+)/)).match[1];

  const call = async (who, method, p, body) => {
    const headers = { authorization: `Bearer ${token(who)}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(web + p, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let json;
    try { json = JSON.parse(text); } catch { json = undefined; }
    return { status: res.status, json, text };
  };
  const ok = (r, status = 200) => {
    assert.equal(r.status, status, r.text);
    return r.json;
  };

  // owner creates the workspace; admin, a collaborator who creates the app, another
  // collaborator and a viewer join it.
  const ws = ok(await call('owner', 'POST', '/api/workspaces', { name: 'Governed' }), 201).id;
  for (const [userId, role] of [['admin', 'admin'], ['creator', 'collaborator'], ['collab', 'collaborator'], ['viewer', 'viewer']]) {
    await call(userId, 'GET', '/api/workspaces');  // records the user
    ok(await call('owner', 'POST', `/api/workspaces/${ws}/members`, { userId, role }));
  }
  const app = ok(await call('creator', 'POST', `/api/workspaces/${ws}/apps`, { name: 'Deals' }), 201);
  const agentsPath = `/api/workspaces/${ws}/apps/${app.id}/agents`;
  const workspaceFile = (p) => path.join(dataDir, 'workspaces', app.id, p);

  const scenario = {
    turns: [
      toolTurn(use('toolu_write', 'Write', { file_path: workspaceFile('agents.json'), content: JSON.stringify(agentsV1, null, 2) })),
      toolTurn(use('toolu_present', 'mcp__platform__present_agents', {})),
      // The run's next turn (after the agents card): the app written and built.
      toolTurn(use('toolu_app', 'Bash', { command: `cat > src/App.tsx <<'EOF'\n${appTsx}EOF`, description: 'Write the app' })),
      toolTurn(use('toolu_build', 'mcp__platform__done_building', { summary: 'Open deals' })),
      endTurn('AFTER THE AGENTS CARD'),
    ],
    aux: { blocks: [{ type: 'text', text: 'Title' }], stop_reason: 'end_turn' },
  };
  fs.writeFileSync(path.join(tmp, 'scenario.json'), JSON.stringify(scenario));
  await start('model', 'python3', [path.join(projectDir, 'tests/model_server/model_server.py'),
    '--script', path.join(tmp, 'scenario.json'), '--port', String(modelPort), '--log', path.join(tmp, 'requests.jsonl'),
    '--idle-exit', '600'], {}, /^(\d+)\n/m);

  await check('before any builder turn: no draft agents.json, nothing approved or published', async () => {
    const g = ok(await call('collab', 'GET', agentsPath));
    assert.equal(g.scope, 'draft');
    assert.equal(g.agentsJson, null);
    assert.equal(g.approvalStatus, 'none');
    assert.equal(g.valid, false);
    assert.equal(g.problems[0].code, 'file_missing');
  });

  const appPath = `/api/workspaces/${ws}/apps/${app.id}`;
  const publishPath = `${appPath}/publish`;
  let card;
  let firstRun;
  await check('a builder turn writes agents.json with the Write tool; the draft snapshot follows the workspace', async () => {
    firstRun = ok(await call('creator', 'POST', `${appPath}/runs`, {}), 201);
    const chat = await call('creator', 'POST', `${appPath}/runs/${firstRun.id}/chat`, {
      messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Add a deal summarizer agent.' }] }],
      runtimeModel: 'claude-sonnet-4-5-20250929',
    });
    assert.equal(chat.status, 200, chat.text);
    assert.ok(!chat.text.includes('AFTER THE AGENTS CARD') && !chat.text.includes('toolu_build'), 'the approval stop ended the turn');
    const output = chat.text.split('\n').filter((l) => l.startsWith('data: {'))
      .map((l) => JSON.parse(l.slice(6))).find((c) => c.type === 'tool-output-available' && c.toolCallId === 'toolu_present');
    assert.ok(output, 'the present_agents card reached the stream');
    card = findCard(output.output);
    assert.ok(card, `an agents card in ${JSON.stringify(output.output).slice(0, 300)}`);
    assert.equal(card.approvalHash, v1(agentsV1));
    const g = ok(await call('creator', 'GET', agentsPath));
    assert.deepEqual(g.agentsJson, agentsV1);
    assert.equal(g.draftHash, card.approvalHash);
    assert.equal(g.valid, true);
    assert.deepEqual(g.agents.map((a) => a.id), ['deal-summarizer']);
    assert.equal(g.approvalStatus, 'none');
    assert.equal(g.toolsAllowed, false);
  });

  await check('roles: viewers read the published app; collaborators the draft; only admin, owner, creator patch', async () => {
    const vg = ok(await call('viewer', 'GET', agentsPath));
    assert.equal(vg.scope, 'published');
    assert.equal(vg.agentsJson, null);
    assert.equal(vg.draftHash, undefined, 'viewers never see the draft hash');
    assert.equal(ok(await call('collab', 'GET', agentsPath)).scope, 'draft');
    assertError(await call('viewer', 'PATCH', agentsPath, agentsV2), 403, 'forbidden');
    assertError(await call('collab', 'PATCH', agentsPath, agentsV2), 403, 'forbidden');
    for (const who of ['viewer', 'collab', 'creator']) {
      assertError(await call(who, 'POST', `${agentsPath}/approval`, { approvalHash: card.approvalHash }), 403, 'forbidden');
    }
    assertError(await call('collab', 'POST', `/api/workspaces/${ws}/apps/${app.id}/publish`, {}), 403, 'forbidden');
    assertError(await call('stranger', 'GET', agentsPath), 404);
  });

  // What viewers get of the app: its published agents view and the published page's build.
  const publishedState = async () => {
    const vg = ok(await call('viewer', 'GET', agentsPath));
    const shown = ok(await call('viewer', 'GET', appPath));
    return { agentsJson: vg.agentsJson, hash: vg.hash, published: vg.published, publishedPreview: shown.publishedPreview };
  };
  const nothingPublished = { agentsJson: null, hash: null, published: null, publishedPreview: null };

  await check('a draft without a build is not published: 409 no_build (before not_approved), also by approving a review; viewers get nothing', async () => {
    assert.equal(ok(await call('admin', 'GET', appPath)).preview, null, 'the turn made no build');
    assert.deepEqual(await publishedState(), nothingPublished);
    const refused = await call('admin', 'POST', publishPath, {});
    assertError(refused, 409, 'no_build');
    assert.match(refused.json.error.message, /no build/);
    assertError(await call('owner', 'POST', publishPath, {}), 409, 'no_build');
    // A review of that draft: approving it publishes nothing either, and it stays pending.
    const asked = ok(await call('collab', 'POST', `${appPath}/reviews`, { note: 'Before the build.' }), 201);
    assertError(await call('admin', 'POST', `${appPath}/reviews/${asked.id}/approve`, {}), 409, 'no_build');
    const [review] = ok(await call('creator', 'GET', `${appPath}/reviews`)).reviews;
    assert.deepEqual([review.id, review.status, review.decidedBy], [asked.id, 'pending', null]);
    assert.deepEqual(await publishedState(), nothingPublished);
    assert.equal(ok(await call('creator', 'GET', agentsPath)).published, null);
    ok(await call('admin', 'POST', `${appPath}/reviews/${asked.id}/reject`, { note: 'Nothing to publish yet.' }));
  });

  await check('the next turn of the run writes the app and done_building builds it: the draft has a build, nothing is published', async () => {
    const chatPath = `${appPath}/runs/${firstRun.id}/chat`;
    const history = ok(await call('creator', 'GET', chatPath));
    const res = await fetch(web + chatPath, {
      method: 'POST',
      headers: { authorization: `Bearer ${token('creator')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [...history.messages, { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'Now build the app.' }] }],
        runtimeModel: 'claude-sonnet-4-5-20250929' }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    await new SseReader(res, { payload: true }).toEnd();
    const after = ok(await call('creator', 'GET', chatPath));
    assert.equal(after.status, 'completed');
    const done = after.messages.flatMap((m) => m.parts).find((x) => x.toolName === 'mcp__platform__done_building');
    assert.ok(done, 'the done_building part');
    const payload = JSON.parse(done.output.filter((c) => c.type === 'text').map((c) => c.text).join(''));
    assert.equal(payload.ok, true, JSON.stringify(payload).slice(0, 2000));
    const shown = ok(await call('creator', 'GET', appPath));
    assert.equal(shown.preview?.digest, payload.preview.digest, 'the draft preview is the build done_building made');
    assert.equal(shown.publishedPreview, null);
    assert.deepEqual(await publishedState(), nothingPublished);
    // The draft's agents.json did not change: its (missing) approval neither.
    const g = ok(await call('creator', 'GET', agentsPath));
    assert.deepEqual(g.agentsJson, agentsV1);
    assert.equal(g.approvalStatus, 'none');
  });

  await check('publishing before approval is refused', async () => {
    assertError(await call('admin', 'POST', `/api/workspaces/${ws}/apps/${app.id}/publish`, {}), 409, 'not_approved');
  });

  await check('an admin approves the exact payload: another hash is 409, the shown one is recorded', async () => {
    assertError(await call('admin', 'POST', `${agentsPath}/approval`, { approvalHash: v1(agentsV2) }), 409, 'draft_changed');
    assertError(await call('admin', 'POST', `${agentsPath}/approval`, {}), 400, 'invalid_body');
    const a = ok(await call('admin', 'POST', `${agentsPath}/approval`, { approvalHash: card.approvalHash }));
    assert.equal(a.approvalStatus, 'approved');
    assert.equal(a.approvedHash, card.approvalHash);
    assert.equal(a.approvedBy, 'admin');
    assert.equal(typeof a.approvedAt, 'number');
    assert.equal(a.toolsAllowed, true);
  });

  await check('publish promotes the approved payload and the draft\'s build; viewers then see it', async () => {
    const p = ok(await call('owner', 'POST', `/api/workspaces/${ws}/apps/${app.id}/publish`, {}));
    assert.equal(p.scope, 'published');
    assert.equal(p.published.hash, card.approvalHash);
    assert.equal(p.published.publishedBy, 'owner');
    const vg = ok(await call('viewer', 'GET', agentsPath));
    assert.deepEqual(vg.agentsJson, agentsV1);
    assert.equal(vg.approvalStatus, 'approved');
    assert.equal(vg.toolsAllowed, true);
    const shown = ok(await call('owner', 'GET', appPath));
    assert.ok(shown.publishedPreview, 'the published page has a build');
    assert.equal(shown.publishedPreview.digest, shown.preview.digest);
  });

  await check('an app action failing on the published page offers no builder repair; on the draft preview its editors get one', async () => {
    const exec = (who, body) => call(who, 'POST', `/api/workspaces/${ws}/apps/${app.id}/app-tools/deal_lookup/execute`, body);
    for (const who of ['viewer', 'owner']) {
      const live = ok(await exec(who, { input: {} }));
      assert.equal(live.success, false, JSON.stringify(live));
      assert.equal(live.errorCode, 'MISSING_INPUT');
      assert.equal(live.canRequestBuilderRepair, false, `${who} on the published page`);
    }
    const draft = ok(await exec('owner', { draft: true, input: {} }));
    assert.equal(draft.errorCode, 'MISSING_INPUT');
    assert.equal(draft.canRequestBuilderRepair, true);
  });

  let patched;
  await check('the creator edits agents.json: stored in the draft and the workspace; the approval is stale', async () => {
    patched = ok(await call('creator', 'PATCH', agentsPath, agentsV2));
    assert.equal(patched.workerSynced, true);
    assert.deepEqual(patched.agentsJson, agentsV2);
    assert.equal(patched.draftHash, v1(agentsV2));
    assert.equal(patched.approvalStatus, 'stale');
    assert.equal(patched.approvedHash, card.approvalHash);
    assert.equal(patched.toolsAllowed, false);
    assert.deepEqual(JSON.parse(fs.readFileSync(workspaceFile('agents.json'), 'utf8')), agentsV2);
    assert.equal(ok(await call('collab', 'GET', agentsPath)).approvalStatus, 'stale');
    assertError(await call('admin', 'POST', `/api/workspaces/${ws}/apps/${app.id}/publish`, {}), 409, 'approval_stale');
    // The published app keeps the payload that was approved when it was published.
    assert.deepEqual(ok(await call('viewer', 'GET', agentsPath)).agentsJson, agentsV1);
  });

  await check('an invalid PATCH is stored and reported, and cannot be approved', async () => {
    const bad = structuredClone(agentsV2);
    delete bad.agents[0].tools[0].endpoint;
    const r = ok(await call('admin', 'PATCH', agentsPath, bad));
    assert.equal(r.valid, false);
    assert.ok(r.problems.length > 0);
    assertError(await call('admin', 'POST', `${agentsPath}/approval`, { approvalHash: r.draftHash }), 422, 'invalid_config');
    ok(await call('owner', 'PATCH', agentsPath, agentsV2));
  });

  await check('re-approval makes it approved again; publish promotes the new payload', async () => {
    assertError(await call('owner', 'POST', `${agentsPath}/approval`, { approvalHash: card.approvalHash }), 409, 'draft_changed');
    const a = ok(await call('owner', 'POST', `${agentsPath}/approval`, { approvalHash: v1(agentsV2) }));
    assert.equal(a.approvalStatus, 'approved');
    assert.equal(a.toolsAllowed, true);
    ok(await call('admin', 'POST', `/api/workspaces/${ws}/apps/${app.id}/publish`, {}));
    const vg = ok(await call('viewer', 'GET', agentsPath));
    assert.deepEqual(vg.agentsJson, agentsV2);
    assert.equal(vg.published.hash, v1(agentsV2));
  });

  let lastRunId;  // the app's latest builder turn: the worker's per-app routes want its capability
  await check('a worker that lost the workspace gets the draft back before the next turn; the draft survives', async () => {
    fs.rmSync(path.join(dataDir, 'workspaces', app.id), { recursive: true, force: true });
    const runs = `/api/workspaces/${ws}/apps/${app.id}/runs`;
    const run = ok(await call('creator', 'POST', runs, {}), 201);
    lastRunId = run.id;
    const chatPath = `${runs}/${run.id}/chat`;
    const body = (messages) => ({ messages, runtimeModel: 'claude-sonnet-4-5-20250929' });
    const u1 = { id: 'w1', role: 'user', parts: [{ type: 'text', text: 'Start over.' }] };
    // The scripted model's first reply writes agents.json V1 with the Write tool. On a
    // workspace rebuilt from the template that write would succeed and the turn's snapshot
    // would replace the draft; with the draft restored first, Claude Code refuses to overwrite
    // a file it has not read, and the draft stays as approved.
    const chat = await call('creator', 'POST', chatPath, body([u1]));
    assert.equal(chat.status, 200, chat.text);
    const g = ok(await call('creator', 'GET', agentsPath));
    assert.deepEqual(g.agentsJson, agentsV2, 'the draft was not replaced by a fresh template');
    assert.deepEqual(JSON.parse(fs.readFileSync(workspaceFile('agents.json'), 'utf8')), agentsV2, 'the worker has the draft again');
    assert.equal(g.approvalStatus, 'approved');
  });

  await check('worker: the source snapshot excludes dependencies and build output; file writes stay inside the workspace', async () => {
    const w = worker.match[1];
    const capability = runCapability(secretsKeyOf(dataDir), 'builder', ws, app.id, lastRunId);
    const snap = await (await fetch(`${w}/sessions/${app.id}/source-snapshot`, { headers: { 'x-run-capability': capability } })).json();
    const paths = Object.keys(snap.files);
    assert.ok(paths.includes('agents.json') && paths.includes('package.json'), paths.join(','));
    assert.ok(!paths.some((p) => /(^|\/)(node_modules|dist|\.git)\//.test(p)), 'no excluded dirs');
    assert.equal(snap.fileCount, paths.length);
    // Without the capability of the app's latest turn (or for an app the worker never ran a turn of): 403.
    for (const [appId, headers] of [[app.id, {}], [app.id, { 'x-run-capability': `${capability}0` }], ['app_none', {}],
      ['app_none', { 'x-run-capability': capability }]]) {
      const r = await fetch(`${w}/sessions/${appId}/source-snapshot`, { headers });
      assert.equal(r.status, 403, `${appId} ${JSON.stringify(headers)}`);
      assert.equal((await r.json()).error.code, 'invalid_run_capability');
    }
    for (const bad of ['../escape.txt', '/etc/x', 'node_modules/x.js', 'src/../../x', 'dist/a.js', '.git/config']) {
      const r = await fetch(`${w}/sessions/${app.id}/files`, { method: 'PUT', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ path: bad, content: 'x' }) });
      assert.equal(r.status, 400, bad);
    }
    assert.ok(!fs.existsSync(path.join(dataDir, 'workspaces', 'escape.txt')));
  });

  const reviews = `/api/workspaces/${ws}/apps/${app.id}/reviews`;
  const agentsV3 = structuredClone(agentsV2);
  agentsV3.agents[0].description = 'Summarizes deals, reviewed.';
  await check('review: a collaborator asks, an admin approves and the reviewed draft is published; roles hold', async () => {
    ok(await call('creator', 'PATCH', agentsPath, agentsV3));
    ok(await call('owner', 'POST', `${agentsPath}/approval`, { approvalHash: v1(agentsV3) }));
    assert.deepEqual(ok(await call('viewer', 'GET', agentsPath)).agentsJson, agentsV2, 'approved is not published');
    assertError(await call('viewer', 'POST', reviews, { note: 'x' }), 403, 'forbidden');
    const asked = ok(await call('collab', 'POST', reviews, { note: 'Please publish the reviewed summarizer.' }), 201);
    assert.equal(asked.status, 'pending');
    assert.equal(asked.requestedBy, 'collab');
    assert.equal(asked.decidedBy, null);
    assertError(await call('creator', 'POST', reviews, {}), 409, 'review_pending');
    assertError(await call('viewer', 'GET', reviews), 403, 'forbidden');
    assertError(await call('collab', 'POST', `${reviews}/${asked.id}/approve`, {}), 403, 'forbidden');
    assertError(await call('admin', 'POST', `${reviews}/rev_nope/approve`, {}), 404, 'not_found');
    const approved = ok(await call('admin', 'POST', `${reviews}/${asked.id}/approve`, { note: 'Looks good.' }));
    assert.equal(approved.status, 'approved');
    assert.equal(approved.decidedBy, 'admin');
    assert.equal(approved.decisionNote, 'Looks good.');
    const seen = ok(await call('viewer', 'GET', agentsPath));
    assert.deepEqual(seen.agentsJson, agentsV3);
    assert.equal(seen.published.publishedBy, 'admin');
    assertError(await call('owner', 'POST', `${reviews}/${asked.id}/reject`, {}), 409, 'not_pending');
  });

  await check('review: a draft that changed after the request is not published by approving it; a rejection is recorded', async () => {
    const asked = ok(await call('collab', 'POST', reviews, {}), 201);
    ok(await call('creator', 'PATCH', agentsPath, agentsV2));
    assertError(await call('owner', 'POST', `${reviews}/${asked.id}/approve`, {}), 409, 'draft_changed');
    assert.deepEqual(ok(await call('viewer', 'GET', agentsPath)).agentsJson, agentsV3, 'nothing was published');
    const rejected = ok(await call('owner', 'POST', `${reviews}/${asked.id}/reject`, { note: 'The draft changed; ask again.' }));
    assert.equal(rejected.status, 'rejected');
    const list = ok(await call('creator', 'GET', reviews)).reviews;
    assert.deepEqual(list.map((r) => r.status), ['rejected', 'approved', 'rejected']);
    assertError(await call('collab', 'POST', reviews, { note: 42 }), 400, 'invalid_body');
  });
}

run(main);
