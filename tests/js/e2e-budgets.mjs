// Budgets with the real Claude Code CLI and the scripted model (issue 37). The model reports
// usage on every step and never stops calling tools: a runaway loop. A builder turn and an app
// agent run each cross their caps and are stopped within one step, the stream and the record
// saying why; the app's spend counts both; past the app's monthly budget the next turn and the
// next run are refused with 409 budget_exhausted; at 80 % a budget.warning event goes out;
// limits are set through the API and bad ones get a clear 400.
//
// Then the same runaway builder turn on runtime-b (codex app-server) and runtime-c (opencode):
// each runtime's own usage reports stop it within one step of its cap too.
//
// Prints the measured overshoot of each cap (how much past it the stopped run spent).
//
// Usage: node e2e-budgets.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { harness, SseReader, toolTurn, use, waitUntil } from './harness.mjs';
import { apiClient, startPlatform } from './browser/platform.mjs';

const args = process.argv.slice(2);
const opt = (name) => args[args.indexOf(name) + 1];
const h = harness('platform-budgets-e2e-');
const { tmp, check, run } = h;

// 100,000 uncached input tokens and 1,000 output tokens per model call: at claude-opus-5-5's
// rates ($4 / $20 per MTok) $0.42 a step, so a $1.00 cap is reached on the third step.
const stepUsage = { input_tokens: 100000, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 1000 };
const looping = (turn) => ({ ...turn, usage: stepUsage });
const scenario = {
  // Past the end the last turn repeats: the builder runs a command, forever.
  turns: [looping(toolTurn(use('t_loop', 'Bash', { command: 'echo again', description: 'Loop' })))],
  agent: [looping(toolTurn(use('a_loop', 'mcp__app_data__read_app_data', { collection: 'notes' })))],
  aux: { blocks: [{ type: 'text', text: 'Title' }], stop_reason: 'end_turn' },
};
const token = 'internal-token-for-budgets-e2e-0123456789';

