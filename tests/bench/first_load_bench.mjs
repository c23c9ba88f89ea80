// Benchmark (issue 34): the builder page's first screen on an uncached load, in Debian's
// Chromium (playwright-core) against platform-web serving the built ui/dist on loopback. The
// first screen is the workspace home, /w/default: the sidebar with the app list and the
// new-app form with its runtime picker. Local mode needs no sign-in, and that screen asks the
// worker nothing, so a worker stand-in (tests/js/worker-stand-in.mjs) is all the web is given.
//
// Each round is a new browser context (empty HTTP cache, no service worker, no V8 code cache
// from an earlier round), one load of /w/default, measured in the page: first contentful paint
// (goal <= 300 ms), DOMContentLoaded, load, the first screen complete (form, picker and app
// list drawn with their data), the JS the page fetched by then (bytes on the wire and
// decoded), its requests, and the slowest static asset response (request start -> last byte,
// goal <= 20 ms). A first round warms Chromium and the server and is printed apart. Prints
// min / median / max per metric and the first screen's JS against the whole build's; it is not
// a timed test.
//
// Usage: node first_load_bench.mjs --build DIR --project DIR [--rounds 20] [--ui DIR] [--no-setup]
//   --ui DIR: serve that build instead of ui/dist (e.g. a copy of an older build, to compare).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { harness } from '../js/harness.mjs';
import { workerStandIn } from '../js/worker-stand-in.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const buildDir = path.resolve(opt('--build'));
const projectDir = path.resolve(opt('--project'));
const rounds = Math.max(1, Number(opt('--rounds', '20')));
const fcpGoalMs = 300;
const assetGoalMs = 20;

// playwright-core is tests/js's (its pinned tree), and the page is ui/dist as the e2e tests
// build it (tests/js/run-e2e.sh); each step is a no-op once done.
if (!args.includes('--no-setup')) {
  const steps = [['node', [path.join(projectDir, 'scripts/npm-pinned-install.mjs'), path.join(projectDir, 'tests/js')]]];
  if (!args.includes('--ui')) steps.push(['bash', [path.join(projectDir, 'scripts/setup-ui.sh')]]);
  for (const [cmd, argv] of steps) {
    const r = spawnSync(cmd, argv, { stdio: ['ignore', 'ignore', 'inherit'] });
    if (r.status !== 0) {
      console.log(`${argv.at(-1)}: setup failed (exit ${r.status})`);
      process.exit(1);
    }
  }
}
// Imported only now: playwright-core may have been installed just above.
const { chromiumPath, launchBrowser, uiDir } = await import('../js/browser/platform.mjs');
const ui = path.resolve(opt('--ui', uiDir(projectDir)));
if (!fs.existsSync(chromiumPath)) {
  console.log(`first load bench: skipped (no Chromium at ${chromiumPath})`);
  process.exit(77);
}
if (!fs.existsSync(path.join(ui, 'index.html'))) {
  console.log(`first load bench: skipped (no ${ui}/index.html: bash scripts/setup-ui.sh)`);
  process.exit(77);
}

const { tmp, start, run } = harness('platform-first-load-bench-');

// Runs in the page before its own scripts: the moment the first screen is complete, seen by a
// MutationObserver (no polling from the test, whose round trips would be in the figure).
function watchFirstScreen() {
  const complete = () => {
    const list = document.querySelector('[data-testid="app-list"]');
    return document.querySelector('#app-name') && document.querySelector('[data-testid="runtime-picker"]') && list && list.children.length > 0;
  };
  const observer = new MutationObserver(() => {
    if (window.__firstScreen === undefined && complete()) {
      window.__firstScreen = performance.now();
      observer.disconnect();
    }
  });
  observer.observe(document, { childList: true, subtree: true });
}

// Read in the page once it is complete and loaded: what the paint, navigation and resource
// timing entries say. The paint entry is queued once the frame is on screen, which can be after
// the DOM change the first screen was seen by, so it is waited for (buffered: also if it came
// first).
async function readTimings() {
  const fcp = await new Promise((resolve) => {
    const observer = new PerformanceObserver((list) => {
      const entry = list.getEntriesByName('first-contentful-paint')[0];
      if (entry) {
        observer.disconnect();
        resolve(entry.startTime);
      }
    });
    observer.observe({ type: 'paint', buffered: true });
  });
  const nav = performance.getEntriesByType('navigation')[0];
  const resources = performance.getEntriesByType('resource');
  const statics = resources.filter((r) => !new URL(r.name).pathname.startsWith('/api/'));
  const js = statics.filter((r) => new URL(r.name).pathname.endsWith('.js'));
  const sum = (list, key) => list.reduce((n, r) => n + r[key], 0);
  // Request sent -> last byte in: the server's part and the loopback hop, not the wait for a
  // free connection before it.
  const responseMs = (r) => r.responseEnd - r.requestStart;
  return {
    fcp,
    dcl: nav.domContentLoadedEventEnd,
    load: nav.loadEventEnd,
    firstScreen: window.__firstScreen,
    requests: resources.length + 1,
    jsFiles: js.map((r) => new URL(r.name).pathname),
    jsWire: sum(js, 'encodedBodySize'),
    jsDecoded: sum(js, 'decodedBodySize'),
    statics: [nav, ...statics].map((r) => ({ path: new URL(r.name).pathname, ms: responseMs(r) })),
    slowestStatic: Math.max(...[nav, ...statics].map(responseMs)),
  };
}

