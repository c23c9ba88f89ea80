// What every builder-page test shares: the real servers (platform-worker running the real
// Claude Code CLI against the scripted model server, platform-web serving ui/dist), and
// Debian's Chromium driven by playwright-core. Nothing is downloaded: the browser is
// /usr/bin/chromium (PLATFORM_CHROMIUM to override).
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { harness } from '../harness.mjs';

export const chromiumPath = process.env.PLATFORM_CHROMIUM ?? '/usr/bin/chromium';

/** Exit 77 (skipped) without Chromium, unless PLATFORM_TEST_REQUIRE_BROWSER=1 makes it a failure. */
export function requireChromium() {
  if (fs.existsSync(chromiumPath)) return;
  console.log(`no Chromium at ${chromiumPath}`);
  process.exit(process.env.PLATFORM_TEST_REQUIRE_BROWSER === '1' ? 1 : 77);
}

export async function launchBrowser() {
  // The flags keep Chromium off the network it cannot reach here (and off Google's hosts).
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    chromiumSandbox: false,
    args: ['--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
}

/** The builder page the web serves: ui/dist, or PLATFORM_TEST_UI_DIR, a page built elsewhere
 *  (to see a test fail on a page built with one of its rules taken out, without touching
 *  ui/dist, which other runs serve meanwhile). */
export const uiDir = (projectDir) => process.env.PLATFORM_TEST_UI_DIR ?? path.join(projectDir, 'ui/dist');

/**
 * Starts the scripted model server with `turns` (or the scenario in `scenarioFile`), a worker
 * and a web server.
 * Returns { web, worker, workerProcess, model: { port, release(name), arm(name), requests() }, dataDir }.
 */
export async function startPlatform({ start, tmp }, { buildDir, projectDir, turns, scenarioFile, name = 'p', webEnv = {}, workerEnv = {}, demoProvider = false }) {
  let scenario = scenarioFile;
  if (!scenario) {
    scenario = path.join(tmp, `${name}-scenario.json`);
    fs.writeFileSync(scenario, JSON.stringify({ turns, aux: { blocks: [{ type: 'text', text: 'Title' }], stop_reason: 'end_turn' } }));
  }
  const log = path.join(tmp, `${name}-requests.jsonl`);
  const model = await start(`${name}-model`, 'python3', [path.join(projectDir, 'tests/model_server/model_server.py'), '--script', scenario, '--port', '0', '--idle-exit', '900', '--log', log], {}, /^(\d+)\n/m);
  const modelPort = Number(model.match[1]);
  const dataDir = path.join(tmp, `${name}-data`);
  // The worker reaches the web server at PLATFORM_WEB_URL (the builder's platform tools that
  // call it: list_app_integration_keys, present_integration_setup), so its port is chosen first.
  const webPort = await freePort();
  const webUrl = `http://127.0.0.1:${webPort}`;
  const workerStarted = await start(
    `${name}-worker`,
    path.join(buildDir, 'servers/worker/platform-worker'),
    [],
    {
      PLATFORM_WORKER_PORT: '0',
      PLATFORM_DATA_DIR: `${dataDir}/worker`,
      PLATFORM_APP_TEMPLATE_DIR: path.join(projectDir, 'templates/app-workspace'),
      // As scripts/run.sh starts it without a key: the model server is the demo provider.
      ...(demoProvider
        ? { PLATFORM_DEMO_PROVIDER_URL: `http://127.0.0.1:${modelPort}` }
        : { ANTHROPIC_BASE_URL: `http://127.0.0.1:${modelPort}`, ANTHROPIC_API_KEY: 'scripted-model-key' }),
      CLAUDE_CODE_MAX_RETRIES: '0',
      PLATFORM_WEB_URL: webUrl,
      // A function of the model server's URL when the worker's settings name it (runtime-b's
      // and runtime-c's providers).
      ...(typeof workerEnv === 'function' ? workerEnv(`http://127.0.0.1:${modelPort}`) : workerEnv),
    },
    /listening on (http:\S+)/,
  );
  const worker = workerStarted.match[1];
  const web = (
    await start(
      `${name}-web`,
      path.join(buildDir, 'servers/web/platform-web'),
      [],
      { PLATFORM_WEB_PORT: String(webPort), PLATFORM_WEB_URL: webUrl, PLATFORM_DATA_DIR: `${dataDir}/web`, PLATFORM_WORKER_URL: worker, PLATFORM_UI_DIR: uiDir(projectDir), ...(demoProvider ? { PLATFORM_DEMO_PROVIDER: '1' } : {}), ...webEnv },
      /listening on (http:\S+)/,
    )
  ).match[1];
  const control = (what, pause) => fetch(`http://127.0.0.1:${modelPort}/control/${what}/${pause}`, { method: 'POST' }).then((r) => r.json());
  return {
    web,
    worker,
    workerProcess: workerStarted.child,
    modelProcess: model.child,
    dataDir,
    model: {
      port: modelPort,
      release: (pause) => control('release', pause),
      arm: (pause) => control('arm', pause),
      requests: () =>
        fs
          .readFileSync(log, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l))
          .filter((r) => r.method === 'POST' && r.path.startsWith('/v1/messages') && r.body?.tools?.length > 0),
    },
  };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** Saves a screenshot into the test's temp dir (and into docs/screenshots when
 *  PLATFORM_SCREENSHOTS_DIR is set, which scripts/screenshots.sh does). */
