// A viewer attaching to a turn that outgrew its replay buffer (issue 15; spec "Chat stream
// resume rules" 4): platform-web with a 256-event replay window, a builder turn of about a
// thousand events (reasoning, a long text, a Bash call and its output, more text), held mid-text by the
// scripted model. A viewer that attaches then from the beginning (on replica B with --replicas:
// PostgreSQL + Redis) gets the stream's replay head and the live tail, and the real AI SDK client
// assembles from it exactly the message the producer's own stream assembles and the run
// persists. A cursor inside the dropped part still gets 204.
//
// Usage: node e2e-replay-head.mjs --build DIR --project DIR [--replicas]
import assert from 'node:assert/strict';
import path from 'node:path';
import { assembleMessage, harness, SseReader, startModelAndWorker } from './harness.mjs';

const args = process.argv.slice(2);
const opt = (name) => path.resolve(args[args.indexOf(name) + 1]);
const buildDir = opt('--build');
const projectDir = opt('--project');
const replicas = args.includes('--replicas');
const { tmp, check, start, run } = harness('platform-replay-head-e2e-');

// Small enough that the turn outgrows it several times, large enough that the POST's own
// follower (which reads the same buffer) never falls a whole window behind on a busy machine.
const window = 256;
const longText = Array.from({ length: 300 }, (_, i) => `Sentence ${i} of the long answer.`).join(' ');
const scenario = {
  turns: [
    {
      blocks: [
        { type: 'thinking', thinking: 'A long answer, a command, then more.', signature: 'c2ln' },
        { type: 'text', text: longText },
        { type: 'tool_use', id: 't_echo', name: 'Bash', input: { command: `echo ${'x'.repeat(300)}`, description: 'Echo a line' } },
      ],
      stop_reason: 'tool_use',
    },
    {
      blocks: [
        { type: 'text', text: 'Before the pause. '.repeat(20) },
        { type: 'pause', name: 'mid' },
        { type: 'text', text: 'After the pause. '.repeat(20) },
      ],
      stop_reason: 'end_turn',
    },
  ],
  aux: { blocks: [{ type: 'text', text: 'Long' }], stop_reason: 'end_turn' },
};


// What a person sees of a message: its parts without the client's bookkeeping (provider
// metadata, text/reasoning states are compared too).
const visible = (m) => m.parts.map(({ providerMetadata, callProviderMetadata, ...p }) => p);

run(async () => {
  const { modelUrl, workerUrl } = await startModelAndWorker({ start, tmp }, { buildDir, projectDir, scenario });
  const webEnv = {
    PLATFORM_WEB_PORT: '0',
    PLATFORM_DATA_DIR: path.join(tmp, 'data'),
    PLATFORM_WORKER_URL: workerUrl,
    PLATFORM_REPLAY_MAX_EVENTS: String(window),
    PLATFORM_SSE_HEARTBEAT_MS: '500',
  };
  if (replicas) {
    webEnv.PLATFORM_DATABASE_URL = process.env.PLATFORM_TEST_PG_URL;
    webEnv.PLATFORM_REDIS_URL = process.env.PLATFORM_TEST_REDIS_URL;
  }
  const a = (await start('web-a', path.join(buildDir, 'servers/web/platform-web'), [], webEnv, /listening on (http:\S+)/)).match[1];
  const b = replicas ? (await start('web-b', path.join(buildDir, 'servers/web/platform-web'), [], webEnv, /listening on (http:\S+)/)).match[1] : a;
  const post = (base, p, body) => fetch(base + p, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const app = await (await post(a, '/api/workspaces/default/apps', { name: 'Long' })).json();
  const created = await (await post(a, `/api/workspaces/default/apps/${app.id}/runs`, {})).json();
  const runPath = `/api/workspaces/default/apps/${app.id}/runs/${created.id}`;

  let produced;
  let attached;
  await check(`a viewer from the beginning, after the ${window}-event window dropped the start: 200, head then live tail`, async () => {
    const res = await post(a, `${runPath}/chat`, { messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'A long answer' }] }] });
    assert.equal(res.status, 200);
    const live = new SseReader(res);
    // (The model streams text in 12-character pieces.)
    await live.until((e) => e.some((x) => x.includes('Before the p')) && e.length > 3 * window);
    // Held mid-text: the start is gone from the buffer, so an old cursor has nothing to resume.
    const old = await fetch(`${b}${runPath}/chat/stream?cursor=1`);
    assert.equal(old.status, 204);
    const fromStart = await fetch(`${b}${runPath}/chat/stream`);
    assert.equal(fromStart.status, 200);
    assert.match(fromStart.headers.get('content-type'), /^text\/event-stream/);
    const viewer = new SseReader(fromStart);
    await viewer.until((e) => e.some((x) => x.includes('Before the p')));
    // The head is short: the turn's events so far folded into a few.
    assert.ok(viewer.events.length < live.events.length / 2, `${viewer.events.length} events vs ${live.events.length}`);
    await fetch(`${modelUrl}/control/release/mid`, { method: 'POST', body: '{}' });
    produced = await live.toEnd();
    attached = await viewer.toEnd();
  });

  await check('the real AI SDK client assembles the same message from both, and it is what the run persisted', async () => {
    const whole = await assembleMessage(produced.join(''));
    const joined = await assembleMessage(attached.join(''));
    assert.equal(joined.id, whole.id);
    assert.deepEqual(visible(joined), visible(whole));
    const text = joined.parts.filter((p) => p.type === 'text').map((p) => p.text).join('');
    assert.ok(text.startsWith('Sentence 0 of the long answer.'), text.slice(0, 80));
    assert.ok(text.endsWith('After the pause. '.repeat(20).trimEnd()) || text.includes('After the pause.'), text.slice(-80));
    assert.ok(joined.parts.some((p) => p.type === 'reasoning' && p.text.includes('A long answer')));
    const tool = joined.parts.find((p) => p.type === 'dynamic-tool');
    assert.equal(tool.toolName, 'Bash');
    assert.equal(tool.state, 'output-available');
    const persisted = await (await fetch(`${a}${runPath}/chat`)).json();
    assert.equal(persisted.status, 'completed');
    const last = persisted.messages[persisted.messages.length - 1];
    assert.equal(last.id, joined.id);
    const persistedText = last.parts.filter((p) => p.type === 'text').map((p) => p.text).join('');
    assert.equal(persistedText, text);
  });
});
