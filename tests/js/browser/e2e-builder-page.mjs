// The builder page in a real browser (Debian's Chromium through playwright-core) against the
// real servers, the real Claude Code CLI and the scripted model server. Covers: creating an app
// from the page sends its prompt exactly once; a reload in the middle of streamed text shows
// one assistant message whose text equals the persisted one; the plan card blocks the composer,
// also after a reload; Approve & Build sends one message (a reload mid-tool shows the turn once)
// and the build's cards render by the
// spec's table (Bash read wrappers as one-liners, a terminal card, done_building); Request
// Changes sends the feedback as the next message.
//
// Usage: node browser/e2e-builder-page.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import { use, toolTurn } from '../harness.mjs';
import { browserTest, launchBrowser, recordRequests, requireChromium, screenshot, startPlatform } from './platform.mjs';

requireChromium();
const t = browserTest('platform-builder-page-e2e-');
const { tmp, check, run, watch, buildDir, projectDir } = t;

const plan = { title: 'Counter app', summary: 'A button that counts.', steps: ['Write the counter', 'Build it'] };
const turns = [
  {
    blocks: [
      { type: 'thinking', thinking: 'Planning a counter.' },
      { type: 'text', text: 'First half of the answer. ' },
      { type: 'pause', name: 'mid' },
      { type: 'text', text: 'Second half, after the pause.' },
      use('t_plan', 'mcp__platform__present_plan', plan),
    ],
    stop_reason: 'tool_use',
  },
  toolTurn(use('t_read', 'Bash', { command: 'cat src/main.tsx', description: 'Read main' })),
  // Held after the tool call streamed in, before it runs: a reload lands mid-tool.
  toolTurn(use('t_shell', 'Bash', { command: 'echo built-by-e2e > notes.txt && cat notes.txt', description: 'Write a note' }), { type: 'pause', name: 'tool' }),
  toolTurn(use('t_done', 'mcp__platform__done_building', { summary: 'Counter' })),
  { blocks: [{ type: 'text', text: 'All done: the counter is built.' }], stop_reason: 'end_turn' },
];

const chatPosts = (seen) => seen.filter((r) => r.method === 'POST' && /\/runs\/[^/]+\/chat$/.test(r.path));
const assistantText = (msg) => msg.parts.filter((p) => p.type === 'text').map((p) => p.text).join('');

