// Proves scripts/npm-pinned-install.mjs on every npm tree of the project, each in a temp copy with
// an npm cache of its own, empty at first: the committed lock, the lock without its
// other-platform optional entries and the lock with extra other-platform entries the registry
// has never served must all install the same packages at the same versions; a lock that disagrees with package.json fails before
// anything is fetched; a lock that lacks this platform's native binding (which npm would then
// resolve from the registry, unpinned) fails and leaves no node_modules behind.
//
//   node tests/npm/pinned-install-test.mjs PROJECT_DIR [TREE...]
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const project = path.resolve(process.argv[2] ?? '.');
const trees = process.argv.length > 3 ? process.argv.slice(3)
  // tests/bench/peers (the benchmark's JavaScript peers, ~300 MB with the Agent SDK's native
  // CLI) installs through the same helper but is left to the benchmark: named on the command
  // line it is checked like the others, without costing every test run a minute.
  : ['runtimes', 'ui', 'templates/app-workspace', 'tests/js', 'runtimes/opencode-nojson', 'tests/js/samples/app-packages'];
const helper = path.join(project, 'scripts', 'npm-pinned-install.mjs');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'pinned-install-test-'));
process.on('exit', () => fs.rmSync(scratch, { recursive: true, force: true }));

const libc = process.report.getReport().header.glibcVersionRuntime ? 'glibc' : 'musl';
const allows = (list, value) => !Array.isArray(list) || list.length === 0 || list.includes(value);
const fitsHere = (entry) => allows(entry.os, process.platform) && allows(entry.cpu, process.arch)
  && (process.platform !== 'linux' || allows(entry.libc, libc));

let counter = 0;
// A temp copy of the tree with the given package.json and lock, and an npm cache of its own
// unless `cache` names one to share.
function stage(tree, { pkg, lock }, cache = null) {
  const dir = path.join(scratch, `${path.basename(tree)}-${++counter}`);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'package.json'), pkg);
  fs.writeFileSync(path.join(dir, 'package-lock.json'), lock);
  return { dir, cache: cache ?? path.join(scratch, `cache-${counter}`) };
}

// The helper in a child process, awaited so that two trees install at once (an install is
// mostly one core extracting tarballs; the largest tree writes 1.1 GB).
function runHelper({ dir, cache }) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [helper, dir], {
      env: { ...process.env, npm_config_cache: cache, npm_config_update_notifier: 'false' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stderr }));
  });
}

// What npm itself sees installed (its own reader of node_modules, not the helper's): location -> version.
function installed(dir) {
  const r = spawnSync('npm', ['query', '*'], { cwd: dir, encoding: 'utf8', maxBuffer: 64 << 20 });
  assert.equal(r.status, 0, `npm query failed in ${dir}: ${r.stderr}`);
  return Object.fromEntries(JSON.parse(r.stdout).filter((n) => n.location !== '')
    .map((n) => [n.location, n.version]).sort(([a], [b]) => a.localeCompare(b)));
}

function withoutOtherPlatformEntries(lock) {
  const copy = structuredClone(lock);
  const removed = Object.keys(copy.packages).filter((k) => k !== '' && copy.packages[k].optional && !fitsHere(copy.packages[k]));
  for (const key of removed) delete copy.packages[key];
  return { lock: copy, removed: removed.length };
}

// Entries for packages made for a platform nobody runs, listed as optional dependencies of a
// package of the tree: what a lock looks like when the registry served packages it no longer
// does. Their addresses point at a closed local port, so nothing could be fetched for them.
function withExtraOtherPlatformEntries(lock) {
  const copy = structuredClone(lock);
  const parentKey = Object.keys(copy.packages).find((k) => k !== '' && copy.packages[k].optionalDependencies)
    ?? Object.keys(copy.packages).find((k) => k !== '');
  const parent = copy.packages[parentKey];
  for (const cpu of ['x64', 'arm64']) {
    const name = `platform-test-plan9-${cpu}`;
    parent.optionalDependencies = { ...parent.optionalDependencies, [name]: '1.0.0' };
    copy.packages[`node_modules/${name}`] = {
      version: '1.0.0',
      resolved: `http://127.0.0.1:9/${name}/-/${name}-1.0.0.tgz`,
      integrity: `sha512-${Buffer.alloc(64, 7).toString('base64')}`,
      cpu: [cpu], os: ['plan9'], optional: true,
    };
  }
  return copy;
}

const json = (value) => `${JSON.stringify(value, null, 2)}\n`;
const failures = [];

