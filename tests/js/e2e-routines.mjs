// Routines with the real Claude Code CLI and the scripted model (issue 37): an app whose
// published agents.json has a scheduled agent and a webhook agent. The scheduler's clock is a
// file the test moves (PLATFORM_ROUTINE_CLOCK_FILE), never a wait for real time.
//   - publishing makes the routines (the draft's triggers are listed, and fire only once
//     published), each with its next tick and the approver it runs as;
//   - a tick starts one run as the routine, in the published scope, as the approver;
//   - a tick while the last run still goes is skipped, and says so;
//   - a signed webhook starts a run with the body as its input (202 and the run id); a bad
//     signature, an expired one, a replay and an oversized body are refused and start nothing;
//   - 5 failed runs in a row switch the routine off, with a routine.switched_off event; an
//     admin switches it on again.
//
// Usage: node e2e-routines.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { endTurn, harness, SseReader, toolTurn, use, waitUntil } from './harness.mjs';
import { apiClient, startPlatform } from './browser/platform.mjs';

const args = process.argv.slice(2);
const opt = (name) => args[args.indexOf(name) + 1];
const h = harness('platform-routines-e2e-');
const { tmp, check, run } = h;

const token = 'internal-token-for-routines-e2e-0123456789';
const agentsDoc = {
  agents: [
    { id: 'digest', name: 'Digest', description: 'Summarizes the deals every minute.', systemPrompt: 'Summarize.',
      triggers: { schedule: { cron: '* * * * *', timezone: 'Europe/Paris', prompt: 'Summarize the open deals.' } } },
    { id: 'hook', name: 'Hook', description: 'Reacts to deal changes.', systemPrompt: 'React.',
      triggers: { webhook: { prompt: 'A deal changed:' } } },
  ],
};
const heredoc = (file, text) => `cat > ${file} <<'EOF'\n${text}EOF`;
const scenario = {
  turns: [
    toolTurn(use('t_write', 'Bash', { command: heredoc('src/App.tsx', 'export default function App() {\n  return <h1>Deals</h1>;\n}\n'), description: 'Write the app' })),
    toolTurn(use('t_build', 'mcp__platform__done_building', { summary: 'Deals' })),
    endTurn('Built.'),
  ],
  // Every agent run: a reply held at a pause the test releases (or leaves armed).
  agent: [{ blocks: [{ type: 'text', text: 'Digest ' }, { type: 'pause', name: 'agent' }, { type: 'text', text: 'ready.' }], stop_reason: 'end_turn' }],
  aux: { blocks: [{ type: 'text', text: 'Title' }], stop_reason: 'end_turn' },
};

