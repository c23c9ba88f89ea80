// How a builder turn ends (spec "Builder run": only an implementation that wrote files needs a
// successful done_building), decided from what the turn really changed in the workspace:
// platform-web + platform-worker + the real Claude Code CLI + the scripted model server. A turn
// that only runs `ls` and answers completes; the next turn of the same run writes a file with
// a shell command and stops without done_building, and fails.
//
// Usage: node e2e-turn-status.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { harness, SseReader, use, toolTurn, endTurn } from './harness.mjs';

const args = process.argv.slice(2);
const opt = (name) => args[args.indexOf(name) + 1];
const buildDir = path.resolve(opt('--build'));
const projectDir = path.resolve(opt('--project'));
const { tmp, check, start, run } = harness('platform-turn-status-');

const scenario = {
  turns: [
    toolTurn(use('ls1', 'Bash', { command: 'ls src', description: 'List the sources' })),
    endTurn('The app has App.tsx and main.tsx.'),
    toolTurn(use('w1', 'Bash', { command: 'echo note > src/note.txt', description: 'Write a note' })),
    endTurn('I wrote a note.'),
  ],
  aux: endTurn('Title'),
};

await run(async () => {
  fs.writeFileSync(path.join(tmp, 'scenario.json'), JSON.stringify(scenario));
  const model = await start('model', 'python3', [path.join(projectDir, 'tests/model_server/model_server.py'),
    '--script', path.join(tmp, 'scenario.json'), '--port', '0', '--idle-exit', '600'], {}, /^(\d+)\n/m);
  const workspaces = path.join(tmp, 'data', 'workspaces');
  const worker = (await start('worker', path.join(buildDir, 'servers/worker/platform-worker'), [], {
    PLATFORM_WORKER_PORT: '0', PLATFORM_DATA_DIR: path.join(tmp, 'data'),
    PLATFORM_APP_TEMPLATE_DIR: path.join(projectDir, 'templates/app-workspace'),
    ANTHROPIC_BASE_URL: `http://127.0.0.1:${model.match[1]}`, ANTHROPIC_API_KEY: 'scripted-model-key',
    CLAUDE_CODE_MAX_RETRIES: '0',
  }, /listening on (http:\S+)/)).match[1];
  const web = (await start('web', path.join(buildDir, 'servers/web/platform-web'), [], {
    PLATFORM_WEB_PORT: '0', PLATFORM_DATA_DIR: path.join(tmp, 'web'), PLATFORM_WORKER_URL: worker,
  }, /listening on (http:\S+)/)).match[1];
  const call = async (method, p, body) => {
    const res = await fetch(web + p, { method, headers: body ? { 'content-type': 'application/json' } : {},
      body: body && JSON.stringify(body) });
    return res;
  };
  const app = await (await call('POST', '/api/workspaces/default/apps', { name: 'Status' })).json();
  const run = await (await call('POST', `/api/workspaces/default/apps/${app.id}/runs`, {})).json();
  const runPath = `/api/workspaces/default/apps/${app.id}/runs/${run.id}`;
  const events = new SseReader(await fetch(`${web}/api/workspaces/default/events`), { payload: true });
  const turn = async (messages) => {
    const res = await call('POST', `${runPath}/chat`, { messages });
    assert.equal(res.status, 200);
    return (await new SseReader(res, { payload: true }).toEnd()).filter((e) => e !== '[DONE]').map((e) => JSON.parse(e));
  };
  const ended = (n) => events.until((e) => e.map((x) => JSON.parse(x))
    .filter((x) => x.runId === run.id && (x.type === 'run.completed' || x.type === 'run.failed')).length >= n);

  await check('a turn that only reads (Bash ls) and answers completes', async () => {
    const chunks = await turn([{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'What files are there?' }] }]);
    assert.ok(chunks.some((c) => c.type === 'tool-input-available' && c.toolName === 'Bash'), 'the Bash card');
    assert.ok(chunks.some((c) => c.type === 'tool-output-available' && JSON.stringify(c.output).includes('App.tsx')));
    const history = await (await call('GET', `${runPath}/chat`)).json();
    assert.equal(history.status, 'completed');
    await ended(1);
    assert.ok(events.events.map((x) => JSON.parse(x)).some((x) => x.runId === run.id && x.type === 'run.completed'));
  });

  await check('a turn that writes a file and stops without done_building fails', async () => {
    const history = await (await call('GET', `${runPath}/chat`)).json();
    const chunks = await turn([...history.messages,
      { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'Write a note.' }] }]);
    assert.ok(chunks.some((c) => c.type === 'tool-input-available' && c.toolName === 'Bash'));
    assert.equal(fs.readFileSync(path.join(workspaces, app.id, 'src/note.txt'), 'utf8'), 'note\n');
    const after = await (await call('GET', `${runPath}/chat`)).json();
    assert.equal(after.status, 'failed');
    assert.equal(after.messageCount, 4, 'the turn is still persisted');
    await ended(2);
    const last = events.events.map((x) => JSON.parse(x)).filter((x) => x.runId === run.id).at(-1);
    assert.equal(last.type, 'run.failed');
  });
  events.reader.cancel();
});
