#!/usr/bin/env node
// Installs one npm tree of the project (DIR/package.json + DIR/package-lock.json) at exactly the
// versions and integrity hashes its lock pins, whatever other-platform optional packages the
// registry happens to serve today. Every npm tree of the project goes through this one helper:
// the runtime CLIs, the app workspace template, the test and benchmark harnesses, the UI.
//
//   node scripts/npm-pinned-install.mjs DIR [--require REL_PATH]...
//
// Why not `npm ci`: `npm ci` rebuilds the ideal tree from the lock and asks the registry about
// every optional dependency the lock does not list. Native packages (tailwind's oxide, rolldown,
// lightningcss, codex, opencode, ...) declare one optional package per platform, and which of
// those the registry serves changes over time, independently of what we pin; a lock written on
// a day the registry served fewer is then "out of sync" for `npm ci` and every fresh machine
// fails. Regenerating the lock only moves the problem to the next change on the registry.
// What must hold is a property of the *installed* tree, so that is what is checked:
//   1. The lock's root entry names exactly the dependencies of package.json (a lock that really
//      disagrees with package.json fails here, before anything is fetched).
//   2. `npm install` installs from the lock (it fetches every locked package by its locked
//      version and verifies the locked integrity). It may add entries for optional packages of
//      other platforms to the lock file; the committed lock bytes are put back afterwards.
//   3. The installed tree is compared with the lock: every package the lock pins for this
//      platform is on disk at its locked version with its locked integrity, and nothing else is.
//      A package the lock does not pin (say, this platform's native binding missing from the
//      lock, which npm would resolve from the registry) fails the install, and the unverified
//      node_modules is removed, so nothing unpinned is ever left behind silently.
// A stamp (hash of package.json, the lock and the platform) makes a second run a no-op.
// Exit status: 0 installed or already up to date, 1 the lock or the installed tree is wrong,
// 2 usage or I/O errors.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const me = 'npm-pinned-install';

function usage(message) {
  process.stderr.write(`${me}: ${message}\nusage: node scripts/npm-pinned-install.mjs DIR [--require REL_PATH]...\n`);
  process.exit(2);
}

class LockError extends Error {}

function parseArgs(argv) {
  const args = { dir: null, require: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--require') {
      if (i + 1 >= argv.length) usage('--require needs a path');
      args.require.push(argv[++i]);
    } else if (argv[i].startsWith('-')) {
      usage(`unknown option ${argv[i]}`);
    } else if (args.dir === null) {
      args.dir = path.resolve(argv[i]);
    } else {
      usage(`unexpected argument ${argv[i]}`);
    }
  }
  if (args.dir === null) usage('DIR is missing');
  return args;
}

function readJson(file) {
  let text;
  try {
    text = fs.readFileSync(file);
  } catch (e) {
    throw new LockError(`cannot read ${file}: ${e.code ?? e.message}`);
  }
  try {
    return { text, json: JSON.parse(text) };
  } catch (e) {
    throw new LockError(`${file} is not valid JSON: ${e.message}`);
  }
}

// npm's own rule for os/cpu/libc lists: "!x" excludes x, plain entries are the allowed set.
function listAllows(list, value) {
  if (!Array.isArray(list) || list.length === 0) return true;
  if (list.includes(`!${value}`)) return false;
  const allowed = list.filter((v) => !v.startsWith('!'));
  return allowed.length === 0 || allowed.includes(value) || allowed.includes('any');
}

function libcFamily() {
  if (process.platform !== 'linux') return null;
  const header = process.report.getReport().header;
  return header.glibcVersionRuntime ? 'glibc' : 'musl';
}

const platform = { os: process.platform, cpu: process.arch, libc: libcFamily() };

function isPlatformSpecific(entry) {
  return ['os', 'cpu', 'libc'].some((field) => Array.isArray(entry[field]) && entry[field].length > 0);
}

function fitsPlatform(entry) {
  return listAllows(entry.os, platform.os) && listAllows(entry.cpu, platform.cpu)
    && (platform.libc === null || listAllows(entry.libc, platform.libc));
}

