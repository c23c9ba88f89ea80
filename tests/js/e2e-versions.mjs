// Versions with the real Claude Code CLI and the scripted model (issue 35): three turns that
// change files make three versions; the diff of v1..v3 is exactly what changed; restoring v1
// is a new version with v1's files and build (the draft preview shows that build again); the
// next turn is told about the restore and its shell reads v1's files in the workspace; a
// restore while a turn streams gets 409 app_busy; a bad version number gets a clear error.
// Releases: publishing one version, then a later one, records two releases; rolling back to
// the first republishes exactly it (the published page serves its build, the published app
// runs its approved agents), records a third release, and leaves the draft and its approval.
//
// Usage: node e2e-versions.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { endTurn, harness, previewGet, toolTurn, use, waitUntil } from './harness.mjs';
import { apiClient, startPlatform } from './browser/platform.mjs';

const args = process.argv.slice(2);
const opt = (name) => args[args.indexOf(name) + 1];
const h = harness('platform-versions-e2e-');
const { tmp, check, run } = h;

const heredoc = (file, text) => `cat > ${file} <<'EOF'\n${text}EOF`;
const app1 = 'export default function App() {\n  return <h1>Counter one</h1>;\n}\n';
const app2 = 'export default function App() {\n  return <h1>Counter two</h1>;\n}\n';
const helper = 'export const step = 2;\n';
const agentsDoc = (id) => `${JSON.stringify({ agents: [{ id, name: id, description: `Agent ${id}.`, systemPrompt: `You are ${id}.` }] })}\n`;
const releaseCommand = (id) => `${heredoc('agents.json', agentsDoc(id))}\n${heredoc('src/App.tsx', `export default () => <h1>Release ${id}</h1>;\n`)}`;
const writeTurns = (id, command, summary) => [
  toolTurn(use(`w_${id}`, 'Bash', { command, description: 'Write' })),
  toolTurn(use(`b_${id}`, 'mcp__platform__done_building', { summary })),
  endTurn(`Done: ${summary}.`),
];
const scenario = {
  turns: writeTurns('1', heredoc('src/App.tsx', app1), 'one'),
  after_user: [
    { contains: 'Count by two', turns: writeTurns('2', heredoc('src/App.tsx', app2), 'two') },
    { contains: 'Add a helper', turns: writeTurns('3', heredoc('src/step.ts', helper), 'helper') },
    { contains: 'What is there', turns: [toolTurn(use('r_4', 'Bash', { command: 'cat src/App.tsx; ls src', description: 'Look' })), endTurn('Looked.')] },
    { contains: 'Release two', turns: writeTurns('5', releaseCommand('two'), 'release two') },
    { contains: 'Release three', turns: writeTurns('6', releaseCommand('three'), 'release three') },
    { contains: 'Hold on', turns: [{ blocks: [{ type: 'text', text: 'Holding. ' }, { type: 'pause', name: 'turn' }, { type: 'text', text: 'Released.' }], stop_reason: 'end_turn' }] },
  ],
  aux: { blocks: [{ type: 'text', text: 'Title' }], stop_reason: 'end_turn' },
};

