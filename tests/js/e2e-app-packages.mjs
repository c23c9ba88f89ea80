// The builder's add_packages tool end to end on platform-worker: the real Claude Code CLI, driven
// by the scripted model server, adds clsx@2.1.1 (a tiny package with its own types) to an app
// whose src/App.tsx imports it; done_building fails before (tsc cannot find the module) and
// passes after (type check and build). Bad specs (a range, a URL, a platform package, no
// version, a git shorthand, not an array) are refused with each problem's code, and a version
// the registry does not have fails in npm with nothing changed in the workspace. The app's
// source snapshot carries package.json and the lock; restored on a fresh worker (a new
// workspaces dir), done_building passes again with the app's own node_modules installed from its
// lock, and a package.json edited by hand is refused. The template's shared tree is never
// written to.
//
// npm never reaches the network here: the worker runs it with PLATFORM_NPM_OFFLINE=1 on the npm
// cache that scripts/setup-test-npm-cache.sh filled (run below too; a no-op after
// scripts/test.sh), passed explicitly as PLATFORM_NPM_CACHE.
//
// Usage: node e2e-app-packages.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { harness, SseReader, use, toolTurn, endTurn, toolResult } from './harness.mjs';

const args = process.argv.slice(2);
const opt = (name) => args[args.indexOf(name) + 1];
const buildDir = path.resolve(opt('--build'));
const projectDir = path.resolve(opt('--project'));
const { tmp, check, start, run } = harness('platform-app-packages-e2e-');
const token = 'internal-token-for-tests-0123456789abcdef';
const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
const aux = { blocks: [{ type: 'text', text: 'Title' }], stop_reason: 'end_turn' };
const templateDir = path.join(projectDir, 'templates/app-workspace');
const sampleLock = JSON.parse(fs.readFileSync(path.join(projectDir, 'tests/js/samples/app-packages/package-lock.json'), 'utf8'));
const clsxIntegrity = sampleLock.packages['node_modules/clsx'].integrity;

// The npm cache of this environment (npm_config_cache, else ~/.npm): the one the setup filled.
const npmCache = execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8', cwd: tmp }).trim();

async function startWorker(name, turns) {
  const scenario = path.join(tmp, `${name}.json`);
  fs.writeFileSync(scenario, JSON.stringify({ turns, aux }));
  const model = await start(`${name}-model`, 'python3', [path.join(projectDir, 'tests/model_server/model_server.py'),
    '--script', scenario, '--port', '0', '--idle-exit', '600'], {}, /^(\d+)\n/m);
  const dataDir = path.join(tmp, `${name}-data`);
  const url = (await start(`${name}-worker`, path.join(buildDir, 'servers/worker/platform-worker'), [], {
    PLATFORM_WORKER_PORT: '0',
    PLATFORM_DATA_DIR: dataDir,
    PLATFORM_APP_TEMPLATE_DIR: templateDir,
    PLATFORM_NPM_CACHE: npmCache,
    PLATFORM_NPM_OFFLINE: '1',
    INTERNAL_API_TOKEN: token,
    ANTHROPIC_BASE_URL: `http://127.0.0.1:${model.match[1]}`,
    ANTHROPIC_API_KEY: 'scripted-model-key',
    CLAUDE_CODE_MAX_RETRIES: '0',
  }, /listening on (http:\S+)/)).match[1];
  return { url, workspaces: path.join(dataDir, 'workspaces') };
}

// The run capability of `appId`'s builder turns (any string, for the worker); its per-app
// routes want it back as X-Run-Capability.
const capabilityOf = (appId) => `cap-run-${appId}`;

// One builder turn: the worker messages of its SSE response, without [DONE].
async function turn(worker, appId, prompt, extra = {}) {
  const r = await fetch(`${worker}/sessions/${appId}/messages`, {
    method: 'POST', headers: auth,
    body: JSON.stringify({ runId: `run-${appId}`, workspaceId: 'ws1', prompt, systemPrompt: 'You are the app builder.',
      runCapability: capabilityOf(appId), ...extra }),
  });
  assert.equal(r.status, 200, await r.clone().text());
  const events = await new SseReader(r, { payload: true }).toEnd();
  return events.slice(0, -1).map((e) => JSON.parse(e));
}

const jsonOf = (messages, id, isError) => {
  const r = toolResult(messages, id);
  assert.equal(r.isError, isError, r.text);
  return JSON.parse(r.text);
};
const read = (...p) => fs.readFileSync(path.join(...p), 'utf8');
const isLink = (p) => fs.lstatSync(p).isSymbolicLink();

const appTsx = `import clsx from 'clsx';

export default function App() {
  const done = false;
  return (
    <main className={clsx('p-8', done && 'line-through', { 'text-emerald-700': !done })}>
      <h1 className="text-2xl font-bold">Packages app</h1>
    </main>
  );
}
`;

