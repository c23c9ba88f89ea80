// Local mode's provider setup in a real browser: a worker started with no Anthropic key (but
// with other providers' keys set) shows runtime-a as needing credentials; a key entered on
// /onboarding/provider makes it usable at once (no restart): a builder turn runs on it. The key
// is never shown again (not in the DOM, not in any answer), never logged, kept by the worker in
// a 0600 file, and reaches only runtime-a's process (on fd 3, not in its environment), whose
// environment holds no other provider's key (read from /proc/<pid>/environ during the turn). A page of another site open in
// the same browser cannot drive the API (local mode has no sign-in: the cross-site guard is
// all that stands between any website and the owner's platform).
//
// Usage: node browser/e2e-onboarding.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { use } from '../harness.mjs';
import { browserTest, launchBrowser, requireChromium, screenshot, startPlatform } from './platform.mjs';

requireChromium();
const t = browserTest('platform-onboarding-e2e-');
const { tmp, check, run, watch, buildDir, projectDir } = t;

const key = 'sk-ant-onboarding-e2e-7f3a9c0d1e2b';
const decoys = { OPENAI_API_KEY: 'sk-decoy-openai-5d1c', GEMINI_API_KEY: 'decoy-gemini-88ab' };
const turns = [
  {
    blocks: [
      { type: 'text', text: 'Planning with the key you entered. ' },
      { type: 'pause', name: 'hold' },
      use('t_plan', 'mcp__platform__present_plan', { title: 'Keyed', steps: ['One step'] }),
    ],
    stop_reason: 'tool_use',
  },
];

// Processes whose environment says they are a runtime-a turn of this test's worker.
function runtimeAEnvironments(dataDir) {
  const out = [];
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let env;
    try {
      env = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      const cwd = fs.readlinkSync(`/proc/${pid}/cwd`);
      if (!cwd.startsWith(path.join(dataDir, 'worker/workspaces'))) continue;
    } catch {
      continue;
    }
    if (env.some((e) => e.startsWith('CLAUDE_CONFIG_DIR='))) out.push(env);
  }
  return out;
}