// The lock's packages that npm installs on this machine: all of them, except optional ones
// made for another platform and anything nested inside such a package's folder. (A skipped
// package's hoisted dependencies are still installed; npm does so too.)
function expectedTree(lock, lockFile) {
  const packages = lock.packages;
  const skipped = [];
  const expected = new Map();
  const keys = Object.keys(packages).filter((k) => k !== '').sort();
  for (const key of keys) {
    const entry = packages[key];
    if (entry.link) throw new LockError(`${lockFile}: linked package ${key} is not supported`);
    if (skipped.some((s) => key.startsWith(`${s}/`))) continue;
    if (!fitsPlatform(entry)) {
      if (!entry.optional) {
        throw new LockError(`${lockFile}: ${key} is required but is not made for ${platform.os}-${platform.cpu}`);
      }
      skipped.push(key);
      continue;
    }
    if (typeof entry.version !== 'string') throw new LockError(`${lockFile}: ${key} has no version`);
    expected.set(key, entry);
  }
  return expected;
}

const dependencyFields = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'];

function checkRootAgainstPackageJson(pkg, lock, dir) {
  const root = lock.packages?.[''];
  if (!root) throw new LockError(`${dir}/package-lock.json has no root entry (lockfileVersion 2 or 3 is required)`);
  const problems = [];
  for (const field of dependencyFields) {
    const want = pkg[field] ?? {};
    const have = root[field] ?? {};
    for (const [name, spec] of Object.entries(want)) {
      if (!(name in have)) problems.push(`${name}@${spec} (${field}) is not in the lock`);
      else if (have[name] !== spec) problems.push(`${name} is ${spec} in package.json but ${have[name]} in the lock`);
    }
    for (const [name, spec] of Object.entries(have)) {
      if (!(name in want)) problems.push(`${name}@${spec} (${field}) is in the lock but not in package.json`);
    }
  }
  for (const name of Object.keys({ ...pkg.dependencies, ...pkg.devDependencies })) {
    if (!lock.packages[`node_modules/${name}`]) problems.push(`the lock pins no package for ${name}`);
  }
  if (problems.length > 0) {
    throw new LockError(`${dir}/package-lock.json does not match package.json: ${problems.join('; ')}.\n`
      + `  Update the lock on purpose: cd ${dir} && npm install --package-lock-only`);
  }
}

// Every package folder under DIR/node_modules, nested ones included: lock-style key -> version.
function installedTree(dir) {
  const found = new Map();
  const visit = (relModules) => {
    let names;
    try {
      names = fs.readdirSync(path.join(dir, relModules));
    } catch {
      return;
    }
    for (const name of names.sort()) {
      if (name.startsWith('.')) continue;
      const scoped = name.startsWith('@')
        ? fs.readdirSync(path.join(dir, relModules, name)).map((n) => `${name}/${n}`)
        : [name];
      for (const pkgName of scoped) {
        const key = `${relModules}/${pkgName}`;
        const manifest = path.join(dir, key, 'package.json');
        let version = null;
        try {
          version = JSON.parse(fs.readFileSync(manifest)).version ?? null;
        } catch {
          // A folder without a readable manifest is reported as a package of unknown version.
        }
        found.set(key, version);
        visit(`${key}/node_modules`);
      }
    }
  };
  visit('node_modules');
  return found;
}

function compareTrees({ expected, installed, npmLock }) {
  const problems = [];
  for (const [key, entry] of expected) {
    if (!installed.has(key)) {
      // npm skips an optional package it cannot fetch. For one built for this very platform
      // (a native binding) that is a broken install; for a platform-neutral optional one (a
      // wasm fallback, its helpers) it is the registry serving fewer packages than it did.
      if (!entry.optional || isPlatformSpecific(entry)) problems.push(`${key}@${entry.version} is pinned but not installed`);
    } else if (installed.get(key) !== entry.version) {
      problems.push(`${key} is installed at ${installed.get(key)} but pinned at ${entry.version}`);
    }
    const used = npmLock?.packages?.[key];
    if (entry.integrity && used && used.integrity !== entry.integrity) {
      problems.push(`${key} was installed with integrity ${used.integrity}, the lock pins ${entry.integrity}`);
    }
  }
  for (const [key, version] of installed) {
    if (!expected.has(key)) problems.push(`${key}@${version} is installed but not pinned by the lock`);
  }
  return problems;
}

