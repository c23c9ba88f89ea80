// The shared stores going away mid-turn (issue 14, item 4), on two web replicas sharing
// PostgreSQL and Redis, with the real Claude Code CLI and the scripted model holding its answer
// mid-text:
//   0. PostgreSQL restarts (fast shutdown: every connection is cut). The turn completes and its
//      message is persisted: the store's pool reconnects. Down when the turn ends, the end
//      waits for it (PLATFORM_CACHE_OUTAGE_MS) and the message is persisted.
//   1. Redis restarts (empty: no persistence) while the turn is held. The turn goes on; the
//      producer puts the stream back from its own copy; the POST's stream (replica A) and a
//      viewer on replica B both get the whole answer and [DONE], the real AI SDK client
//      assembles from each exactly the message the run persisted, and the run completes.
//   2. Redis restarts while an app agent run is held: the run's streams (its owning viewer on A,
//      a viewer on B) get the whole answer and [DONE], the same turn type and stream writer as a
//      builder turn's putting the stream back; the run completes.
//   3. Redis stays down longer than PLATFORM_CACHE_OUTAGE_MS: the POST's stream and the viewer
//      get an error chunk and [DONE] instead of a silent end, and when the model goes on past
//      the limit the turn gives up its stream and the run fails, not stuck streaming.
//
// Usage: node e2e-outages.mjs --build DIR --project DIR --replicas
// (needs PLATFORM_TEST_PG_URL, PLATFORM_TEST_REDIS_URL, PLATFORM_TEST_SERVICES_DIR)
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { assembleMessage, endTurn, harness, SseReader, startModelAndWorker } from './harness.mjs';

const args = process.argv.slice(2);
const opt = (name) => path.resolve(args[args.indexOf(name) + 1]);
const buildDir = opt('--build');
const projectDir = opt('--project');
const { tmp, check, start, run } = harness('platform-outages-e2e-');
const services = (what) =>
  execFileSync('bash', [path.join(projectDir, 'scripts/services.sh'), what, process.env.PLATFORM_TEST_SERVICES_DIR], { stdio: 'inherit' });

const held = (name, before, after) => ({
  blocks: [{ type: 'text', text: before }, { type: 'pause', name }, { type: 'text', text: after }],
  stop_reason: 'end_turn',
});
const scenario = {
  turns: [
    held('pg', 'Written before PostgreSQL restarts. ', 'Written after it came back.'),
    held('pgdown', 'Written before PostgreSQL goes down. ', 'Written while it is down.'),
    held('restart', 'Written before Redis restarts. ', 'Written after it came back.'),
    {
      blocks: [
        { type: 'text', text: 'Written before Redis goes down. ' },
        { type: 'pause', name: 'down' },
        { type: 'text', text: 'Written while it is down. ' },
        { type: 'pause', name: 'later' },
        { type: 'text', text: 'Never stored.' },
      ],
      stop_reason: 'end_turn',
    },
    endTurn('unused'),
  ],
  aux: { blocks: [{ type: 'text', text: 'Outage' }], stop_reason: 'end_turn' },
  // The app agent's run (its request carries its tools, none of the builder's).
  agent: held('agent', 'The agent before Redis restarts. ', 'The agent after it came back.'),
};

const textOf = (m) => m.parts.filter((p) => p.type === 'text').map((p) => p.text).join('');