export async function screenshot(page, tmp, name) {
  const dir = process.env.PLATFORM_SCREENSHOTS_DIR ?? tmp;
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

/** Counts the page's requests by method and path (query kept), for "exactly one POST" checks. */
export function recordRequests(context) {
  const seen = [];
  context.on('request', (r) => {
    const u = new URL(r.url());
    seen.push({ method: r.method(), path: u.pathname, search: u.search });
  });
  return seen;
}

/**
 * A browser test script's frame: --build and --project from the command line, the harness,
 * and checks that leave a screenshot of every watched page when they fail.
 * Returns { tmp, run, start, check, watch(page), buildDir, projectDir }.
 */
export function browserTest(prefix) {
  const args = process.argv.slice(2);
  const opt = (name) => path.resolve(args[args.indexOf(name) + 1]);
  const h = harness(prefix);
  const pages = new Set();
  const check = (name, fn) =>
    h.check(name, async () => {
      try {
        await fn();
      } catch (e) {
        let i = 0;
        for (const page of pages) {
          if (!page.isClosed()) await screenshot(page, h.tmp, `FAIL-${name.slice(0, 40).replace(/\W+/g, '-')}-${i++}`).catch(() => {});
        }
        throw e;
      }
    });
  const watch = (page) => {
    pages.add(page);
    return page;
  };
  return { ...h, check, watch, buildDir: opt('--build'), projectDir: opt('--project') };
}

/** JSON calls from the test itself (no browser): `call(method, path, body?)` resolves with the
 *  parsed reply and fails the check on any status other than `expect` (default 2xx). */
export function apiClient(base, headers = {}) {
  return async (method, route, body, expect) => {
    const h = { ...headers };
    if (body !== undefined) h['content-type'] = 'application/json';
    const res = await fetch(base + route, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (expect === undefined ? !res.ok : res.status !== expect) throw new Error(`${method} ${route}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
}

/** A browser context signed in the way a deployment's front door would (external mode): the
 *  identity token once (POST /api/session), then the HttpOnly session cookie on every request.
 *  Resolves with { context, page } (the page is at `web`). */
export async function signedInContext(browser, web, token, options = { viewport: { width: 1300, height: 900 } }) {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  await page.goto(`${web}/`);
  const signedIn = await page.evaluate(async (t) => {
    const r = await fetch('/api/session', { method: 'POST', headers: { authorization: `Bearer ${t}` } });
    return { status: r.status, cookieVisible: document.cookie.includes('platform_session') };
  }, token);
  if (signedIn.status !== 200 || signedIn.cookieVisible) throw new Error(`sign-in failed: ${JSON.stringify(signedIn)}`);
  return { context, page };
}

/**
 * A relay of the workspace events in a browser context: a tab at the web's origin (a JSON 404
 * under /api, no page script of its own) that takes the workspace's events leader lock before
 * any page of the context, reads the real workspace events and passes each on the tabs'
 * channel, as a leader tab does (ui/src/events/shared-events.ts). The context's pages are then
 * its followers, and a test decides what they hear: `drop(types)` holds events of those types
 * back, `pause(true)` holds every event back, `inject(events)` passes on events of its own.
 * `state()`: { seen, relayed }, what it read and what it passed on.
 */
export async function eventsRelay(context, web, ws = 'default') {
  const page = await context.newPage();
  await page.goto(`${web}/api/test-events-relay`);
  await page.evaluate(async (workspace) => {
    const r = { seen: [], relayed: [], drop: [], paused: false };
    window.__relay = r;
    const channel = new BroadcastChannel(`platform-events:${workspace}`);
    r.post = (event) => {
      r.relayed.push(event);
      channel.postMessage({ kind: 'event', event });
    };
    await new Promise((held) => {
      navigator.locks.request(`platform-events-leader:${workspace}`, () => {
        held();
        return new Promise(() => {});
      });
    });
    const res = await fetch(`/api/workspaces/${workspace}/events`);
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    void (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        let i;
        while ((i = buffer.indexOf('\n\n')) >= 0) {
          const line = buffer.slice(0, i).split('\n').find((l) => l.startsWith('data: '));
          buffer = buffer.slice(i + 2);
          if (!line) continue;
          const event = JSON.parse(line.slice(6));
          r.seen.push(event);
          if (!r.paused && !r.drop.includes(event.type)) r.post(event);
        }
      }
    })();
  }, ws);
  return {
    page,
    drop: (types) => page.evaluate((d) => { window.__relay.drop = d; }, types),
    pause: (on) => page.evaluate((v) => { window.__relay.paused = v; }, on),
    inject: (events) => page.evaluate((list) => list.forEach((e) => window.__relay.post(e)), events),
    state: () => page.evaluate(() => ({ seen: window.__relay.seen, relayed: window.__relay.relayed })),
  };
}

/** Resolves once `page` waits for the workspace's events leader lock (a follower of a relay). */
export const waitsForEventsLock = (page, ws = 'default') =>
  page.waitForFunction(async (lock) => (await navigator.locks.query()).pending.some((l) => l.name === lock), `platform-events-leader:${ws}`);

/** The run page's address and API path of a builder run. */
export const runRoutes = (web, ws, appId, runId) => ({
  page: `${web}/w/${ws}/apps/${appId}/runs/${runId}`,
  chat: `/api/workspaces/${ws}/apps/${appId}/runs/${runId}/chat`,
});

/** A new app with one builder run, made through the API: { app, run, page, chat }. */
export async function createRun(web, name, { ws = 'default', call = apiClient(web) } = {}) {
  const app = await call('POST', `/api/workspaces/${ws}/apps`, { name });
  const run = await call('POST', `/api/workspaces/${ws}/apps/${app.id}/runs`, {});
  return { app, run, ...runRoutes(web, ws, app.id, run.id) };
}

/** The text of a persisted UI message, and the text a page shows for each assistant message;
 *  markdown drops the spaces at block ends, so both are compared without whitespace. */
export const messageText = (msg) => msg.parts.filter((p) => p.type === 'text').map((p) => p.text).join('').replace(/\s+/g, '');
export async function shownAssistantTexts(page) {
  return page.locator('[data-role="assistant"]').evaluateAll((els) =>
    els.map((el) => [...el.querySelectorAll('.prose-chat')].map((p) => p.innerText).join('').replace(/\s+/g, '')),
  );
}