function requiredPresent(dir, required) {
  return required.every((rel) => {
    try {
      fs.accessSync(path.join(dir, rel), rel.includes('.bin/') ? fs.constants.X_OK : fs.constants.R_OK);
      return true;
    } catch {
      return false;
    }
  });
}

function install(args) {
  const { dir } = args;
  const pkgFile = path.join(dir, 'package.json');
  const lockFile = path.join(dir, 'package-lock.json');
  const pkg = readJson(pkgFile);
  const lock = readJson(lockFile);
  checkRootAgainstPackageJson(pkg.json, lock.json, dir);
  const stampFile = path.join(dir, 'node_modules', '.platform-pinned-install');
  const stamp = crypto.createHash('sha256').update(pkg.text).update('\0').update(lock.text).update('\0')
    .update(`${platform.os}-${platform.cpu}-${platform.libc}`).digest('hex');
  if (fs.existsSync(stampFile) && fs.readFileSync(stampFile, 'utf8') === stamp && requiredPresent(dir, args.require)) {
    return;
  }
  const expected = expectedTree(lock.json, lockFile);
  // A clean tree, as `npm ci` makes it: nothing from an older lock survives.
  fs.rmSync(path.join(dir, 'node_modules'), { recursive: true, force: true });
  let npmLock = null;
  let problems;
  try {
    const npm = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error',
      '--include=dev', '--include=optional', '--include=peer'], { cwd: dir, stdio: ['ignore', 2, 2] });
    if (npm.error) throw new Error(`cannot run npm: ${npm.error.message}`);
    if (npm.status !== 0) throw new LockError(`npm install failed in ${dir} (exit ${npm.status})`);
    try {
      npmLock = JSON.parse(fs.readFileSync(lockFile));
    } catch {
      npmLock = null;
    }
  } finally {
    fs.writeFileSync(lockFile, lock.text);
  }
  problems = compareTrees({ expected, installed: installedTree(dir), npmLock });
  for (const rel of args.require) {
    if (!requiredPresent(dir, [rel])) problems.push(`${rel} is missing after the install`);
  }
  if (problems.length > 0) {
    fs.rmSync(path.join(dir, 'node_modules'), { recursive: true, force: true });
    throw new LockError(`the tree npm installed in ${dir} is not the one its lock pins, so it was removed:\n  `
      + problems.join('\n  '));
  }
  fs.writeFileSync(stampFile, stamp);
  process.stderr.write(`${me}: ${dir}: ${expected.size} packages installed as pinned\n`);
}

// Two test runners may ask for the same tree at once: the first installs, the others wait for
// it and then find the stamp. flock(1) from util-linux holds the lock across the re-exec.
function main() {
  const args = parseArgs(process.argv.slice(2));
  if (process.env.PLATFORM_NPM_PINNED_LOCKED !== args.dir) {
    const lockPath = path.join(os.tmpdir(),
      `platform-npm-${crypto.createHash('sha256').update(args.dir).digest('hex').slice(0, 16)}.lock`);
    const child = spawnSync('flock', [lockPath, process.execPath, ...process.argv.slice(1)], {
      stdio: 'inherit', env: { ...process.env, PLATFORM_NPM_PINNED_LOCKED: args.dir },
    });
    if (child.error) usage(`cannot run flock: ${child.error.message}`);
    process.exit(child.status ?? 2);
  }
  try {
    install(args);
  } catch (e) {
    process.stderr.write(`${me}: ${e.message}\n`);
    process.exit(e instanceof LockError ? 1 : 2);
  }
}

main();
