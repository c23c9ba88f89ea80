// End to end: platform-web + platform-worker + the real Claude Code CLI + the scripted model
// server, driven over HTTP and read with the real `ai` client (DefaultChatTransport and
// readUIMessageStream), on the embedded defaults (SQLite, in-process pub/sub) or, with
// --replicas, on two web processes sharing PostgreSQL and Redis.
//
// Usage: node e2e-chat.mjs --build DIR --project DIR [--replicas]
// Prints one line per check and "N passed, N failed"; exit 1 when any check failed.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { DefaultChatTransport, readUIMessageStream } from 'ai';
import { connectionsTo, describeConnection, describeProcess, harness, isCli, runtimeProcesses, SseReader as EventReader, startModelAndWorker } from './harness.mjs';

const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const buildDir = path.resolve(opt('--build') ?? 'build');
const projectDir = path.resolve(opt('--project') ?? '.');
const replicas = args.includes('--replicas');
const { tmp, check, start, run } = harness('platform-e2e-');

const scenario = {
  turns: [
    {
      blocks: [
        { type: 'thinking', thinking: 'The user wants a greeting; answer in two parts.', signature: 'c2ln' },
        { type: 'text', text: 'Part one. ' },
        { type: 'pause', name: 'mid' },
        { type: 'text', text: 'Part two.' },
      ],
      stop_reason: 'end_turn',
      usage: { input_tokens: 1000, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 40 },
    },
  ],
  aux: { blocks: [{ type: 'text', text: 'Greeting' }], stop_reason: 'end_turn' },
};

async function json(res) {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`not JSON (HTTP ${res.status}): ${text.slice(0, 200)}`);
  }
}