run(async () => {
  const scenarioFile = path.join(tmp, 'budgets-scenario.json');
  fs.writeFileSync(scenarioFile, JSON.stringify(scenario));
  const p = await startPlatform(h, {
    buildDir: opt('--build'), projectDir: opt('--project'), scenarioFile,
    webEnv: { INTERNAL_API_TOKEN: token },
    workerEnv: (modelUrl) => {
      // runtime-c's operator config: the scripted model priced as claude-opus-5-5 is.
      const opencodeConfig = path.join(tmp, 'opencode.json');
      fs.writeFileSync(opencodeConfig, JSON.stringify({
        $schema: 'https://opencode.ai/config.json', model: 'budget/m',
        provider: { budget: { npm: '@ai-sdk/openai-compatible', name: 'Scripted', options: { baseURL: `${modelUrl}/v1`, apiKey: '{env:OPENAI_API_KEY}' },
          models: { m: { name: 'Scripted', tool_call: true, limit: { context: 400000, output: 8192 }, cost: { input: 4, output: 20 } } } } },
      }));
      return {
        INTERNAL_API_TOKEN: token,
        PLATFORM_CODEX_BASE_URL: `${modelUrl}/v1`, CODEX_API_KEY: 'scripted-codex-key', PLATFORM_CODEX_APP_SERVER_WARM: '0',
        PLATFORM_OPENCODE_CONFIG: opencodeConfig, PLATFORM_OPENCODE_PATH: path.join(opt('--project'), 'runtimes/node_modules/.bin/opencode'),
        OPENAI_API_KEY: 'scripted-openai-key',
      };
    },
  });
  const call = apiClient(p.web);
  const raw = (method, route, body) => fetch(p.web + route, body === undefined ? { method } : { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const app = await call('POST', '/api/workspaces/default/apps', { name: 'Budgets' });
  const A = `/api/workspaces/default/apps/${app.id}`;
  const events = new SseReader(await fetch(`${p.web}/api/workspaces/default/events`), { payload: true });
  const budgetEvents = () => events.events.map((e) => JSON.parse(e)).filter((e) => e.type === 'budget.warning');
  const chat = (runId, text) => fetch(`${p.web}${A}/runs/${runId}/chat`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text }] }] }),
  });
  // The model calls that carried tools (the builder's and the agent's steps; the log is
  // written from the first request on).
  const modelCalls = () => (fs.existsSync(path.join(tmp, 'p-requests.jsonl')) ? p.model.requests().length : 0);
  const spentByApp = async () => (await call('GET', `${A}/budget`)).app.spent.usd;

  await check('limits are set through the API: the workspace, and an app override; bad limits get a clear 400', async () => {
    const none = await call('GET', '/api/workspaces/default/budget');
    assert.deepEqual(none.settings.builderTurn, { usd: null, tokens: null });
    assert.equal(none.canEdit, true);
    const set = await call('PUT', '/api/workspaces/default/budget', { builderTurn: { usd: 1 }, agentRun: { usd: 1 }, appMonthly: { usd: 10 } });
    assert.deepEqual(set.settings.builderTurn, { usd: 1, tokens: null });
    assert.equal(set.workspace.limitText, 'no limit');
    const mine = await call('PUT', `${A}/budget`, { appMonthly: { usd: 3 } });
    assert.deepEqual(mine.app.limit, { usd: 3, tokens: null });
    assert.equal(mine.builderTurn.limitText, '$1.00', 'the workspace default cap');
    assert.equal(mine.app.spent.usd, 0);
    for (const [route, body, field] of [['/api/workspaces/default/budget', { builderTurn: { usd: -1 } }, 'builderTurn.usd'],
      ['/api/workspaces/default/budget', { monthly: 5 }, 'monthly'], [`${A}/budget`, { appMonthly: { tokens: 1.5 } }, 'appMonthly.tokens'],
      [`${A}/budget`, { workspaceMonthly: null }, 'workspaceMonthly']]) {
      const res = await raw('PUT', route, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      const e = (await res.json()).error;
      assert.equal(e.code, 'invalid_body');
      assert.ok(e.message.includes(field), e.message);
    }
    assert.deepEqual((await call('GET', `${A}/budget`)).overrides.appMonthly, { usd: 3, tokens: null }, 'a refused PUT changed nothing');
  });

  let turnSpent = 0;
  await check('a builder turn in a runaway loop stops within one step of its $1.00 cap; the stream and the run say why', async () => {
    const runId = (await call('POST', `${A}/runs`, {})).id;
    const before = modelCalls();
    const res = await chat(runId, 'Keep going forever');
    assert.equal(res.status, 200);
    const chunks = (await new SseReader(res, { payload: true }).toEnd()).filter((e) => e !== '[DONE]').map((e) => JSON.parse(e));
    const abort = chunks.find((c) => c.type === 'abort');
    assert.ok(abort, chunks.map((c) => c.type).join(','));
    assert.equal(abort.reason, 'Stopped: this run reached its $1.00 cap.');
    const stored = await call('GET', `${A}/runs/${runId}/chat`);
    assert.equal(stored.status, 'failed');
    assert.equal(stored.stopReason, 'budget');
    assert.equal(stored.stopMessage, 'Stopped: this run reached its $1.00 cap.');
    const steps = modelCalls() - before;
    assert.ok(steps >= 3 && steps <= 4, `${steps} model calls`);
    turnSpent = await spentByApp();
    assert.ok(turnSpent >= 1 && turnSpent < 1 + 0.42 + 1e-9, `spent ${turnSpent}`);
    console.log(`builder turn: cap $1.00, ${steps} model calls, spent $${turnSpent.toFixed(4)}, overshoot $${(turnSpent - 1).toFixed(4)}`);
  });

  await check('an app agent run in a runaway loop stops within one step of its $1.00 cap, with its reason; the app counts both', async () => {
    const doc = { agents: [{ id: 'looper', name: 'Looper', description: 'Reads notes forever.', systemPrompt: 'Read.', dataCollections: ['notes'] }] };
    const patched = await call('PATCH', `${A}/agents`, doc);
    await call('POST', `${A}/agents/approval`, { approvalHash: patched.hash });
    const made = await call('POST', `${A}/agent-runs`, { agentId: 'looper', prompt: 'Read the notes', draft: true });
    assert.equal((await raw('POST', `${A}/agent-runs/${made.id}/stream?startOnly=1`)).status, 202);
    const done = await waitUntil('the run to end', async () => {
      const s = await call('GET', `${A}/agent-runs/${made.id}`);
      return s.status === 'completed' || s.status === 'failed' ? s : null;
    }, 120000, 200);
    assert.equal(done.status, 'failed');
    assert.equal(done.stopReason, 'budget');
    assert.equal(done.error, 'Stopped: this run reached its $1.00 cap.');
    const runSpent = (await spentByApp()) - turnSpent;
    assert.ok(runSpent >= 1 && runSpent < 1 + 0.42 + 1e-9, `spent ${runSpent}`);
    console.log(`app agent run: cap $1.00, spent $${runSpent.toFixed(4)}, overshoot $${(runSpent - 1).toFixed(4)}`);
    // Its messages keep what streamed before the stop.
    const messages = await call('GET', `${A}/agent-runs/${made.id}/messages`);
    assert.ok(JSON.stringify(messages).includes('read_app_data'));
  });

  await check('at 80 % of the app\'s month a budget.warning event goes out, once', async () => {
    const spent = await spentByApp();
    assert.ok(spent / 3 >= 0.8, `spent ${spent} of $3`);
    const isAppWarning = (e) => e.startsWith('{') && JSON.parse(e).type === 'budget.warning' && JSON.parse(e).budget === 'app';
    await Promise.race([events.until((evs) => evs.some(isAppWarning)),
      new Promise((_, reject) => setTimeout(() => reject(new Error('no budget.warning event')), 10000))]);
    const w = budgetEvents().filter((e) => e.budget === 'app');
    assert.equal(w.length, 1, JSON.stringify(w));
    assert.equal(w[0].appId, app.id);
    assert.ok(w[0].usedFraction >= 0.8);
    assert.deepEqual(Object.keys(w[0]).sort(), ['appId', 'budget', 'type', 'usedFraction', 'workspaceId']);
    const b = await call('GET', `${A}/budget`);
    assert.equal(b.app.warning, true);
    assert.equal(b.app.exhausted, false);
  });

  await check('past the app\'s monthly budget the next turn and the next run are refused with 409 and who can raise it', async () => {
    await call('PUT', `${A}/budget`, { appMonthly: { usd: 2 } });
    const runId = (await call('POST', `${A}/runs`, {})).id;
    const before = modelCalls();
    const res = await chat(runId, 'One more');
    assert.equal(res.status, 409);
    const e = (await res.json()).error;
    assert.equal(e.code, 'budget_exhausted');
    assert.equal(e.message, "This app's monthly budget of $2.00 is spent. A workspace admin can raise it on the app's Runs tab.");
    const stored = await call('GET', `${A}/runs/${runId}/chat`);
    assert.notEqual(stored.status, 'streaming');
    const refused = await raw('POST', `${A}/agent-runs`, { agentId: 'looper', prompt: 'Again', draft: true });
    assert.equal(refused.status, 409);
    assert.equal((await refused.json()).error.code, 'budget_exhausted');
    assert.equal(modelCalls(), before, 'no model call');
    const b = await call('GET', `${A}/budget`);
    assert.equal(b.app.exhausted, true);
    // Raising it lets the next turn start.
    await call('PUT', `${A}/budget`, { appMonthly: { usd: 100 } });
    const again = await chat(runId, 'One more');
    assert.equal(again.status, 200);
    await new SseReader(again, { payload: true }).toEnd();
  });

  // runtime-b's steps cost $0.53 at gpt-5.5's rates ($5 / $30), runtime-c's $0.42 at the
  // config's; the cap is raised above for the app's month.
  for (const [runtimeId, runtimeModel, step] of [['runtime-b', 'gpt-5.5', 0.53], ['runtime-c', 'budget/m', 0.42]]) {
    await check(`${runtimeId}: a runaway builder turn stops within one step of its $1.00 cap, from the runtime's own usage`, async () => {
      const other = await call('POST', '/api/workspaces/default/apps', { name: `Budgets ${runtimeId}` });
      const O = `/api/workspaces/default/apps/${other.id}`;
      const runId = (await call('POST', `${O}/runs`, {})).id;
      const res = await fetch(`${p.web}${O}/runs/${runId}/chat`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ runtimeId, runtimeModel, messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Keep going forever' }] }] }),
      });
      assert.equal(res.status, 200, await res.clone().text());
      const chunks = (await new SseReader(res, { payload: true }).toEnd()).filter((e) => e !== '[DONE]').map((e) => JSON.parse(e));
      const abort = chunks.find((c) => c.type === 'abort');
      assert.ok(abort, chunks.map((c) => c.type).join(','));
      assert.equal(abort.reason, 'Stopped: this run reached its $1.00 cap.');
      const stored = await call('GET', `${O}/runs/${runId}/chat`);
      assert.equal(stored.stopReason, 'budget');
      const spent = (await call('GET', `${O}/budget`)).app.spent.usd;
      assert.ok(spent >= 1 && spent < 1 + step + 0.01, `spent ${spent}`);
      console.log(`${runtimeId} builder turn: cap $1.00, spent $${spent.toFixed(4)}, overshoot $${(spent - 1).toFixed(4)}`);
    });
  }
});