run(async () => {
  assert.ok(process.env.PLATFORM_TEST_SERVICES_DIR, 'PLATFORM_TEST_SERVICES_DIR (scripts/services.sh) is required');
  const { modelUrl, workerUrl } = await startModelAndWorker({ start, tmp }, { buildDir, projectDir, scenario });
  const webEnv = {
    PLATFORM_WEB_PORT: '0',
    PLATFORM_DATA_DIR: path.join(tmp, 'data'),
    PLATFORM_WORKER_URL: workerUrl,
    PLATFORM_DATABASE_URL: process.env.PLATFORM_TEST_PG_URL,
    PLATFORM_REDIS_URL: process.env.PLATFORM_TEST_REDIS_URL,
    PLATFORM_SSE_HEARTBEAT_MS: '500',
    PLATFORM_CACHE_OUTAGE_MS: '4000',
  };
  const web = path.join(buildDir, 'servers/web/platform-web');
  const a = (await start('web-a', web, [], webEnv, /listening on (http:\S+)/)).match[1];
  const b = (await start('web-b', web, [], webEnv, /listening on (http:\S+)/)).match[1];
  const post = (base, p, body) => fetch(base + p, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const app = await (await post(a, '/api/workspaces/default/apps', { name: 'Outage' })).json();
  const made = await (await post(a, `/api/workspaces/default/apps/${app.id}/runs`, {})).json();
  const runPath = `/api/workspaces/default/apps/${app.id}/runs/${made.id}`;
  const release = (name) => fetch(`${modelUrl}/control/release/${name}`, { method: 'POST', body: '{}' });
  const user = (id, text) => ({ id, role: 'user', parts: [{ type: 'text', text }] });

  const history = async () => (await (await fetch(`${a}${runPath}/chat`)).json()).messages;

  await check('a PostgreSQL restart mid-turn: the turn completes and its message is persisted', async () => {
    const res = await post(a, `${runPath}/chat`, { messages: [user('u0', 'Go on through a database restart')] });
    const live = new SseReader(res);
    await live.until((e) => e.some((x) => x.includes('Written befo')));
    services('restart-postgres');
    await release('pg');
    const produced = await live.toEnd();
    assert.ok(!produced.some((e) => e.includes('"type":"error"')), produced.join(''));
    const persisted = await (await fetch(`${a}${runPath}/chat`)).json();
    assert.equal(persisted.status, 'completed');
    assert.equal(textOf(persisted.messages.at(-1)), 'Written before PostgreSQL restarts. Written after it came back.');
  });

  await check('PostgreSQL down when the turn ends: the end waits for it, and the message is persisted', async () => {
    const res = await post(a, `${runPath}/chat`, { messages: [...(await history()), user('u0b', 'Finish while the database is down')] });
    const live = new SseReader(res);
    await live.until((e) => e.some((x) => x.includes('Written befo')));
    services('stop-postgres');
    try {
      await release('pgdown');
      // The turn's finish is out; its [DONE] waits until the turn is persisted.
      await live.until((e) => e.some((x) => x.includes('"type":"finish"')));
    } finally {
      services('start-postgres');
    }
    await live.toEnd();
    const persisted = await (await fetch(`${a}${runPath}/chat`)).json();
    assert.equal(persisted.status, 'completed');
    assert.equal(textOf(persisted.messages.at(-1)), 'Written before PostgreSQL goes down. Written while it is down.');
  });

  await check('a Redis restart mid-turn loses nothing: both streams end with the whole answer and [DONE]; the run completes', async () => {
    const res = await post(a, `${runPath}/chat`, { messages: [...(await history()), user('u1', 'Go on through a restart')] });
    const live = new SseReader(res);
    await live.until((e) => e.some((x) => x.includes('Written befo')));
    const viewer = new SseReader(await fetch(`${b}${runPath}/chat/stream`));
    await viewer.until((e) => e.some((x) => x.includes('Written befo')));
    services('restart-redis');
    await release('restart');
    const produced = await live.toEnd();
    const seen = await viewer.toEnd();
    const persisted = await (await fetch(`${a}${runPath}/chat`)).json();
    assert.equal(persisted.status, 'completed');
    const last = persisted.messages.at(-1);
    const expected = 'Written before Redis restarts. Written after it came back.';
    assert.equal(textOf(last), expected);
    for (const body of [produced, seen]) {
      assert.ok(!body.some((e) => e.includes('"type":"error"')), body.join(''));
      const m = await assembleMessage(body.join(''));
      assert.equal(m.id, last.id);
      assert.equal(textOf(m), expected);
    }
    // After the restart the stream is there again for a viewer from the beginning.
    const again = await fetch(`${b}${runPath}/chat/stream`);
    assert.equal(again.status, 204);  // the turn is over: nothing to attach to
  });

  await check("a Redis restart mid-run does not cut an app-agent run's stream: the owning viewer and one on the other replica get the whole answer", async () => {
    const appPath = `/api/workspaces/default/apps/${app.id}`;
    const webFetch = { type: 'builtin', name: 'WebFetch', description: 'Fetch pages.', enabled: true, recommended: false };
    const agents = { agents: [{ id: 'helper', name: 'Helper', description: 'Helps.', systemPrompt: 'You help.', tools: [webFetch] }] };
    const patched = await (await fetch(a + `${appPath}/agents`, {
      method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify(agents),
    })).json();
    assert.equal(patched.valid, true, JSON.stringify(patched.problems));
    const created = await post(a, `${appPath}/agent-runs`, { agentId: 'helper', prompt: 'Go on through a restart', draft: true });
    assert.equal(created.status, 201, await created.clone().text());
    const agentRun = `${appPath}/agent-runs/${(await created.json()).id}`;
    const owner = new SseReader(await fetch(`${a}${agentRun}/stream`, { method: 'POST' }));
    await owner.until((e) => e.some((x) => x.includes('The agent be'))).catch((e) => { throw new Error(`${e.message}: ${owner.events.join('')}`); });
    const viewer = new SseReader(await fetch(`${b}${agentRun}/stream`));
    await viewer.until((e) => e.some((x) => x.includes('The agent be')));
    services('restart-redis');
    await release('agent');
    const expected = 'The agent before Redis restarts. The agent after it came back.';
    const toEnd = (r, who) => r.toEnd().catch((e) => { throw new Error(`${who}: ${e.message}: ${r.events.join('')}`); });
    for (const body of [await toEnd(owner, 'owner on A'), await toEnd(viewer, 'viewer on B')]) {
      assert.ok(!body.some((e) => e.includes('"type":"error"')), body.join(''));
      assert.equal(body.at(-1), 'data: [DONE]\n\n');
      assert.equal(textOf(await assembleMessage(body.join(''))), expected);
    }
    let status = 'running';
    for (let i = 0; i < 300 && !['completed', 'failed'].includes(status); i++) {
      status = (await (await fetch(a + agentRun)).json()).status;
      if (!['completed', 'failed'].includes(status)) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(status, 'completed');
  });

  await check('Redis down past the outage limit: the viewer gets an error chunk and [DONE]; the run fails, not stuck', async () => {
    const res = await post(a, `${runPath}/chat`, {
      messages: [...(await history()), user('u2', 'Now through a long outage')],
    });
    const live = new SseReader(res);
    await live.until((e) => e.some((x) => x.includes('Written befo')));
    const viewer = new SseReader(await fetch(`${b}${runPath}/chat/stream`));
    await viewer.until((e) => e.some((x) => x.includes('Written befo')));
    services('stop-redis');
    try {
      await release('down');
      const downAt = Date.now();
      const seen = await viewer.toEnd();
      const error = seen.find((e) => e.includes('"type":"error"'));
      assert.ok(error, seen.slice(-3).join(''));
      assert.match(error, /cache store/);
      const produced = await live.toEnd();
      assert.ok(produced.some((e) => e.includes('"type":"error"')));
      // The model goes on past the limit: the turn gives up its stream and the run fails
      // (PostgreSQL kept working throughout), instead of staying streaming. The viewers' outage
      // began at the stop, the turn's only at its first append after 'down': the model goes on
      // once that one too is past PLATFORM_CACHE_OUTAGE_MS (4 s), with a second to spare.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, downAt + 5000 - Date.now())));
      await release('later');
      let status = 'streaming';
      for (let i = 0; i < 300 && status === 'streaming'; i++) {
        status = (await (await fetch(`${a}${runPath}/chat`)).json()).status;
        if (status === 'streaming') await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(status, 'failed');
    } finally {
      services('start-redis');
    }
  });
});