run(async () => {
  const scenarioFile = path.join(tmp, 'routines-scenario.json');
  fs.writeFileSync(scenarioFile, JSON.stringify(scenario));
  const clockFile = path.join(tmp, 'clock');
  const setClock = (ms) => fs.writeFileSync(clockFile, String(ms));
  setClock(Date.now());
  const p = await startPlatform(h, {
    buildDir: opt('--build'), projectDir: opt('--project'), scenarioFile,
    webEnv: { INTERNAL_API_TOKEN: token, PLATFORM_ROUTINE_TICK_MS: '100', PLATFORM_ROUTINE_CLOCK_FILE: clockFile },
    workerEnv: { INTERNAL_API_TOKEN: token },
  });
  await p.model.release('agent');
  const call = apiClient(p.web);
  const raw = (method, route, body, headers = {}) => fetch(p.web + route, { method, headers: { 'content-type': 'application/json', ...headers }, body });
  const app = await call('POST', '/api/workspaces/default/apps', { name: 'Deals' });
  const A = `/api/workspaces/default/apps/${app.id}`;
  const events = new SseReader(await fetch(`${p.web}/api/workspaces/default/events`), { payload: true });
  const routines = async () => (await call('GET', `${A}/routines`));
  const routineOf = async (agentId) => (await routines()).routines.find((r) => r.agentId === agentId);
  const runsOf = async (routineId) => (await call('GET', `${A}/agent-runs?limit=200`)).runs.filter((r) => r.routineId === routineId);
  const ended = (runId) => waitUntil(`run ${runId} to end`, async () => {
    const s = await call('GET', `${A}/agent-runs/${runId}`);
    return s.status === 'completed' || s.status === 'failed' ? s : null;
  }, 60000, 100);

  // The build, then the agents with triggers, approved and published.
  const builder = await call('POST', `${A}/runs`, {});
  const built = await fetch(`${p.web}${A}/runs/${builder.id}/chat`, { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Build it.' }] }] }) });
  await built.text();
  const patched = await call('PATCH', `${A}/agents`, agentsDoc);
  assert.equal(patched.valid, true, JSON.stringify(patched.problems));

  await check('the draft\'s triggers are listed but no routine exists until published; the approval is v2', async () => {
    const before = await routines();
    assert.deepEqual(before.routines, []);
    assert.deepEqual(before.draft.map((d) => [d.agentId, d.webhook]), [['digest', false], ['hook', true]]);
    assert.ok(patched.hash.startsWith('v2:'), patched.hash);
  });

  let digest;
  let hook;
  await check('publishing makes the routines: the next tick, the approver they run as, the webhook URL', async () => {
    await call('POST', `${A}/agents/approval`, { approvalHash: patched.hash });
    await call('POST', `${A}/publish`, {});
    const after = await routines();
    assert.equal(after.routines.length, 2);
    digest = after.routines.find((r) => r.agentId === 'digest');
    hook = after.routines.find((r) => r.agentId === 'hook');
    assert.equal(digest.schedule.cron, '* * * * *');
    assert.equal(digest.schedule.timezone, 'Europe/Paris');
    assert.equal(digest.enabled, true);
    assert.equal(digest.runsAs, 'local-owner');
    assert.ok(digest.nextFireAt > Date.now() - 60000 && digest.nextFireAt % 60000 === 0, String(digest.nextFireAt));
    assert.equal(hook.nextFireAt, null);
    assert.match(hook.webhook.url, new RegExp(`/api/hooks/${hook.id}$`));
  });

  await check('a tick starts one run as the routine, in the published scope, as the approver', async () => {
    setClock(digest.nextFireAt + 500);
    const [r] = await waitUntil('the tick\'s run', async () => { const l = await runsOf(digest.id); return l.length ? l : null; }, 30000, 100);
    assert.equal(r.trigger, 'schedule');
    assert.equal(r.sourceVersion, 'published');
    assert.equal(r.triggeredByUserId, 'local-owner');
    const s = await ended(r.id);
    assert.equal(s.status, 'completed', JSON.stringify(s));
    assert.equal((await runsOf(digest.id)).length, 1, 'one run for the tick');
    const after = await routineOf('digest');
    assert.equal(after.nextFireAt, digest.nextFireAt + 60000);
    assert.equal(after.lastRunId, r.id);
    digest = after;
  });

  await check('a tick while the last run still goes is skipped, and says so', async () => {
    await p.model.arm('agent');
    setClock(digest.nextFireAt + 500);
    const held = await waitUntil('the held run', async () => { const l = await runsOf(digest.id); return l.length === 2 ? l : null; }, 30000, 100);
    const heldId = held.find((r) => r.id !== digest.lastRunId).id;
    setClock(digest.nextFireAt + 60000 + 500);
    const skipped = await waitUntil('the skip', async () => { const r = await routineOf('digest'); return r.lastOutcome === 'skipped' ? r : null; }, 30000, 100);
    assert.equal(skipped.nextFireAt, digest.nextFireAt + 120000);
    assert.equal(skipped.lastRunId, heldId);
    assert.equal((await runsOf(digest.id)).length, 2, 'no run for the skipped tick');
    await p.model.release('agent');
    assert.equal((await ended(heldId)).status, 'completed');
    digest = skipped;
  });

  const secret = (await call('POST', `${A}/routines/${hook.id}/webhook-secret`)).secret;
  const sign = (body, t = Math.floor(Date.now() / 1000)) => `t=${t},v1=${crypto.createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
  const hookPath = `/api/hooks/${hook.id}`;
  await check('a signed webhook starts a run with its body as the input: 202 and the run id', async () => {
    const body = JSON.stringify({ deal: 'Acme', stage: 'won' });
    const res = await raw('POST', hookPath, body, { 'x-platform-signature': sign(body) });
    assert.equal(res.status, 202, await res.clone().text());
    const { runId } = await res.json();
    const s = await ended(runId);
    assert.equal(s.status, 'completed');
    assert.equal(s.trigger, 'webhook');
    assert.equal(s.routineId, hook.id);
    const requests = fs.readFileSync(path.join(tmp, 'p-requests.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
      .filter((r) => JSON.stringify(r.body ?? '').includes('A deal changed:'));
    assert.ok(requests.length >= 1, 'the model was asked with the trigger prompt');
    assert.ok(JSON.stringify(requests[0].body).includes('Acme'), 'and the body');
  });

  await check('a bad or expired signature, a replay and an oversized body are refused and start nothing', async () => {
    const before = (await runsOf(hook.id)).length;
    const body = JSON.stringify({ deal: 'Beta' });
    const bad = await raw('POST', hookPath, body, { 'x-platform-signature': sign(`${body} `) });
    assert.equal(bad.status, 401);
    assert.equal((await bad.json()).error.code, 'invalid_signature');
    assert.equal((await raw('POST', hookPath, body)).status, 401);
    const old = await raw('POST', hookPath, body, { 'x-platform-signature': sign(body, Math.floor(Date.now() / 1000) - 1000) });
    assert.equal(old.status, 401);
    assert.equal((await old.json()).error.code, 'signature_expired');
    const once = sign(body);
    const first = await raw('POST', hookPath, body, { 'x-platform-signature': once });
    assert.equal(first.status, 202);
    await ended((await first.json()).runId);
    const replay = await raw('POST', hookPath, body, { 'x-platform-signature': once });
    assert.equal(replay.status, 409);
    assert.equal((await replay.json()).error.code, 'webhook_replayed');
    const big = JSON.stringify({ blob: 'x'.repeat(70 * 1024) });
    const large = await raw('POST', hookPath, big, { 'x-platform-signature': sign(big) });
    assert.equal(large.status, 413);
    assert.equal((await raw('POST', '/api/hooks/rtn_nope', body, { 'x-platform-signature': sign(body) })).status, 404);
    assert.equal((await runsOf(hook.id)).length, before + 1, 'only the one good request started a run');
  });

  await check('5 failed runs in a row switch the routine off, with an event; an admin switches it on again', async () => {
    // The model goes away: each run fails.
    p.modelProcess.kill('SIGKILL');
    let tick = digest.nextFireAt;
    for (let i = 1; i <= 5; i += 1) {
      const count = (await runsOf(digest.id)).length;
      setClock(tick + 500);
      const runs = await waitUntil(`failing run ${i}`, async () => { const l = await runsOf(digest.id); return l.length > count ? l : null; }, 30000, 100);
      const s = await ended(runs[0].id);
      assert.equal(s.status, 'failed');
      tick += 60000;
    }
    const off = await waitUntil('the switch-off', async () => { const r = await routineOf('digest'); return r.enabled ? null : r; }, 30000, 100);
    assert.equal(off.consecutiveFailures, 5);
    const isOff = (e) => e.startsWith('{') && JSON.parse(e).type === 'routine.switched_off' && JSON.parse(e).routineId === digest.id;
    await Promise.race([events.until((evs) => evs.some(isOff)), new Promise((_, rej) => setTimeout(() => rej(new Error('no routine.switched_off event')), 10000))]);
    const runsBefore = (await runsOf(digest.id)).length;
    setClock(tick + 60000 + 500);
    const body = JSON.stringify({});
    // A switched-off routine's webhook says so too.
    const hookOff = await call('POST', `${A}/routines/${hook.id}/enable`, { enabled: false });
    assert.equal(hookOff.enabled, false);
    const refused = await raw('POST', hookPath, body, { 'x-platform-signature': sign(body) });
    assert.equal(refused.status, 409);
    assert.equal((await refused.json()).error.code, 'routine_off');
    const on = await call('POST', `${A}/routines/${digest.id}/enable`, { enabled: true });
    assert.equal(on.enabled, true);
    assert.equal(on.consecutiveFailures, 0);
    assert.ok(on.nextFireAt > tick, 'the next tick after the clock');
    assert.equal((await runsOf(digest.id)).length, runsBefore, 'nothing fired while it was off');
    const bad = await raw('POST', `${A}/routines/${digest.id}/enable`, JSON.stringify({ enabled: 'yes' }));
    assert.equal(bad.status, 400);
  });
});