run(async () => {
  const p = await startPlatform(t, { buildDir, projectDir, turns });
  const browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const seen = recordRequests(context);
  const page = watch(await context.newPage());
  const api = (route) => page.evaluate((r) => fetch(r, { cache: 'no-store' }).then((x) => x.json()), route);
  let runPath;

  await check('a new app from the page: the run page sends the stored prompt exactly once', async () => {
    await page.goto(`${p.web}/`);
    await page.waitForURL(/\/w\/default$/);
    await page.getByLabel('Name').fill('Counter');
    await page.getByLabel('What should it do?').fill('A counter with one button');
    await page.getByTestId('create-app').click();
    await page.waitForURL(/\/w\/default\/apps\/[^/]+\/runs\/[^/]+$/);
    runPath = new URL(page.url()).pathname;
    await page.getByText('First half of the answer.').waitFor();
    assert.equal(chatPosts(seen).length, 1);
    const sent = chatPosts(seen)[0];
    assert.match(sent.path, /\/api\/workspaces\/default\/apps\/[^/]+\/runs\/[^/]+\/chat$/);
  });

  await check('reload in the middle of the text: one assistant message, resumed, then the same text as persisted', async () => {
    await page.reload();
    await page.getByText('First half of the answer.').waitFor();
    assert.equal(await page.locator('[data-role="assistant"]').count(), 1);
    await p.model.release('mid');
    await page.locator('[data-card="plan"]').waitFor();
    await page.getByText('Second half, after the pause.').waitFor();
    // The composer says why it is blocked once the persisted run shows the approval stop.
    await page.getByTestId('composer-blocked').waitFor();
    assert.equal(await page.locator('[data-role="assistant"]').count(), 1);
    assert.equal(await page.locator('[data-role="user"]').count(), 1);
    // No second POST from the reload: the page resumed instead of re-sending.
    assert.equal(chatPosts(seen).length, 1);
    const [, , ws, , app, , runId] = runPath.split('/');
    const persisted = await api(`/api/workspaces/${ws}/apps/${app}/runs/${runId}/chat`);
    assert.equal(persisted.status, 'completed');
    const shown = await page.locator('[data-role="assistant"] .prose-chat').allInnerTexts();
    // Markdown drops the spaces at block ends: compare the text without whitespace.
    assert.equal(shown.join('').replace(/\s+/g, ''), assistantText(persisted.messages.at(-1)).replace(/\s+/g, ''));
    await page.getByText('Done reasoning').waitFor();
  });

  await check('the plan card blocks the composer, also after a reload', async () => {
    assert.equal(await page.getByTestId('composer').isDisabled(), true);
    await screenshot(page, tmp, 'plan-blocks-composer');
    await page.reload();
    await page.locator('[data-card="plan"]').waitFor();
    await page.getByRole('button', { name: 'Approve & Build' }).waitFor();
    assert.equal(await page.getByTestId('composer').isDisabled(), true);
  });

  await check('Approve & Build sends one message; the build renders by the spec table', async () => {
    const before = chatPosts(seen).length;
    await page.getByRole('button', { name: 'Approve & Build' }).click();
    // Reload while the shell call is on screen but has not run: the resumed stream shows the
    // turn once, with the one terminal card.
    await page.locator('[data-card="terminal"]').waitFor({ timeout: 60000 });
    await page.reload();
    await page.locator('[data-card="terminal"]').waitFor();
    assert.equal(await page.locator('[data-role="assistant"]').count(), 2);
    assert.equal(await page.locator('[data-card="terminal"]').count(), 1);
    await p.model.release('tool');
    await page.getByText('All done: the counter is built.').waitFor({ timeout: 120000 });
    assert.equal(chatPosts(seen).length, before + 1);
    // `cat src/main.tsx` is a read: a one-line Read card, not a terminal.
    const read = page.locator('[data-card="oneline"][data-kind="Read"]');
    await read.waitFor();
    assert.match(await read.innerText(), /src\/main\.tsx/);
    // A command that writes stays a terminal card, with its real output.
    const term = page.locator('[data-card="terminal"]');
    assert.equal(await term.count(), 1);
    await page.locator('[data-card="done-building"]').getByText('Built').waitFor();
    // The turn ended (persisted, completed): the composer is free again.
    await page.waitForSelector('[data-testid="composer"]:not([disabled])');
    await page.getByTestId('usage').waitFor();
    await screenshot(page, tmp, 'build-cards');
  });

  await check('Request Changes sends the feedback as the next user message', async () => {
    await page.goto(`${p.web}/w/default`);
    await page.getByLabel('Name').fill('Second');
    await page.getByLabel('What should it do?').fill('Another counter');
    await page.getByTestId('create-app').click();
    await page.waitForURL(/\/runs\/[^/]+$/);
    await p.model.release('mid');
    await page.locator('[data-card="plan"]').waitFor();
    await page.getByRole('button', { name: 'Approve & Build' }).waitFor();
    const before = chatPosts(seen).length;
    await page.getByRole('button', { name: 'Request Changes' }).click();
    await page.getByLabel('What should change').fill('Make the button green');
    await page.getByRole('button', { name: 'Send feedback' }).click();
    await page.getByText('Make the button green').waitFor();
    assert.equal(chatPosts(seen).length, before + 1);
    const users = await page.locator('[data-role="user"]').allInnerTexts();
    assert.equal(users.at(-1), 'Make the button green');
  });

  await browser.close();
});