async function checkTree(tree) {
  // Printed as one block when the tree is done, so that two trees at once stay readable.
  const out = [];
  const log = (line) => out.push(line);
  const pkgText = fs.readFileSync(path.join(project, tree, 'package.json'), 'utf8');
  const lockText = fs.readFileSync(path.join(project, tree, 'package-lock.json'), 'utf8');
  const pkg = JSON.parse(pkgText);
  const lock = JSON.parse(lockText);
  const started = Date.now();
  try {
    const { lock: lessLock, removed } = withoutOtherPlatformEntries(lock);
    const variants = [['committed lock', lockText], ['extra other-platform entries', json(withExtraOtherPlatformEntries(lock))]];
    if (removed > 0) variants.push([`${removed} other-platform entries removed`, json(lessLock)]);
    let reference = null;
    // The committed lock installs from an empty cache, fetching everything from the registry;
    // the variants differ from it only in other-platform entries (which must never be
    // fetched), so they share its cache instead of downloading the same tarballs again.
    let cache = null;
    for (const [label, variantLock] of variants) {
      const staged = stage(tree, { pkg: pkgText, lock: variantLock }, cache);
      cache = staged.cache;
      const r = await runHelper(staged);
      assert.equal(r.status, 0, `${tree}, ${label}: the helper failed:\n${r.stderr}`);
      assert.equal(fs.readFileSync(path.join(staged.dir, 'package-lock.json'), 'utf8'), variantLock,
        `${tree}, ${label}: the lock file was changed`);
      const tree_ = installed(staged.dir);
      for (const [name, spec] of Object.entries({ ...pkg.dependencies, ...pkg.devDependencies })) {
        const version = /^(?:npm:.+@)?(\d+\.\d+\.\d+\S*)$/.exec(spec)?.[1];
        if (version) assert.equal(tree_[`node_modules/${name}`], version, `${tree}, ${label}: ${name} is not installed at ${version}`);
      }
      if (reference === null) reference = tree_;
      else assert.deepEqual(tree_, reference, `${tree}, ${label}: installed a different tree than with the committed lock`);
      const again = await runHelper(staged);
      assert.equal(again.status, 0, `${tree}, ${label}: a second run failed:\n${again.stderr}`);
      fs.rmSync(staged.dir, { recursive: true, force: true });
      log(`ok ${tree}: ${label}: ${Object.keys(tree_).length} packages`);
    }
    fs.rmSync(cache, { recursive: true, force: true });

    // A direct dependency whose version changed in package.json but not in the lock.
    const [depName, depSpec] = Object.entries(pkg.dependencies ?? pkg.devDependencies)[0];
    const changed = structuredClone(pkg);
    const section = pkg.dependencies ? changed.dependencies : changed.devDependencies;
    section[depName] = depSpec.replace(/(\d+)$/, (d) => String(Number(d) + 1));
    const stale = stage(tree, { pkg: json(changed), lock: lockText });
    const r = await runHelper(stale);
    assert.equal(r.status, 1, `${tree}: a lock that disagrees with package.json must fail with status 1:\n${r.stderr}`);
    assert.match(r.stderr, /does not match package\.json/, `${tree}: unclear message:\n${r.stderr}`);
    assert.ok(r.stderr.includes(`${depName} is ${section[depName]} in package.json but ${depSpec} in the lock`),
      `${tree}: the message does not name the dependency:\n${r.stderr}`);
    assert.ok(!fs.existsSync(path.join(stale.dir, 'node_modules')), `${tree}: something was installed from a stale lock`);
    assert.ok(!fs.existsSync(stale.cache), `${tree}: the registry was asked although the lock was refused`);
    log(`ok ${tree}: a lock that disagrees with package.json is refused before any fetch`);
  } catch (e) {
    failures.push(e.message);
    log(`not ok ${tree}: ${e.message}`);
  }
  log(`# ${tree}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  console.log(out.join('\n'));
}

// The trees two at a time, in the order given (the default list starts with the largest).
{
  const queue = [...trees];
  const worker = async () => { while (queue.length > 0) await checkTree(queue.shift()); };
  await Promise.all([worker(), worker()]);
}

// This platform's native binding missing from the lock: npm would resolve it from the registry
// at whatever version it names today. The tree with the fewest packages that has one is used.
{
  const candidates = trees.map((tree) => {
    const lock = JSON.parse(fs.readFileSync(path.join(project, tree, 'package-lock.json'), 'utf8'));
    const binding = Object.keys(lock.packages).find((k) => {
      const e = lock.packages[k];
      return k !== '' && e.optional && (e.os || e.cpu) && fitsHere(e);
    });
    return { tree, lock, binding, size: Object.keys(lock.packages).length };
  }).filter((c) => c.binding).sort((a, b) => a.size - b.size);
  try {
    assert.ok(candidates.length > 0, 'no tree has a native binding for this platform to remove');
    const { tree, lock, binding } = candidates[0];
    const copy = structuredClone(lock);
    delete copy.packages[binding];
    const staged = stage(tree, { pkg: fs.readFileSync(path.join(project, tree, 'package.json'), 'utf8'), lock: json(copy) });
    const r = await runHelper(staged);
    assert.equal(r.status, 1, `${tree} without ${binding}: must fail:\n${r.stderr}`);
    assert.ok(r.stderr.includes(`${binding}@`) && r.stderr.includes('not pinned by the lock'),
      `${tree} without ${binding}: the message does not name the unpinned package:\n${r.stderr}`);
    assert.ok(!fs.existsSync(path.join(staged.dir, 'node_modules')), `${tree}: the unpinned tree was left behind`);
    console.log(`ok ${tree}: a lock without ${binding} fails and leaves nothing installed`);
  } catch (e) {
    failures.push(e.message);
    console.log(`not ok native binding missing: ${e.message}`);
  }
}

if (failures.length > 0) {
  console.log(`${failures.length} failed`);
  process.exit(1);
}
console.log('all passed');