async function main() {
  execFileSync('bash', [path.join(projectDir, 'scripts/setup-test-npm-cache.sh')], { stdio: ['ignore', 2, 2] });
  const templateManifest = read(templateDir, 'package.json');
  const templateLock = read(templateDir, 'package-lock.json');
  const templateTree = fs.readdirSync(path.join(templateDir, 'node_modules')).sort();

  await check('bad specs are refused with a code each; a version the registry lacks fails in npm, changing nothing', async () => {
    const worker = await startWorker('bad', [
      toolTurn(use('t_bad', 'mcp__platform__add_packages', { packages: ['clsx@^2.1.1',
        'https://registry.npmjs.org/clsx/-/clsx-2.1.1.tgz', 'react@19.0.0', 'left-pad', 'github:lukeed/clsx', 'Clsx@2.1.1'] })),
      toolTurn(use('t_shape', 'mcp__platform__add_packages', { packages: 'clsx@2.1.1' })),
      toolTurn(use('t_none', 'mcp__platform__add_packages', { packages: [] })),
      toolTurn(use('t_missing', 'mcp__platform__add_packages', { packages: ['clsx@99.0.0'] })),
      endTurn('No packages.'),
    ]);
    const msgs = await turn(worker.url, 'app-bad', 'Add clsx');
    const bad = jsonOf(msgs, 't_bad', true);
    assert.equal(bad.status, 'invalid_packages');
    assert.deepEqual(bad.problems.map((p) => `${p.path}=${p.code}`), ['packages[0]=not_exact_version',
      'packages[1]=unsupported_source', 'packages[2]=platform_package', 'packages[3]=missing_version',
      'packages[4]=unsupported_source', 'packages[5]=invalid_name']);
    assert.match(bad.problems[0].message, /exact version/);
    assert.match(bad.problems[2].message, /platform's own packages/);
    assert.match(bad.message, /Nothing was installed/);
    assert.equal(jsonOf(msgs, 't_shape', true).problems[0].code, 'invalid_spec');
    assert.equal(jsonOf(msgs, 't_none', true).problems[0].code, 'no_packages');

    const missing = jsonOf(msgs, 't_missing', true);
    assert.equal(missing.status, 'install_failed');
    assert.equal(missing.code, 'npm_failed');
    assert.match(missing.error, /no such package or version/);
    assert.match(missing.npm.output, /ETARGET|No matching version/);
    assert.ok(!missing.npm.output.includes(npmCache), 'the cache path is scrubbed');
    assert.ok(!missing.npm.output.includes(worker.workspaces), 'the staging path is scrubbed');
    assert.match(missing.message, /Nothing was changed/);

    const ws = path.join(worker.workspaces, 'app-bad');
    assert.equal(read(ws, 'package.json'), templateManifest);
    assert.equal(read(ws, 'package-lock.json'), templateLock);
    assert.ok(isLink(path.join(ws, 'node_modules')), 'still the shared template tree');
    assert.deepEqual(fs.readdirSync(path.join(worker.workspaces, '.app-packages')), [], 'no staging folder left');
  });

  let snapshot;
  await check('add_packages pins clsx@2.1.1 from the cache; the app importing it type-checks and builds', async () => {
    const ws = path.join(tmp, 'add-data', 'workspaces', 'app-pk');
    const worker = await startWorker('add', [
      toolTurn(use('t_write', 'Write', { file_path: path.join(ws, 'src/App.tsx'), content: appTsx })),
      toolTurn(use('t_done0', 'mcp__platform__done_building', {})),
      toolTurn(use('t_add', 'mcp__platform__add_packages', { packages: ['clsx@2.1.1'] })),
      toolTurn(use('t_done1', 'mcp__platform__done_building', { summary: 'Uses clsx.' })),
      endTurn('Built with clsx.'),
    ]);
    const msgs = await turn(worker.url, 'app-pk', 'Use clsx for class names');
    const before = jsonOf(msgs, 't_done0', false);
    assert.equal(before.ok, false);
    assert.match(before.typecheck.output, /Cannot find module 'clsx'/);

    const added = jsonOf(msgs, 't_add', false);
    assert.equal(added.status, 'ok', JSON.stringify(added));
    assert.deepEqual(added.added, ['clsx@2.1.1']);
    assert.deepEqual(added.appPackages, { clsx: '2.1.1' });
    console.log(`     add_packages clsx@2.1.1 offline took ${added.durationMs} ms`);

    const built = jsonOf(msgs, 't_done1', false);
    assert.equal(built.ok, true, JSON.stringify(built).slice(0, 3000));
    assert.equal(built.typecheck.ok, true);

    const manifest = JSON.parse(read(ws, 'package.json'));
    assert.equal(manifest.dependencies.clsx, '2.1.1');
    assert.deepEqual({ ...manifest.dependencies, clsx: undefined }, { ...JSON.parse(templateManifest).dependencies, clsx: undefined });
    assert.deepEqual(manifest.devDependencies, JSON.parse(templateManifest).devDependencies);
    const lock = JSON.parse(read(ws, 'package-lock.json'));
    assert.equal(lock.packages[''].dependencies.clsx, '2.1.1');
    assert.equal(lock.packages['node_modules/clsx'].version, '2.1.1');
    assert.equal(lock.packages['node_modules/clsx'].integrity, clsxIntegrity, 'the tarball the sample lock pins');
    assert.ok(!isLink(path.join(ws, 'node_modules')), 'the app has its own tree');
    assert.equal(JSON.parse(read(ws, 'node_modules/clsx/package.json')).version, '2.1.1');
    assert.ok(fs.existsSync(path.join(ws, 'node_modules/typescript/bin/tsc')));
    // npm ran in the app's jail, as its sandbox uid (a root worker's jails: 61000 and up), from
    // a private cache: the shared one holds nothing of that uid.
    if (process.getuid() === 0) {
      const owner = fs.statSync(path.join(ws, 'node_modules/clsx/package.json')).uid;
      assert.ok(owner >= 61000 && owner < 62000, `npm wrote the tree as uid ${owner}, not the app's sandbox uid`);
      const foreign = execFileSync('find', [npmCache, '-not', '-uid', '0', '-print', '-quit']).toString().trim();
      assert.equal(foreign, '', 'a file of the shared npm cache belongs to a sandbox uid');
    }

    const r = await fetch(`${worker.url}/sessions/app-pk/source-snapshot`,
      { headers: { ...auth, 'x-run-capability': capabilityOf('app-pk') } });
    assert.equal(r.status, 200);
    snapshot = (await r.json()).files;
    assert.equal(snapshot['package.json'], read(ws, 'package.json'));
    assert.equal(snapshot['package-lock.json'], read(ws, 'package-lock.json'));
    assert.ok(!Object.keys(snapshot).some((p) => p.startsWith('node_modules/')));
  });

  await check('restored on a fresh worker, the app installs its own tree from its lock and builds; hand edits are refused', async () => {
    assert.ok(snapshot, 'the snapshot of the previous check');
    const hand = `node -e "const f='package.json',p=JSON.parse(require('fs').readFileSync(f));p.dependencies['left-pad']='^1.3.0';require('fs').writeFileSync(f,JSON.stringify(p,null,2))"`;
    const worker = await startWorker('restore', [
      toolTurn(use('t_done', 'mcp__platform__done_building', {})),
      toolTurn(use('t_edit', 'Bash', { command: hand, description: 'Add left-pad by hand' })),
      toolTurn(use('t_done_hand', 'mcp__platform__done_building', {})),
      endTurn('Restored.'),
    ]);
    const missing = await fetch(`${worker.url}/sessions/app-pk/messages`, {
      method: 'POST', headers: auth,
      body: JSON.stringify({ runId: 'run-app-pk', workspaceId: 'ws1', prompt: 'x', hasDraft: true, runCapability: capabilityOf('app-pk') }),
    });
    assert.equal(missing.status, 409, 'the web writes the draft first');
    for (const [p, content] of Object.entries(snapshot)) {
      const put = await fetch(`${worker.url}/sessions/app-pk/files`, { method: 'PUT', headers: auth, body: JSON.stringify({ path: p, content }) });
      assert.equal(put.status, 200, `${p}: ${await put.text()}`);
    }
    const started = Date.now();
    const msgs = await turn(worker.url, 'app-pk', 'Rebuild the app', { hasDraft: true });
    console.log(`     restored turn (own tree installed offline, then the build) took ${Date.now() - started} ms`);
    const built = jsonOf(msgs, 't_done', false);
    assert.equal(built.ok, true, JSON.stringify(built).slice(0, 3000));
    const ws = path.join(worker.workspaces, 'app-pk');
    assert.equal(JSON.parse(read(ws, 'node_modules/clsx/package.json')).version, '2.1.1');
    assert.equal(read(ws, 'package-lock.json'), snapshot['package-lock.json'], 'the lock is the app\'s, unchanged');

    const refused = jsonOf(msgs, 't_done_hand', false);
    assert.equal(refused.ok, false);
    assert.equal(refused.packages.code, 'app_packages_invalid');
    assert.match(refused.packages.error, /dependencies\.left-pad: "left-pad@\^1\.3\.0" is not an exact version/);
    assert.match(refused.message, /add_packages/);
  });

  await check('the template\'s shared tree was never written to', async () => {
    assert.deepEqual(fs.readdirSync(path.join(templateDir, 'node_modules')).sort(), templateTree);
    assert.ok(!fs.existsSync(path.join(templateDir, 'node_modules/clsx')));
    assert.equal(read(templateDir, 'package.json'), templateManifest);
    assert.equal(read(templateDir, 'package-lock.json'), templateLock);
  });
}

await run(main);