run(async () => {
  const scenarioFile = path.join(tmp, 'versions-scenario.json');
  fs.writeFileSync(scenarioFile, JSON.stringify(scenario));
  const p = await startPlatform(h, { buildDir: opt('--build'), projectDir: opt('--project'), scenarioFile });
  const call = apiClient(p.web);
  const raw = (method, route, body) => fetch(p.web + route, body === undefined ? { method } : { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const app = await call('POST', '/api/workspaces/default/apps', { name: 'Versions' });
  const A = `/api/workspaces/default/apps/${app.id}`;
  const runId = (await call('POST', `${A}/runs`, {})).id;
  let history = [];
  const turn = async (text) => {
    history = [...history, { id: `u${history.length}`, role: 'user', parts: [{ type: 'text', text }] }];
    const res = await fetch(`${p.web}${A}/runs/${runId}/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ messages: history }) });
    const body = await res.text();
    // A refused turn (a history that does not extend the stored one) says so here, not later.
    assert.equal(res.status, 200, body.slice(0, 500));
    const stored = await call('GET', `${A}/runs/${runId}/chat`);
    assert.equal(stored.status, 'completed', body.slice(-2000));
    history = stored.messages;
  };
  const file = (n, f) => call('GET', `${A}/versions/${n}/file?path=${encodeURIComponent(f)}`);

  await check('three turns that change files make three versions, newest first, each with its turn', async () => {
    await turn('Make a counter');
    await turn('Count by two');
    await turn('Add a helper');
    const { items, nextCursor } = await call('GET', `${A}/versions`);
    assert.equal(nextCursor, null);
    assert.deepEqual(items.map((v) => [v.number, v.request, v.runId, v.runtimeId]),
      [[3, 'Add a helper', runId, 'runtime-a'], [2, 'Count by two', runId, 'runtime-a'], [1, 'Make a counter', runId, 'runtime-a']]);
    assert.deepEqual(items[1].changes, { added: 0, removed: 0, modified: 1 });
    assert.deepEqual(items[0].changes, { added: 1, removed: 0, modified: 0 });
    for (const v of items) assert.match(v.buildDigest, /^sha256:[0-9a-f]{64}$/);
    assert.equal((await file(1, 'src/App.tsx')).content, app1);
    assert.equal((await file(3, 'src/App.tsx')).content, app2);
    // A page of one, then the next.
    const first = await call('GET', `${A}/versions?limit=1`);
    assert.equal(first.items[0].number, 3);
    assert.equal((await call('GET', `${A}/versions?limit=1&cursor=${first.nextCursor}`)).items[0].number, 2);
  });

  await check('the diff of v1..v3 is exactly what changed', async () => {
    const d = await call('GET', `${A}/versions/3/diff?from=1`);
    assert.equal(d.from, 1);
    assert.deepEqual(d.files.map((f) => [f.path, f.status, f.additions, f.deletions]), [['src/App.tsx', 'modified', 1, 1], ['src/step.ts', 'added', 1, 0]]);
    assert.equal(d.files[0].diff, '@@ -1,3 +1,3 @@\n export default function App() {\n-  return <h1>Counter one</h1>;\n+  return <h1>Counter two</h1>;\n }\n');
    assert.equal(d.files[1].diff, '@@ -0,0 +1 @@\n+export const step = 2;\n');
    // Without ?from: against the version before.
    assert.deepEqual((await call('GET', `${A}/versions/3/diff`)).files.map((f) => f.path), ['src/step.ts']);
  });

  await check('restoring v1 makes version 4 with v1\'s files and build; the draft preview shows that build', async () => {
    const v1 = (await call('GET', `${A}/versions`)).items.find((v) => v.number === 1);
    const restored = await call('POST', `${A}/versions/1/restore`);
    assert.equal(restored.number, 4);
    assert.equal(restored.restoredFrom, 1);
    assert.equal(restored.sourceDigest, v1.sourceDigest);
    assert.equal(restored.buildDigest, v1.buildDigest);
    assert.equal((await file(4, 'src/App.tsx')).content, app1);
    assert.equal((await raw('GET', `${A}/versions/4/file?path=src%2Fstep.ts`)).status, 404);
    const shown = await call('GET', A);
    assert.equal(shown.preview.digest, v1.buildDigest);
    // History is never rewritten: versions 1-3 are all still there.
    assert.deepEqual((await call('GET', `${A}/versions`)).items.map((v) => v.number), [4, 3, 2, 1]);
  });

  await check('the next turn is told about the restore, and its shell reads v1\'s files in the workspace', async () => {
    await turn('What is there now?');
    const asked = p.model.requests().filter((r) => JSON.stringify(r.body.messages).includes('What is there now?'));
    assert.ok(asked.length > 0, 'the turn reached the model');
    assert.ok(JSON.stringify(asked[0].body.messages).includes('the user restored version 1 of the app'), 'the restore note is in the prompt');
    // The shell's output: the tool result in the last message of the model's next request.
    const text = JSON.stringify(asked.at(-1).body.messages.at(-1));
    assert.ok(text.includes('tool_result') && text.includes('Counter one'), `cat shows v1's App.tsx: ${text.slice(0, 400)}`);
    assert.ok(!text.includes('step.ts'), 'v3\'s helper file is gone from the workspace');
    // That turn changed nothing: no version 5.
    assert.equal((await call('GET', `${A}/versions`)).items[0].number, 4);
  });

  await check('a restore while a turn streams is refused with 409 app_busy and a sentence', async () => {
    const streaming = fetch(`${p.web}${A}/runs/${runId}/chat`, { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [...history, { id: 'hold', role: 'user', parts: [{ type: 'text', text: 'Hold on' }] }] }) });
    await waitUntil('the turn streams', async () => (await call('GET', `${A}/runs/${runId}/chat`)).status === 'streaming');
    const refused = await raw('POST', `${A}/versions/2/restore`);
    assert.equal(refused.status, 409);
    const e = (await refused.json()).error;
    assert.equal(e.code, 'app_busy');
    assert.match(e.message, /builder is working on this app/);
    await p.model.release('turn');
    await (await streaming).text();
    assert.equal((await call('GET', `${A}/versions`)).items[0].number, 4, 'nothing was restored');
  });

  await check('a version downloads as a zip of its files, and the history as a git bundle git clones', async () => {
    const zip = await raw('GET', `${A}/versions/3/zip`);
    assert.equal(zip.status, 200);
    assert.equal(zip.headers.get('content-type'), 'application/zip');
    assert.equal(zip.headers.get('content-disposition'), 'attachment; filename="versions-v3.zip"');
    const zipFile = path.join(tmp, 'v3.zip');
    fs.writeFileSync(zipFile, Buffer.from(await zip.arrayBuffer()));
    execFileSync('unzip', ['-q', zipFile, '-d', path.join(tmp, 'unzipped')]);
    const v3 = await call('GET', `${A}/versions/3`);
    for (const f of v3.files) {
      assert.equal(fs.readFileSync(path.join(tmp, 'unzipped', 'versions-v3', f.path), 'utf8'), (await file(3, f.path)).content, f.path);
    }
    const bundle = await raw('GET', `${A}/history.bundle`);
    assert.equal(bundle.status, 200);
    const bundleFile = path.join(tmp, 'versions.bundle');
    fs.writeFileSync(bundleFile, Buffer.from(await bundle.arrayBuffer()));
    const repo = path.join(tmp, 'cloned');
    execFileSync('git', ['clone', '-q', bundleFile, repo]);
    const git = (...a) => execFileSync('git', ['-C', repo, ...a], { encoding: 'utf8' });
    const versions = (await call('GET', `${A}/versions`)).items;
    assert.deepEqual(git('log', '--format=%s').trim().split('\n'), versions.map((v) => v.request));
    assert.equal(git('show', 'HEAD~1:src/step.ts'), helper, 'version 3 (one before the restore) has the helper');
    assert.equal(fs.readFileSync(path.join(repo, 'src', 'App.tsx'), 'utf8'), app1, 'the checkout is the restored version 4');
    assert.match(git('log', '-1', '--format=%B'), /Version: 4\nRestored-From: 1\n/);
    git('fsck', '--strict');
  });

  await check('bad input: an unknown or malformed version is 404, a bad limit 400', async () => {
    assert.equal((await raw('GET', `${A}/versions/99`)).status, 404);
    assert.equal((await raw('GET', `${A}/versions/abc`)).status, 404);
    assert.equal((await raw('POST', `${A}/versions/99/restore`)).status, 404);
    assert.equal((await raw('GET', `${A}/versions?limit=0`)).status, 400);
    assert.equal((await raw('GET', `${A}/versions/1/diff?from=x`)).status, 400);
    assert.equal((await raw('GET', `${A}/versions/99/zip`)).status, 404);
  });

  const publish = async () => {
    const view = await call('GET', `${A}/agents`);
    assert.ok(view.draftHash, `the draft has a valid agents.json: ${JSON.stringify(view).slice(0, 600)}`);
    await call('POST', `${A}/agents/approval`, { approvalHash: view.draftHash });
    await call('POST', `${A}/publish`);
    return (await call('GET', `${A}/releases`)).items[0];
  };
  const livePage = async () => {
    const shown = (await call('GET', A)).publishedPreview;
    const page = await previewGet(shown.url);
    assert.equal(page.status, 200);
    return { digest: shown.digest, html: page.body.toString() };
  };
  const agentRun = (agentId) => raw('POST', `${A}/agent-runs`, { agentId, prompt: 'Hello' });
  const releases = {};
  const pages = {};

  await check('publishing a version, then a later one, records two releases with their builds and approved agents', async () => {
    history = (await call('GET', `${A}/runs/${runId}/chat`)).messages;  // with the held turn
    await turn('Release two');
    releases.two = await publish();
    pages.two = await livePage();
    await turn('Release three');
    releases.three = await publish();
    pages.three = await livePage();
    const versions = (await call('GET', `${A}/versions`)).items;
    assert.deepEqual([releases.two.number, releases.two.version, releases.two.via], [1, versions[1].number, 'publish']);
    assert.deepEqual([releases.three.number, releases.three.version], [2, versions[0].number]);
    assert.equal(releases.two.buildDigest, versions[1].buildDigest);
    assert.equal(releases.two.request, 'Release two');
    assert.deepEqual(releases.two.approval.agents, ['two']);
    assert.deepEqual(releases.three.approval.agents, ['three']);
    assert.notEqual(pages.two.digest, pages.three.digest);
    assert.equal(pages.three.digest, releases.three.buildDigest);
    assert.deepEqual((await call('GET', `${A}/releases`)).items.map((r) => [r.number, r.live]), [[2, true], [1, false]]);
  });

  await check('rolling back to the first release serves its build with its approved agents; the draft is untouched', async () => {
    const draftBefore = await call('GET', `${A}/agents`);
    const made = await call('POST', `${A}/releases/1/rollback`);
    assert.deepEqual([made.number, made.via, made.rolledBackFrom, made.version, made.live], [3, 'rollback', 1, releases.two.version, true]);
    assert.equal(made.approval.hash, releases.two.approval.hash);
    const live = await livePage();
    assert.equal(live.digest, releases.two.buildDigest);
    assert.equal(live.html, pages.two.html, 'the published page serves release 1\'s build');
    // The published app runs release 1's approved agents, and only those.
    assert.equal((await agentRun('two')).status, 201);
    const gone = await agentRun('three');
    assert.equal(gone.status, 404);
    assert.equal((await gone.json()).error.code, 'agent_not_found');
    const after = await call('GET', `${A}/agents`);
    assert.equal(after.published.hash, releases.two.approval.hash);
    assert.equal(after.draftHash, draftBefore.draftHash, 'the draft agents.json is the builder\'s still');
    assert.equal(after.approvalStatus, 'approved', 'the draft\'s approval stands');
    assert.equal((await call('GET', A)).preview.digest, releases.three.buildDigest, 'the draft preview is the latest build still');
    assert.deepEqual((await call('GET', `${A}/releases`)).items.map((r) => [r.number, r.live]), [[3, true], [2, false], [1, false]]);
    // Unknown releases are 404s and change nothing.
    assert.equal((await raw('POST', `${A}/releases/99/rollback`)).status, 404);
    assert.equal((await raw('POST', `${A}/releases/x/rollback`)).status, 404);
    assert.equal((await call('GET', `${A}/releases`)).items.length, 3);
  });

  await check('a rollback review: asked for a release, approving it rolls back to that release as the review says', async () => {
    assert.equal((await raw('POST', `${A}/reviews`, { rollbackTo: 99 })).status, 404);
    assert.equal((await raw('POST', `${A}/reviews`, { rollbackTo: 'two' })).status, 400);
    const review = await call('POST', `${A}/reviews`, { rollbackTo: 2, note: 'Back to three' });
    assert.equal(review.rollbackTo, 2);
    assert.equal(review.status, 'pending');
    const decided = await call('POST', `${A}/reviews/${review.id}/approve`, {});
    assert.equal(decided.status, 'approved');
    const [made] = (await call('GET', `${A}/releases`)).items;
    assert.deepEqual([made.number, made.via, made.rolledBackFrom, made.reviewId, made.live], [4, 'rollback', 2, review.id, true]);
    const live = await livePage();
    assert.equal(live.digest, releases.three.buildDigest);
    assert.equal(live.html, pages.three.html);
    assert.equal((await agentRun('three')).status, 201);
  });
});