run(async () => {
  // The operator's Claude Code config dir, empty: no CLI login yet.
  const loginDir = path.join(tmp, 'operator-claude');
  fs.mkdirSync(loginDir);
  const p = await startPlatform(t, { buildDir, projectDir, turns, workerEnv: { ANTHROPIC_API_KEY: '', PLATFORM_CLAUDE_CONFIG_DIR: loginDir, ...decoys } });
  const browser = await launchBrowser();
  const page = watch(await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage());
  const answers = [];
  page.on('response', async (r) => {
    if (r.url().includes('/api/')) answers.push(await r.text().catch(() => ''));
  });

  await check('without a key, runtime-a needs credentials', async () => {
    await page.goto(`${p.web}/onboarding/provider`);
    const a = page.getByTestId('runtime-runtime-a');
    await a.getByText('Needs credentials').waitFor({ timeout: 60000 });
  });

  await check('a CLI login on the worker\'s machine makes runtime-a ready on Check again, without a restart', async () => {
    const a = page.getByTestId('runtime-runtime-a');
    // What `claude` then /login leaves in its config dir.
    const login = { claudeAiOauth: { accessToken: 'sk-ant-oat01-onboarding', refreshToken: 'sk-ant-ort01-onboarding',
      expiresAt: Date.now() + 3600000, scopes: ['user:inference'] } };
    fs.writeFileSync(path.join(loginDir, '.credentials.json'), JSON.stringify(login), { mode: 0o600 });
    // The worker probes again at most every 2 s: ask until it has.
    const askUntil = async (text) => {
      for (let i = 0; ; i += 1) {
        await page.getByTestId('check-again').click();
        if (await a.getByText(text).waitFor({ timeout: 1000 }).then(() => true, () => false)) return;
        assert.ok(i < 10, `never shown: ${text}`);
      }
    };
    await askUntil('Ready');
    // The click is seen to have done something, whatever it found.
    await page.getByTestId('checked-at').getByText(/^Checked again at /).waitFor();
    await a.getByText('Uses the Claude Code login').waitFor();
    // Logged out again: back to needing credentials, for the key checks that follow.
    fs.rmSync(path.join(loginDir, '.credentials.json'));
    await askUntil('Needs credentials');
  });

  await check('a key entered on the page makes runtime-a ready, and is never shown again', async () => {
    await page.getByTestId('key-input-ANTHROPIC_API_KEY').fill(key);
    await page.getByTestId('runtime-runtime-a').getByRole('button', { name: 'Save key' }).click();
    await page.getByTestId('runtime-runtime-a').getByText('Ready').waitFor({ timeout: 60000 });
    assert.equal(await page.getByTestId('key-input-ANTHROPIC_API_KEY').inputValue(), '');
    const html = await page.evaluate(() => document.documentElement.outerHTML);
    assert.ok(!html.includes(key), 'the key is in the DOM');
    await screenshot(page, tmp, 'onboarding');
    const file = path.join(p.dataDir, 'worker', 'provider-keys.json');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  });

  await check('a builder turn runs on the entered key, in a process without other providers\' keys', async () => {
    await page.getByText('Continue to your apps').click();
    await page.getByLabel('Name').fill('Keyed');
    await page.getByLabel('What should it do?').fill('Anything');
    await page.getByTestId('create-app').click();
    await page.getByText('Planning with the key you entered.').waitFor({ timeout: 60000 });
    const envs = runtimeAEnvironments(p.dataDir);
    assert.ok(envs.length >= 1, 'no runtime-a process found during the turn');
    for (const env of envs) {
      // The key reaches runtime-a on fd 3, not in the environment its tools inherit.
      assert.ok(!env.some((e) => e.includes(key)), 'the key is in runtime-a\'s environment');
      assert.ok(env.includes('CLAUDE_CODE_API_KEY_FILE_DESCRIPTOR=3'), 'runtime-a is not told where its key is');
      for (const name of Object.keys(decoys)) assert.ok(!env.some((e) => e.startsWith(`${name}=`)), `runtime-a holds ${name}`);
    }
    await p.model.release('hold');
    await page.locator('[data-card="plan"]').waitFor();
    const sent = p.model.requests();
    const digest = crypto.createHash('sha256').update(key).digest('hex').slice(0, 16);
    assert.ok(sent.length >= 1 && sent.every((r) => r.secret_digests?.['x-api-key'] === digest), 'the model requests carried another key');
  });

  await check('the key is in no API answer and no log', async () => {
    assert.ok(!answers.some((a) => a.includes(key)), 'an API answer holds the key');
    for (const f of fs.readdirSync(tmp).filter((x) => x.endsWith('.log') || x.endsWith('.jsonl'))) {
      assert.ok(!fs.readFileSync(path.join(tmp, f), 'utf8').includes(key), `${f} holds the key`);
    }
  });

  await check('a page of another site cannot drive the API, with fetch or a form', async () => {
    const apps = async () => (await (await fetch(`${p.web}/api/workspaces/default/apps`)).json()).apps.length;
    const before = await apps();
    const target = `${p.web}/api/workspaces/default/apps`;
    const evil = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><body>
        <form id="f" method="POST" action="${target}" enctype="text/plain"><input name='{"name":"form","x":"' value='"}'></form>
        <script>
          const body = JSON.stringify({ name: 'evil' });
          window.results = Promise.all([
            fetch(${JSON.stringify(target)}, { method: 'POST', mode: 'no-cors', credentials: 'include', body }).then(() => 'sent', (e) => 'blocked'),
            fetch(${JSON.stringify(target)}, { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json' }, body }).then((r) => 'read ' + r.status, (e) => 'blocked'),
          ]);
        </script></body>`);
    });
    await new Promise((r) => evil.listen(0, '127.0.0.1', r));
    const evilPage = await page.context().newPage();
    const refused = [];
    evilPage.on('response', (r) => {
      if (r.url().startsWith(target)) refused.push(r.status());
    });
    await evilPage.goto(`http://evil.localhost:${evil.address().port}/`);
    const results = await evilPage.evaluate(() => window.results);
    // The JSON request needs a CORS preflight the platform never grants: the browser never sends it.
    assert.equal(results[1], 'blocked');
    await Promise.all([evilPage.waitForNavigation(), evilPage.evaluate(() => document.getElementById('f').submit())]);
    assert.match(await evilPage.content(), /cross_site_request/);
    assert.ok(refused.every((s) => s === 403), `answers: ${refused}`);
    assert.equal(await apps(), before);
    evil.close();
  });

  await browser.close();
});
