// What every builder-page test shares: the real servers (platform-worker running the real
// Claude Code CLI against the scripted model server, platform-web serving ui/dist), and
// Debian's Chromium driven by playwright-core. Nothing is downloaded: the browser is
// /usr/bin/chromium (PLATFORM_CHROMIUM to override).
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';

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

/**
 * Starts the scripted model server with `turns` (or the scenario in `scenarioFile`), a worker
 * and a web server.
 * Returns { web, model: { port, release(name), arm(name), requests() }, dataDir }.
 */
export async function startPlatform({ start, tmp }, { buildDir, projectDir, turns, scenarioFile, name = 'p', webEnv = {}, workerEnv = {} }) {
  let scenario = scenarioFile;
  if (!scenario) {
    scenario = path.join(tmp, `${name}-scenario.json`);
    fs.writeFileSync(scenario, JSON.stringify({ turns, aux: { blocks: [{ type: 'text', text: 'Title' }], stop_reason: 'end_turn' } }));
  }
  const log = path.join(tmp, `${name}-requests.jsonl`);
  const model = await start(`${name}-model`, 'python3', [path.join(projectDir, 'tests/model_server/model_server.py'), '--script', scenario, '--port', '0', '--idle-exit', '900', '--log', log], {}, /^(\d+)\n/m);
  const modelPort = Number(model.match[1]);
  const dataDir = path.join(tmp, `${name}-data`);
  const worker = (
    await start(
      `${name}-worker`,
      path.join(buildDir, 'servers/worker/platform-worker'),
      [],
      {
        PLATFORM_WORKER_PORT: '0',
        PLATFORM_DATA_DIR: `${dataDir}/worker`,
        PLATFORM_APP_TEMPLATE_DIR: path.join(projectDir, 'templates/app-workspace'),
        ANTHROPIC_BASE_URL: `http://127.0.0.1:${modelPort}`,
        ANTHROPIC_API_KEY: 'scripted-model-key',
        CLAUDE_CODE_MAX_RETRIES: '0',
        ...workerEnv,
      },
      /listening on (http:\S+)/,
    )
  ).match[1];
  const web = (
    await start(
      `${name}-web`,
      path.join(buildDir, 'servers/web/platform-web'),
      [],
      { PLATFORM_WEB_PORT: '0', PLATFORM_DATA_DIR: `${dataDir}/web`, PLATFORM_WORKER_URL: worker, PLATFORM_UI_DIR: path.join(projectDir, 'ui/dist'), ...webEnv },
      /listening on (http:\S+)/,
    )
  ).match[1];
  const control = (what, pause) => fetch(`http://127.0.0.1:${modelPort}/control/${what}/${pause}`, { method: 'POST' }).then((r) => r.json());
  return {
    web,
    worker,
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
