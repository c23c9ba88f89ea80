// Builder sessions on platform-worker with the real Claude Code CLI: the worker keeps a turn's
// session for its TTL, destroys it after, and the next message restores the context from the
// ProviderSessionState the web server sends (a fresh worker process too). The scripted model
// server's request log shows what context the CLI sent.
//
// Usage: node e2e-worker-sessions.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { harness, SseReader } from './harness.mjs';

const args = process.argv.slice(2);
const opt = (name) => args[args.indexOf(name) + 1];
const buildDir = path.resolve(opt('--build'));
const projectDir = path.resolve(opt('--project'));
const { tmp, check, start, run } = harness('platform-sessions-e2e-');

async function main() {
  const scenario = {
    turns: [
      { blocks: [{ type: 'text', text: 'Noted the code word.' }], stop_reason: 'end_turn' },
      { blocks: [{ type: 'text', text: 'The code word was given earlier.' }], stop_reason: 'end_turn' },
    ],
    aux: { blocks: [{ type: 'text', text: 'Title' }], stop_reason: 'end_turn' },
  };
  fs.writeFileSync(path.join(tmp, 'scenario.json'), JSON.stringify(scenario));
  const log = path.join(tmp, 'requests.jsonl');
  const model = await start('model', 'python3', [path.join(projectDir, 'tests/model_server/model_server.py'),
    '--script', path.join(tmp, 'scenario.json'), '--port', '0', '--idle-exit', '600', '--log', log], {}, /^(\d+)\n/m);
  const modelUrl = `http://127.0.0.1:${model.match[1]}`;
  const token = 'sessions-internal-token-0123456789abcdef';
  const startWorker = async (name, ttlMs) => (await start(name, path.join(buildDir, 'servers/worker/platform-worker'), [], {
    PLATFORM_WORKER_PORT: '0', PLATFORM_DATA_DIR: path.join(tmp, 'data'), INTERNAL_API_TOKEN: token,
    PLATFORM_WORKER_SESSION_TTL_MS: String(ttlMs), ANTHROPIC_BASE_URL: modelUrl, ANTHROPIC_API_KEY: 'scripted-key',
    CLAUDE_CODE_MAX_RETRIES: '0',
  }, /listening on (http:\S+)/)).match[1];
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const turn = async (worker, prompt, sessionState = null) => {
    const r = await fetch(`${worker}/sessions/app1/messages`, {
      method: 'POST', headers,
      body: JSON.stringify({ runId: 'run1', workspaceId: 'ws1', appId: 'app1', prompt, systemPrompt: 'Builder.',
        settings: { settings: { runtimeId: 'runtime-a' } }, sessionState, runCapability: 'cap-run1' }),
    });
    assert.equal(r.status, 200);
    const events = await new SseReader(r, { payload: true }).toEnd();
    const result = events.filter((e) => e !== '[DONE]').map((e) => JSON.parse(e)).find((m) => m.type === 'result');
    assert.ok(result && !result.is_error, 'the turn finished');
    return result;
  };
  const stateOf = async (worker) => (await (await fetch(`${worker}/sessions/app1/session-state?runId=run1`, { headers })).json()).sessionState;
  // The user texts of the last model request (the CLI sends the whole conversation).
  const lastRequestTexts = () => {
    const requests = fs.readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
      .filter((r) => r.path.startsWith('/v1/messages') && (r.body.tools ?? []).length > 0);
    const { messages } = requests.at(-1).body;
    return messages.filter((m) => m.role === 'user').flatMap((m) => (typeof m.content === 'string'
      ? [m.content] : m.content.filter((c) => c.type === 'text').map((c) => c.text))).join('\n');
  };

  const worker = await startWorker('worker', 2000);
  let saved;
  await check('after a turn the worker holds the session state (the CLI session JSONL)', async () => {
    await turn(worker, 'Remember the code word PINEAPPLE-7.');
    saved = await stateOf(worker);
    assert.equal(saved.runtimeId, 'runtime-a');
    assert.match(saved.sessionId, /^[0-9a-f-]{36}$/);
    assert.ok(saved.data.includes('PINEAPPLE-7'), 'the JSONL holds the conversation');
    assert.equal(saved.format, 'jsonl');
  });

  await check('after the TTL the session is destroyed', async () => {
    let state = saved;
    // The TTL is 2 s: wait for the condition, bounded, checking each 100 ms.
    for (let i = 0; i < 100 && state; i += 1) {
      await new Promise((r) => setTimeout(r, 100));
      state = await stateOf(worker);
    }
    assert.equal(state, null);
  });

  await check('the next message without state starts fresh: the old context is gone', async () => {
    await turn(worker, 'What was the code word?');
    assert.ok(!lastRequestTexts().includes('PINEAPPLE-7'));
  });

  await check('the next message with the web server\'s state restores the context, on a fresh worker too', async () => {
    const fresh = await startWorker('worker2', 60000);
    await turn(fresh, 'What was the code word, again?', saved);
    const texts = lastRequestTexts();
    assert.ok(texts.includes('PINEAPPLE-7'), 'the restored conversation reached the model');
    assert.ok(texts.includes('What was the code word, again?'));
    const after = await stateOf(fresh);
    assert.equal(after.sessionId, saved.sessionId, 'the same session continues');
  });
}

await run(main);
