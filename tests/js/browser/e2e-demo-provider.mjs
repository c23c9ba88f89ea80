// The first run without a provider key, as scripts/run.sh sets it up: the demo provider's
// scripted replies (examples/demo-provider/scenario.json) drive the real Claude Code CLI, the
// page labels them, and a person builds an app from the browser: plan, approval, a real file
// written, a real type check and build, an agent approved. Request Changes gets a revised plan.
// The built app shows what the platform is for: its tasks live in the app's data (a reload and a
// second tab show them), "Ask the Planner" runs the approved agent (the scenario's "agent" reply:
// a data read and an answer, shown in the app and in the agent run drawer), and "Get a focus
// tip" calls an app action that answers with its mock data. Also the screenshots of the main screens
// (scripts/screenshots.sh copies them into docs/screenshots). The live preview: the build is
// stored by the web server and framed from the app's own origin, with a signed path token,
// sandboxed, unable to reach the API or the builder's cookies.
//
// Usage: node browser/e2e-demo-provider.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { browserTest, launchBrowser, requireChromium, screenshot, startPlatform } from './platform.mjs';

requireChromium();
const t = browserTest('platform-demo-provider-e2e-');
const { tmp, check, run, watch, buildDir, projectDir } = t;

run(async () => {
  const p = await startPlatform(t, {
    buildDir,
    projectDir,
    scenarioFile: path.join(projectDir, 'examples/demo-provider/scenario.json'),
    demoProvider: true,
  });
  const browser = await launchBrowser();
  const page = watch(await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage());
  let appId;

  await check('the page says the replies are scripted', async () => {
    await page.goto(`${p.web}/`);
    await page.getByTestId('demo-banner').waitFor();
    assert.match(await page.getByTestId('demo-banner').innerText(), /scripted/);
    await page.getByLabel('Name').fill('Tasks');
    await page.getByLabel('What should it do?').fill('A small task list where I can add tasks and tick them off.');
    await screenshot(page, tmp, 'new-app');
  });

  await check('a person builds an app from the browser: plan, approve, a real file, a real build', async () => {
    await page.getByTestId('create-app').click();
    await page.getByRole('button', { name: 'Approve & Build' }).waitFor({ timeout: 60000 });
    appId = new URL(page.url()).pathname.split('/')[4];
    await screenshot(page, tmp, 'plan');
    // Request Changes: the feedback is the next user message; the scenario answers it with a
    // revised plan, which is the one approved.
    await page.getByRole('button', { name: 'Request Changes' }).click();
    await page.getByLabel('What should change').fill('Let an agent suggest the next task.');
    await page.getByRole('button', { name: 'Send feedback' }).click();
    const revised = page.locator('[data-card="plan"]').filter({ hasText: 'A small task list (revised)' });
    await revised.getByRole('button', { name: 'Approve & Build' }).waitFor({ timeout: 60000 });
    assert.equal(await page.locator('[data-card="plan"]').count(), 2);
    await screenshot(page, tmp, 'plan-revised');
    await revised.getByRole('button', { name: 'Approve & Build' }).click();
    await page.locator('[data-card="done-building"]').getByText('Built').waitFor({ timeout: 180000 });
    // The build ends with the agent it wrote, waiting for approval (the owner may approve).
    const agents = page.locator('[data-card="agents"][data-status="awaiting_approval"]');
    await agents.waitFor({ timeout: 60000 });
    assert.match(await agents.innerText(), /Planner/);
    await page.getByTestId('composer-blocked').waitFor();
    await screenshot(page, tmp, 'agents-card');
    await agents.getByRole('button', { name: 'Approve agents' }).click();
    await page.getByText('the Planner agent is approved').waitFor({ timeout: 60000 });
    await page.waitForSelector('[data-testid="composer"]:not([disabled])');
    assert.equal((await (await fetch(`${p.web}/api/workspaces/default/apps/${appId}/agents`)).json()).approvalStatus, 'approved');
    const app = fs.readFileSync(path.join(p.dataDir, 'worker/workspaces', appId, 'src/App.tsx'), 'utf8');
    assert.match(app, /<h1 className="text-2xl font-semibold">Tasks<\/h1>/);
    assert.match(app, /useCollection<Task>\('tasks'\)/);
    assert.ok(fs.existsSync(path.join(p.dataDir, 'worker/workspaces', appId, 'dist/index.html')));
    // `ls src` is a read: a List one-liner; the heredocs that wrote App.tsx and agents.json are
    // terminal cards.
    await page.locator('[data-card="oneline"][data-kind="List"]').waitFor();
    assert.equal(await page.locator('[data-card="terminal"]').count(), 2);
    // One model request per scripted reply: the approval stops asked for nothing more, and the
    // turns after them resumed the CLI's own session (the scenario's turn count went on).
    assert.equal(p.model.requests().length, 8);
    await screenshot(page, tmp, 'built');
  });

  await check('the live preview frames the new build from the app\'s own origin, sandboxed, without the API', async () => {
    const frameEl = page.getByTestId('preview-frame');
    await frameEl.waitFor();
    const src = await frameEl.getAttribute('src');
    const web = new URL(p.web);
    const origin = new URL(src);
    assert.equal(origin.host, `${appId}.preview.localhost:${web.port}`);
    assert.notEqual(origin.origin, web.origin);
    assert.equal(await frameEl.getAttribute('sandbox'), 'allow-scripts allow-same-origin allow-forms allow-modals allow-popups allow-downloads');
    const frame = page.frameLocator('[data-testid="preview-frame"]');
    await frame.getByRole('heading', { name: 'Tasks' }).waitFor();
    // The app works in the frame.
    await frame.getByPlaceholder('Add a task').fill('Check the preview');
    await frame.getByRole('button', { name: 'Add' }).click();
    await frame.getByText('Check the preview').waitFor();
    await frame.getByText('1 left').waitFor();
    const inside = page.frames().find((f) => f.url().startsWith(origin.origin));
    assert.ok(inside, 'no frame at the preview origin');
    // connect-src 'none': postMessage is the app's only way out.
    assert.equal(await inside.evaluate(() => fetch('/api/me').then(() => 'reached', () => 'blocked')), 'blocked');
    assert.equal(await inside.evaluate(() => document.cookie), '');
    await screenshot(page, tmp, 'preview');

    // Straight at the preview origin (Host header), as any client could: files only with the token.
    const get = (pathname) =>
      new Promise((resolve, reject) => {
        http.get({ host: '127.0.0.1', port: web.port, path: pathname, headers: { host: origin.host } }, (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body }));
        }).on('error', reject);
      });
    const ok = await get(origin.pathname);
    assert.equal(ok.status, 200);
    assert.match(ok.headers['content-security-policy'], /connect-src 'none'/);
    assert.match(ok.headers['content-security-policy'], new RegExp(`frame-ancestors http://127\\.0\\.0\\.1:${web.port}`));
    assert.equal(ok.headers['set-cookie'], undefined);
    const token = origin.pathname.split('/')[2];
    const forged = token.slice(0, -1) + (token.endsWith('0') ? '1' : '0');
    assert.equal((await get(`/p/${forged}/index.html`)).status, 403);
    assert.equal((await get('/index.html')).status, 404);
    assert.equal((await get(`/p/${token}/../secrets.key`)).status, 404);
    const api = await get('/api/me');
    assert.equal(api.status, 404, 'the preview origin answered an API route');
    // Another app's origin with this app's token: refused.
    const other = await new Promise((resolve) => {
      http.get({ host: '127.0.0.1', port: web.port, path: origin.pathname, headers: { host: `other_app.preview.localhost:${web.port}` } }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
    });
    assert.equal(other, 403);
  });

  const frame = page.frameLocator('[data-testid="preview-frame"]');

  await check('the demo app keeps its tasks in the app\'s data: they survive a reload and show live in a second tab', async () => {
    await page.reload();
    await frame.getByText('Check the preview').waitFor({ timeout: 60000 });
    const second = watch(await page.context().newPage());
    await second.goto(page.url());
    const frame2 = second.frameLocator('[data-testid="preview-frame"]');
    await frame2.getByText('Check the preview').waitFor({ timeout: 60000 });
    await frame2.getByPlaceholder('Add a task').fill('Added in the second tab');
    await frame2.getByRole('button', { name: 'Add' }).click();
    await frame.getByText('Added in the second tab').waitFor({ timeout: 30000 });
    await frame.getByLabel('Done: Check the preview').check();
    await frame2.getByText('1 left').waitFor({ timeout: 30000 });
    await second.close();
  });

  await check('the app\'s button runs the approved agent: its answer shows in the app', async () => {
    await frame.getByRole('button', { name: 'Ask the Planner' }).click();
    await frame.getByTestId('planner-answer').getByText(/oldest open task/).waitFor({ timeout: 120000 });
  });

  await check('the app action answers with its mock data in the app', async () => {
    await frame.getByRole('button', { name: 'Get a focus tip' }).click();
    const tip = frame.getByTestId('focus-tip');
    await tip.waitFor({ timeout: 30000 });
    assert.match(await tip.innerText(), /25 minutes|putting off|one sitting/);
    assert.match(await tip.innerText(), /sample data/);
    await screenshot(page, tmp, 'demo-app');
  });

  await check('the runs page lists the run; the agent run shows the agent\'s answer, no plan card, no Bash error', async () => {
    await page.getByRole('button', { name: 'Runs' }).click();
    await page.getByTestId('runs-list').getByText('Completed').first().waitFor();
    const agentRun = page.locator('[data-testid^="agent-run-"]').filter({ hasText: 'Completed' }).first();
    await agentRun.waitFor({ timeout: 60000 });
    await agentRun.click();
    const drawer = page.getByTestId('agent-run-drawer');
    const messages = drawer.getByTestId('agent-run-messages');
    await messages.getByText(/oldest open task/).waitFor({ timeout: 30000 });
    assert.equal(await drawer.locator('[data-card="plan"]').count(), 0);
    assert.doesNotMatch(await drawer.innerText(), /Bash is disabled|tool_use_error|Build failed/);
    await screenshot(page, tmp, 'agent-run-drawer');
    await drawer.getByTestId('agent-run-drawer-close').click();
    await drawer.waitFor({ state: 'detached' });
    await screenshot(page, tmp, 'runs');
  });

  await check('the demo app at 390x844', async () => {
    const phone = watch(await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage());
    await phone.goto(page.url().replace(/\/runs$/, ''));
    // At 390 px the app page shows Chat and Preview as tabs: wait for the tab, then open it.
    await phone.getByTestId('pane-preview').click();
    const f = phone.frameLocator('[data-testid="preview-frame"]');
    await f.getByText('Added in the second tab').waitFor({ timeout: 60000 });
    await f.getByRole('button', { name: 'Get a focus tip' }).click();
    await f.getByTestId('focus-tip').waitFor({ timeout: 30000 });
    await screenshot(phone, tmp, 'demo-app-phone');
    await phone.context().close();
  });

  await check('a key entered on the onboarding screen ends the demo provider without a restart', async () => {
    // The demo provider's key, never a key of the operator's: the worker had none.
    const demoKey = crypto.createHash('sha256').update('demo-provider').digest('hex').slice(0, 16);
    assert.ok(p.model.requests().every((r) => r.secret_digests?.['x-api-key'] === demoKey));
    await page.goto(`${p.web}/onboarding/provider`);
    await page.getByTestId('demo-note').waitFor({ timeout: 60000 });
    await page.getByTestId('key-input-ANTHROPIC_API_KEY').fill('sk-ant-demo-ends-here-1');
    await page.getByTestId('runtime-runtime-a').getByRole('button', { name: 'Save key' }).click();
    await page.getByTestId('runtime-runtime-a').getByText('Ready').waitFor({ timeout: 60000 });
    await page.getByTestId('demo-note').waitFor({ state: 'detached' });
    await page.goto(`${p.web}/`);
    await page.getByTestId('create-app').waitFor();
    // (Shown until the worker's answer says otherwise.)
    await page.getByTestId('demo-banner').waitFor({ state: 'detached', timeout: 60000 });
    const detected = await (await fetch(`${p.web}/api/setup/detect-provider`)).json();
    assert.equal(detected.runtimes['runtime-a'].demo, false);
  });

  await browser.close();
});