async function main() {
  const { modelUrl, workerUrl } = await startModelAndWorker({ start, tmp }, { buildDir, projectDir, scenario });
  const webEnv = {
    PLATFORM_WEB_PORT: '0',
    PLATFORM_DATA_DIR: path.join(tmp, 'data'),
    PLATFORM_WORKER_URL: workerUrl,
    PLATFORM_MAX_BODY_BYTES: '65536',
    PLATFORM_SSE_HEARTBEAT_MS: '500',
  };
  if (replicas) {
    webEnv.PLATFORM_DATABASE_URL = process.env.PLATFORM_TEST_PG_URL;
    webEnv.PLATFORM_REDIS_URL = process.env.PLATFORM_TEST_REDIS_URL;
    // Short, so the killed-producer check is quick; long enough that a producer starved by
    // the thousand-connection check still renews its lease in time.
    webEnv.PLATFORM_STREAM_LEASE_MS = '6000';
  }
  const webA = await start('web-a', path.join(buildDir, 'servers/web/platform-web'), [], webEnv, /listening on (http:\S+)/);
  const a = webA.match[1];
  const b = replicas
    ? (await start('web-b', path.join(buildDir, 'servers/web/platform-web'), [], webEnv, /listening on (http:\S+)/)).match[1]
    : a;

  const post = (base, p, body) =>
    fetch(base + p, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const app = await json(await post(a, '/api/workspaces/default/apps', { name: 'E2E' }));
  const run = await json(await post(a, `/api/workspaces/default/apps/${app.id}/runs`, {}));
  const runPath = `/api/workspaces/default/apps/${app.id}/runs/${run.id}`;
  const userMessage = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Say hello in two parts.' }] };
  const chatBody = { messages: [userMessage], runtimeModel: 'claude-sonnet-4-5-20250929' };
  const workerTurns = async () => (await json(await fetch(`${workerUrl}/health`))).turnsStarted;
  const turnsBefore = await workerTurns();

  // Workspace events, from before the turn starts.
  const eventsRes = await fetch(`${b}/api/workspaces/default/events`);
  const workspaceEvents = new EventReader(eventsRes);

  let postEvents;
  let resumedFromZero;
  let resumedFromCursor;
  const cursor = 3;
  await check('chat POST streams the turn; viewers attach mid-stream (replica B when --replicas)', async () => {
    const res = await post(a, `${runPath}/chat`, chatBody);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-sdk-ai-ui-message-stream'), 'v1');
    assert.equal(res.headers.get('x-vercel-ai-ui-message-stream'), 'v1');
    const live = new EventReader(res);
    await live.until((e) => e.some((x) => x.includes('Part one.')));
    const sofar = live.events.length;
    const r0res = await fetch(`${b}${runPath}/chat/stream`);
    // Resume: the spec's header, and the AI SDK's own so its client reads the body as a UI stream.
    assert.equal(r0res.headers.get('x-sdk-ai-ui-message-stream'), 'v1');
    assert.equal(r0res.headers.get('x-vercel-ai-ui-message-stream'), 'v1');
    assert.match(r0res.headers.get('content-type'), /^text\/event-stream/);
    // The viewer hub closes the connection after the last chunk; saying keep-alive let the
    // client reuse it for its next request, which then failed.
    assert.equal(r0res.headers.get('connection'), 'close');
    const r0 = new EventReader(r0res);
    const rc = new EventReader(await fetch(`${b}${runPath}/chat/stream?cursor=${cursor}`));
    // A workspace viewer that connects now is told at once which builder runs are streaming.
    const late = new EventReader(await fetch(`${b}/api/workspaces/default/events`));
    await late.until((e) => e.length >= 1);
    assert.deepEqual(JSON.parse(late.events[0].slice(6)), { type: 'run.stream_ready', workspaceId: 'default', appId: app.id,
      runId: run.id, kind: 'builder', status: 'streaming' });
    late.reader.cancel();
    await r0.until((e) => e.length >= sofar);
    await rc.until((e) => e.length >= sofar - cursor);
    await fetch(`${modelUrl}/control/release/mid`, { method: 'POST', body: '{}' });
    postEvents = await live.toEnd();
    resumedFromZero = await r0.toEnd();
    resumedFromCursor = await rc.toEnd();
    assert.ok(postEvents.join('').includes('Part two.'));
  });

  await check('resume from zero is byte-identical; from a cursor it is the exact remainder', async () => {
    assert.equal(resumedFromZero.join(''), postEvents.join(''));
    assert.equal(resumedFromCursor.join(''), postEvents.slice(cursor).join(''));
  });

  await check('the real AI SDK client accepts the stream and assembles one assistant message', async () => {
    const body = postEvents.join('');
    const transport = new DefaultChatTransport({
      api: 'http://replay.invalid/chat',
      fetch: async () => new Response(body, { headers: { 'content-type': 'text/event-stream' } }),
    });
    const chunks = await transport.sendMessages({ chatId: run.id, messages: [userMessage], trigger: 'submit-message', messageId: undefined, abortSignal: undefined });
    let last;
    for await (const m of readUIMessageStream({ stream: chunks, onError: (e) => { throw e; } })) last = m;
    assert.equal(last.role, 'assistant');
    assert.equal(last.id, `msg-${run.id}-1`);
    const text = last.parts.filter((p) => p.type === 'text').map((p) => p.text).join('');
    assert.equal(text, 'Part one. Part two.');
    assert.ok(last.parts.some((p) => p.type === 'reasoning' && p.text.includes('greeting')));
  });

  await check('the turn is persisted with usage; a conversational turn completes', async () => {
    const history = await json(await fetch(`${b}${runPath}/chat`));
    assert.equal(history.status, 'completed');
    assert.equal(history.messageCount, 2);
    assert.equal(history.messages[1].role, 'assistant');
    assert.equal(history.messages[1].id, `msg-${run.id}-1`);
    assert.equal(history.activeStreamId, null);
    assert.equal(history.usage.totalInputTokens, 1000);
    assert.equal(history.usage.totalOutputTokens, 40);
    assert.ok(history.usage.totalCostUsd > 0);
  });

  await check('the model got the builder system prompt from prompts/builder.md (versioned), SDK and rules included', async () => {
    const prompt = fs.readFileSync(path.join(projectDir, 'servers/web/prompts/builder.md'), 'utf8');
    const requests = fs.readFileSync(path.join(tmp, 'requests.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
      .filter((r) => r.method === 'POST' && r.path.startsWith('/v1/messages') && r.body?.tools?.length > 0);
    assert.ok(requests.length > 0);
    const system = JSON.stringify(requests[0].body.system);
    assert.ok(system.includes('platform-builder-prompt v1'), 'the version marker');
    // The whole file, as the runtime passes it on (JSON-escaped inside the request).
    assert.ok(system.includes(JSON.stringify(prompt).slice(1, -1)), 'the prompt file, whole');
  });

  await check('workspace events: run.starting, run.stream_ready, run.completed, ids and status only', async () => {
    const evs = await workspaceEvents.until((e) => e.some((x) => x.includes('run.completed')));
    const mine = evs.map((x) => JSON.parse(x.slice(6))).filter((e) => e.runId === run.id);
    assert.deepEqual(mine.map((e) => e.type), ['run.starting', 'run.stream_ready', 'run.completed']);
    for (const e of mine) {
      assert.deepEqual(Object.keys(e).sort(), ['appId', 'kind', 'runId', 'status', 'type', 'workspaceId']);
    }
    workspaceEvents.reader.cancel();
  });

  await check('nothing attachable after the turn: resume answers 204', async () => {
    const res = await fetch(`${b}${runPath}/chat/stream`);
    assert.equal(res.status, 204);
  });

  await check('a stale POST (same message list) gets an empty successful stream; history untouched', async () => {
    const res = await post(b, `${runPath}/chat`, chatBody);
    assert.equal(res.status, 200);
    assert.equal(await res.text(), 'data: [DONE]\n\n');
    const history = await json(await fetch(`${a}${runPath}/chat`));
    assert.equal(history.messageCount, 2);
    assert.equal(await workerTurns(), turnsBefore + 1);
  });

  // Two replicas take 1,000 (issue 14's load test); one process 200.
  const duplicates = replicas ? 1000 : 200;
  await check(`${duplicates} parallel duplicate chat POSTs: exactly one worker query, every client a valid stream, one message persisted`, async () => {
    const fresh = await json(await post(a, `/api/workspaces/default/apps/${app.id}/runs`, {}));
    const p = `/api/workspaces/default/apps/${app.id}/runs/${fresh.id}/chat`;
    const before = await workerTurns();
    // A request whose connection was closed before any answer is sent again. cpp-httplib
    // closes a new connection whose request has not arrived within the keep-alive timeout,
    // which a client opening a thousand connections at once on a busy machine can miss. Each
    // such failure is counted and printed with its cause; a stream cut after its answer began
    // is never retried, and every request must end with an answer.
    const retried = [];
    const send = async (base) => {
      for (let attempt = 0; ; attempt += 1) {
        let r;
        try {
          r = await post(base, p, chatBody);
        } catch (e) {
          retried.push(String(e.cause?.code ?? e.cause?.message ?? e.message));
          if (attempt === 2) throw new Error(`no answer after 3 attempts: ${retried.join(', ')}`);
          continue;
        }
        return { status: r.status, body: await r.text() };
      }
    };
    const answers = await Promise.all(Array.from({ length: duplicates }, (_, i) => send(i % 2 ? b : a)));
    if (retried.length) console.log(`     (${retried.length} of ${duplicates} sent again after a connection failure: ${[...new Set(retried)].join(', ')})`);
    assert.deepEqual([...new Set(answers.map((x) => x.status))], [200]);
    // Every body is a whole stream: the turn, or the empty successful stream of a lost claim.
    assert.ok(answers.every((x) => x.body.endsWith('data: [DONE]\n\n')));
    const full = answers.filter((x) => x.body !== 'data: [DONE]\n\n');
    assert.equal(full.length, 1);
    assert.ok(full[0].body.includes('Part two.'));
    assert.equal(await workerTurns(), before + 1);
    const persisted = await json(await fetch(`${a}${p}`));
    assert.equal(persisted.status, 'completed');
    assert.deepEqual(persisted.messages.map((m) => m.role), ['user', 'assistant']);
  });

  await check('cross-app and cross-workspace probes are 404', async () => {
    const other = await json(await post(a, '/api/workspaces/default/apps', { name: 'Other' }));
    for (const p of [
      `/api/workspaces/default/apps/${other.id}/runs/${run.id}/chat`,
      `/api/workspaces/default/apps/${other.id}/runs/${run.id}/chat/stream`,
      `/api/workspaces/elsewhere/apps/${app.id}/runs/${run.id}/chat`,
      `/api/workspaces/default/apps/nope/runs/${run.id}/chat`,
    ]) {
      const res = await fetch(a + p);
      assert.equal(res.status, 404, p);
      const body = await json(res);
      assert.equal(body.error.code, 'not_found');
    }
    const res = await post(a, `/api/workspaces/default/apps/${other.id}/runs/${run.id}/chat`, chatBody);
    assert.equal(res.status, 404);
  });

  await check('bad input: malformed JSON, wrong types, oversized bodies, bad cursor; nothing written', async () => {
    const fresh = await json(await post(a, `/api/workspaces/default/apps/${app.id}/runs`, {}));
    const p = `/api/workspaces/default/apps/${app.id}/runs/${fresh.id}/chat`;
    const cases = [
      ['{not json', 400, 'invalid_json'],
      ['[]', 400, 'invalid_body'],
      [JSON.stringify({ messages: 'hello' }), 400, 'invalid_body'],
      [JSON.stringify({ messages: [] }), 400, 'invalid_body'],
      [JSON.stringify({ messages: [{ parts: [] }] }), 400, 'invalid_body'],
      [JSON.stringify({ messages: [userMessage], runtimeId: 'runtime-z' }), 400, undefined],
      [JSON.stringify({ messages: [userMessage], pad: 'x'.repeat(100000) }), 413, 'body_too_large'],
    ];
    for (const [body, status, code] of cases) {
      const res = await post(a, p, body);
      assert.equal(res.status, status, body.slice(0, 60));
      const j = await json(res);
      assert.ok(j.error && typeof j.error.message === 'string', body.slice(0, 60));
      if (code) assert.equal(j.error.code, code);
    }
    const bad = await fetch(`${a}${p}/stream?cursor=-1`);
    assert.equal(bad.status, 400);
    const after = await json(await fetch(`${a}${p}`));
    assert.equal(after.status, 'pending');
    assert.equal(after.messageCount, 0);
    const badApp = await post(a, '/api/workspaces/default/apps', { name: 42 });
    assert.equal(badApp.status, 400);
  });

  // What the host saw around the stop below: the turn's runtime processes and open model
  // requests while the reply was held, and again the moment the stop's reply arrived.
  const modelPort = new URL(modelUrl).port;
  const modelPosts = () => fs.readFileSync(path.join(tmp, 'requests.jsonl'), 'utf8').split('\n').filter(Boolean)
    .map((l) => JSON.parse(l)).filter((r) => r.method === 'POST' && r.path.startsWith('/v1/messages')).length;
  let atStop;
  await check('Stop ends a turn mid-stream wherever it runs: abort chunk, partial message kept, run failed', async () => {
    const fresh = await json(await post(a, `/api/workspaces/default/apps/${app.id}/runs`, {}));
    const p = `/api/workspaces/default/apps/${app.id}/runs/${fresh.id}`;
    await fetch(`${modelUrl}/control/arm/mid`, { method: 'POST', body: '{}' });  // hold this turn
    const res = await post(a, `${p}/chat`, chatBody);
    const live = new EventReader(res);
    await live.until((e) => e.some((x) => x.includes('Part one.')));
    const stopEvents = new EventReader(await fetch(`${b}/api/workspaces/default/events`));
    // The model holds its reply at the pause: the turn's Claude Code and its jail are alive.
    const before = { processes: runtimeProcesses([`${path.join(tmp, 'data')}/`]), connections: connectionsTo(modelPort), requests: modelPosts() };
    const stopped = await post(b, `${p}/stop`, {});  // replica B: the stop travels to A
    const after = { processes: runtimeProcesses([`${path.join(tmp, 'data')}/`]), connections: connectionsTo(modelPort) };
    atStop = { before, after, run: p };
    assert.equal(stopped.status, 200);
    const failedEvents = await stopEvents.until((e) => e.some((x) => x.includes('run.failed') && x.includes(fresh.id)));
    const failed = failedEvents.map((x) => JSON.parse(x.slice(6))).find((e) => e.type === 'run.failed' && e.runId === fresh.id);
    assert.deepEqual(failed, { type: 'run.failed', workspaceId: 'default', appId: app.id, runId: fresh.id, kind: 'builder',
      status: 'failed' });
    stopEvents.reader.cancel();
    assert.deepEqual(await json(stopped), { id: fresh.id, status: 'failed' });
    const events = await live.toEnd();
    const chunks = events.map((e) => e.slice(6).trim()).filter((d) => d !== '[DONE]').map((d) => JSON.parse(d));
    const abort = chunks.findIndex((c) => c.type === 'abort');
    assert.ok(abort > 0, events.join(''));
    assert.equal(chunks[abort].reason, 'Stopped by the user.');
    assert.equal(chunks.at(-1).type, 'finish', 'the turn still finishes after the abort');
    assert.ok(!chunks.some((c) => c.type === 'error'), 'a stop is not an error');
    assert.ok(events.at(-1).includes('[DONE]'));
    assert.ok(!events.join('').includes('Part two.'));
    const history = await json(await fetch(`${b}${p}/chat`));
    assert.equal(history.status, 'failed');
    assert.equal(history.stopReason, 'user', 'the run says a person stopped it');
    assert.equal(history.activeStreamId, null);
    const said = history.messages.at(-1).parts.filter((x) => x.type === 'text').map((x) => x.text).join('');
    assert.equal(said.trim(), 'Part one.');
    const again = await post(a, `${p}/stop`, {});
    assert.equal(again.status, 409);
    assert.equal((await json(again)).error.code, 'not_streaming');
    assert.equal((await post(a, `/api/workspaces/default/apps/${app.id}/runs/run_nope/stop`, {})).status, 404);
    await fetch(`${modelUrl}/control/release/mid`, { method: 'POST', body: '{}' });
  });

  // Before issue 33 the web only cut the worker's stream, which the worker noticed when it next
  // wrote: with the model holding its reply, Claude Code (and its jail) lived on after the stop's
  // reply, until the model's pause timed out.
  await check('Stop: once its reply arrived no runtime process of the turn is left (Claude Code, its jail)', async () => {
    assert.ok(atStop, 'the stop check did not get to the stop');
    const cli = atStop.before.processes.filter((p) => isCli(p, 'claude'));
    assert.ok(cli.length > 0, `the held turn's Claude Code was seen before the stop: ${atStop.before.processes.map(describeProcess).join('\n')}`);
    assert.deepEqual(atStop.after.processes.map(describeProcess), [], 'runtime processes alive after the stop\'s reply');
  });

  // The held reply is a request the provider goes on generating, and billing, while its
  // connection is open; the model must see no request of the turn after the stop either.
  await check('Stop: the held model request is closed by the stop\'s reply, and the model gets no further request', async () => {
    assert.ok(atStop, 'the stop check did not get to the stop');
    assert.ok(atStop.before.connections.length > 0, 'the held model request was open before the stop');
    assert.deepEqual(atStop.after.connections.map(describeConnection), [], `model requests still open after the stop's reply (to 127.0.0.1:${modelPort})`);
    assert.equal(modelPosts(), atStop.before.requests, 'a model request after the stop');
    const history = await json(await fetch(`${a}${atStop.run}/chat`));
    assert.equal(history.status, 'failed');
  });

  if (replicas) {
    await check('killing replica A mid-stream fails the run cleanly; replica B reports it', async () => {
      const fresh = await json(await post(a, `/api/workspaces/default/apps/${app.id}/runs`, {}));
      const p = `/api/workspaces/default/apps/${app.id}/runs/${fresh.id}`;
      await fetch(`${modelUrl}/control/arm/mid`, { method: 'POST', body: '{}' });  // hold this turn
      const res = await post(a, `${p}/chat`, chatBody);
      const live = new EventReader(res);
      await live.until((e) => e.length >= 2);
      webA.child.kill('SIGKILL');
      const viewer = new EventReader(await fetch(`${b}${p}/chat/stream`));
      const events = await viewer.toEnd();
      assert.ok(events.some((x) => x.includes('"type":"error"')), 'the viewer is told the run stopped');
      const history = await json(await fetch(`${b}${p}/chat`));
      assert.equal(history.status, 'failed');
      assert.equal(history.stopReason, null, 'nobody stopped it');
      assert.equal(history.activeStreamId, null);
    });
  }
}

await run(main);