function stats(values) {
  const v = [...values].sort((a, b) => a - b);
  return { min: v[0], median: v[Math.floor((v.length - 1) / 2)], max: v.at(-1) };
}
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

await run(async () => {
  const worker = await workerStandIn();
  const base = (await start('web', path.join(buildDir, 'servers/web/platform-web'), [], {
    PLATFORM_WEB_PORT: '0', PLATFORM_DATA_DIR: path.join(tmp, 'data'), PLATFORM_WORKER_URL: worker.url, PLATFORM_UI_DIR: ui,
  }, /listening on (http:\S+)/)).match[1];
  const browser = await launchBrowser();
  try {
    const load = async () => {
      const context = await browser.newContext({ viewport: { width: 1300, height: 900 } });
      try {
        await context.addInitScript(watchFirstScreen);
        const page = await context.newPage();
        await page.goto(`${base}/w/default`, { waitUntil: 'load' });
        await page.waitForFunction(() => window.__firstScreen !== undefined, null, { timeout: 20000 });
        return await page.evaluate(readTimings);
      } finally {
        await context.close();
      }
    };
    // Paint times are CPU time first: a busy machine moves them more than anything here.
    console.log(`first load: ${os.cpus().length} CPUs, load average ${os.loadavg()[0].toFixed(2)} at the start`);
    const warm = await load();
    console.log(`first load warm-up round (not counted): FCP ${warm.fcp.toFixed(1)} ms, first screen ${warm.firstScreen.toFixed(1)} ms`);
    const measured = [];
    for (let i = 0; i < rounds; i++) measured.push(await load());

    const line = (name, key, unit, goal = '') => {
      const s = stats(measured.map((m) => m[key]));
      const f = (x) => (unit === 'ms' ? x.toFixed(1) : String(Math.round(x)));
      console.log(`first load ${name}: ${f(s.min)} / ${f(s.median)} / ${f(s.max)} ${unit} (min / median / max of ${rounds})${goal}`);
      return s;
    };
    const fcp = line('first contentful paint', 'fcp', 'ms', ` (goal <= ${fcpGoalMs} ms)`);
    line('DOMContentLoaded', 'dcl', 'ms');
    line('load', 'load', 'ms');
    line('first screen complete', 'firstScreen', 'ms');
    line('requests', 'requests', 'requests');
    const slow = line('slowest static asset response', 'slowestStatic', 'ms', ` (goal <= ${assetGoalMs} ms)`);
    // Each static file of the first screen apart (the page's address is index.html), over all
    // rounds; a file asked twice in a load (the favicon: the tab's icon and the sidebar's) counts
    // each time.
    const byPath = new Map();
    for (const m of measured) for (const r of m.statics) byPath.set(r.path, [...(byPath.get(r.path) ?? []), r.ms]);
    for (const [p, ms] of byPath) {
      const s = stats(ms);
      console.log(`first load static ${p}: ${s.min.toFixed(1)} / ${s.median.toFixed(1)} / ${s.max.toFixed(1)} ms (request -> last byte, ${ms.length} responses)`);
    }

    // The whole build's JS, as sent to a browser that takes br (what precompress wrote) and
    // decoded, against what the first screen fetched.
    const assets = path.join(ui, 'assets');
    const jsFiles = fs.readdirSync(assets).filter((f) => f.endsWith('.js'));
    const size = (f) => (fs.existsSync(f) ? fs.statSync(f).size : 0);
    const allDecoded = jsFiles.reduce((n, f) => n + size(path.join(assets, f)), 0);
    const allWire = jsFiles.reduce((n, f) => n + (size(path.join(assets, `${f}.br`)) || size(path.join(assets, f))), 0);
    const first = measured.at(-1);
    console.log(`first load JS files fetched: ${first.jsFiles.length} of the build's ${jsFiles.length} (${first.jsFiles.map((f) => path.basename(f)).join(', ')})`);
    console.log(`first load JS for the first screen: ${kb(first.jsWire)} on the wire, ${kb(first.jsDecoded)} decoded; `
      + `the whole build: ${kb(allWire)} br, ${kb(allDecoded)} decoded (${((100 * first.jsDecoded) / allDecoded).toFixed(0)}% of it)`);
    console.log(`first load: FCP median ${fcp.median.toFixed(1)} ms (goal <= ${fcpGoalMs} ms) ${fcp.median <= fcpGoalMs ? 'met' : 'NOT met'}, `
      + `slowest static asset ${slow.max.toFixed(1)} ms (goal <= ${assetGoalMs} ms) ${slow.max <= assetGoalMs ? 'met' : 'NOT met'}`);
  } finally {
    await browser.close();
    worker.server.close();
  }
});
