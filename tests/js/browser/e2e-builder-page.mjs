// The builder page in a real browser (Debian's Chromium through playwright-core) against the
// real servers, the real Claude Code CLI and the scripted model server. Covers: creating an app
// from the page sends its prompt exactly once; a reload in the middle of streamed text shows
// one assistant message whose text equals the persisted one; the plan card blocks the composer,
// also after a reload; Approve & Build sends one message (a reload mid-tool shows the turn once)
// and the build's cards render by the
// spec's table (Bash read wrappers as one-liners, a terminal card, done_building); Request
// Changes sends the feedback as the next message. A second tab of the same run follows the
// turn: it shows the plan card with its composer blocked too, and once the first tab approves,
// the card is answered and the composer waits for nothing but the build (both derived from the
// persisted messages, also after a reload). The run's usage line in both tabs and the Runs tab
// shows the tokens the scripted model reported and the dollars the API's run usage says.
//
// Usage: node browser/e2e-builder-page.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import { use, toolTurn } from '../harness.mjs';
import { browserTest, launchBrowser, messageText, recordRequests, requireChromium, screenshot, shownAssistantTexts, startPlatform } from './platform.mjs';

requireChromium();
const t = browserTest('platform-builder-page-e2e-');
const { tmp, check, run, watch, buildDir, projectDir } = t;

const plan = { title: 'Counter app', summary: 'A button that counts.', steps: ['Write the counter', 'Build it'] };
// What the scripted model reports for each reply of the first run (Anthropic style: input not
// read from or written to the cache, cache reads, cache writes, output).
const usage = (input_tokens, cache_read_input_tokens, cache_creation_input_tokens, output_tokens) => ({ input_tokens, cache_read_input_tokens, cache_creation_input_tokens, output_tokens });
const turnUsage = [usage(1200, 0, 2000, 90), usage(300, 3200, 0, 40), usage(250, 3300, 100, 60), usage(150, 3400, 0, 30), usage(100, 3500, 0, 25)];
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
].map((turn, i) => ({ ...turn, usage: turnUsage[i] }));

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
  let tabB;
  const chatRoute = () => {
    const [, , ws, , app, , runId] = runPath.split('/');
    return `/api/workspaces/${ws}/apps/${app}/runs/${runId}/chat`;
  };
  const planCard = (tab) => tab.locator('[data-card="plan"]');
  const composerBlocked = (tab) => tab.getByTestId('composer-blocked');

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

  await check('a second tab of the same run follows the held turn without sending anything', async () => {
    tabB = watch(await context.newPage());
    await tabB.goto(`${p.web}${runPath}`);
    await tabB.getByText('First half of the answer.').waitFor();
    assert.equal(await planCard(tabB).count(), 0);
    assert.equal(chatPosts(seen).length, 1);
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
    const persisted = await api(chatRoute());
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

  await check('the plan card shows in the second tab too, and blocks its composer as well', async () => {
    await planCard(tabB).getByText('Counter app').waitFor();
    await planCard(tabB).getByText('Waiting for you', { exact: true }).waitFor();
    await tabB.getByRole('button', { name: 'Approve & Build' }).waitFor();
    await tabB.getByRole('button', { name: 'Request Changes' }).waitFor();
    assert.equal(await composerBlocked(tabB).innerText(), 'Approve the plan or request changes to continue.');
    assert.equal(await tabB.getByTestId('composer').isDisabled(), true);
    assert.equal(await composerBlocked(page).innerText(), 'Approve the plan or request changes to continue.');
    // The turn completed on a card that waits: the badge says so, not "Completed".
    await page.getByText('Waiting for your approval', { exact: true }).waitFor();
    await tabB.getByText('Waiting for your approval', { exact: true }).waitFor();
    assert.equal(chatPosts(seen).length, 1);
  });

  let postsBeforeApproval;
  await check('Approve & Build sends one message; a reload mid-tool shows the turn once', async () => {
    postsBeforeApproval = chatPosts(seen).length;
    await page.getByRole('button', { name: 'Approve & Build' }).click();
    // Reload while the shell call is on screen but has not run: the resumed stream shows the
    // turn once, with the one terminal card.
    await page.locator('[data-card="terminal"]').waitFor({ timeout: 60000 });
    // The approval's hint goes with the approval: the build is working, nothing waits.
    assert.equal(await composerBlocked(page).count(), 0, 'the approval hint stayed up during the build');
    assert.equal(await page.getByText('Waiting for your approval', { exact: true }).count(), 0);
    await page.reload();
    await page.locator('[data-card="terminal"]').waitFor();
    assert.equal(await composerBlocked(page).count(), 0, 'the approval hint came back after a reload mid-build');
    assert.equal(await page.locator('[data-role="assistant"]').count(), 2);
    assert.equal(await page.locator('[data-card="terminal"]').count(), 1);
  });

  await check('approved in the first tab: the second tab’s plan card is answered and its composer no longer waits for it', async () => {
    // The build is held mid-tool: the second tab follows it, and only the build keeps its
    // composer busy (Stop), not the plan.
    await tabB.locator('[data-card="terminal"]').waitFor({ timeout: 60000 });
    await planCard(tabB).getByText('Answered', { exact: true }).waitFor();
    assert.equal(await tabB.getByRole('button', { name: 'Approve & Build' }).count(), 0);
    assert.equal(await tabB.getByRole('button', { name: 'Request Changes' }).count(), 0);
    assert.equal(await composerBlocked(tabB).count(), 0);
    await tabB.getByTestId('stop').waitFor();
    assert.deepEqual(await tabB.locator('[data-role="user"]').allInnerTexts(), ['A counter with one button', 'Approved. Build it as planned.']);
    assert.equal(chatPosts(seen).length, postsBeforeApproval + 1);
  });

  await check('the build renders by the spec table', async () => {
    const before = postsBeforeApproval;
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
    // The preview shows the app the build made (the template's screen), not a blank frame.
    await page.frameLocator('[data-testid="preview-frame"]').getByRole('heading', { name: 'New app' }).waitFor();
    // The preview's header names the build in words (when it was built), not as a bare digest.
    const built = await page.getByTestId('preview-built').innerText();
    assert.match(built, /^Built (today|.+) at \d{1,2}[:.]\d{2}/, built);
    assert.ok(!/sha256|[0-9a-f]{12}/.test(built), built);
    // ... and by which turn: the request that turn answered, in the person's words.
    const asked = (await api(chatRoute())).messages.filter((m) => m.role === 'user').at(-1);
    const request = asked.parts.filter((x) => x.type === 'text').map((x) => x.text).join('').trim().split('\n')[0];
    assert.ok(request && built.includes(`by the turn “${request.slice(0, 30)}`), `${built} / ${request}`);
    await screenshot(page, tmp, 'build-cards');
  });

  await check('the second tab ends free: the answered plan, the persisted messages once, the composer enabled; the same after a reload', async () => {
    const persisted = await api(chatRoute());
    assert.equal(persisted.status, 'completed');
    for (const reload of [false, true]) {
      if (reload) await tabB.reload();
      await tabB.getByText('All done: the counter is built.').waitFor({ timeout: 60000 });
      await tabB.waitForSelector('[data-testid="composer"]:not([disabled])');
      assert.equal(await composerBlocked(tabB).count(), 0);
      await planCard(tabB).getByText('Answered', { exact: true }).waitFor();
      assert.equal(await tabB.getByRole('button', { name: 'Approve & Build' }).count(), 0);
      assert.deepEqual(await tabB.locator('[data-role="user"]').allInnerTexts(), ['A counter with one button', 'Approved. Build it as planned.']);
      assert.deepEqual(await shownAssistantTexts(tabB), persisted.messages.filter((m) => m.role === 'assistant').map(messageText));
    }
    await tabB.getByTestId('composer').fill('Typed in the second tab');
    assert.equal(await tabB.getByTestId('send').isEnabled(), true);
    await tabB.getByTestId('composer').fill('');
    assert.equal(chatPosts(seen).length, postsBeforeApproval + 1);
  });

  await check('usage and cost of the run: the tokens the scripted model reported and the API’s dollars, in both tabs and on the Runs tab', async () => {
    // Every model request so far is this run's: the reply each got is the turn of its index.
    const replies = p.model.requests().map((r) => turnUsage[Math.min(r.body.messages.filter((m) => m.role === 'assistant').length, turnUsage.length - 1)]);
    assert.equal(replies.length, 5);
    const sum = (field) => replies.reduce((n, u) => n + u[field], 0);
    const reported = [sum('input_tokens'), sum('output_tokens'), sum('cache_read_input_tokens'), sum('cache_creation_input_tokens')];
    assert.deepEqual(reported, [2000, 245, 13400, 2100]);
    // The API's run usage holds every reply once, the plan's (its turn ended by the approval
    // stop) included, priced at claude-opus-5-5's rates (docs/runtimes.md: 4 / 20 / 0.20 / 5
    // USD per million input, output, cache read, cache write tokens).
    const { usage: runUsage } = await api(chatRoute());
    assert.deepEqual([runUsage.totalInputTokens, runUsage.totalOutputTokens, runUsage.totalCacheReadTokens, runUsage.totalCacheCreationTokens], reported);
    assert.deepEqual(Object.keys(runUsage.byModel), ['claude-opus-5-5']);
    assert.ok(Math.abs(runUsage.totalCostUsd - (2000 * 4 + 245 * 20 + 13400 * 0.2 + 2100 * 5) / 1e6) < 1e-9, JSON.stringify(runUsage));
    const line = '2K in · 245 out · 13.4K cached · $0.0261';
    const exact = '2,000 input · 245 output · 13,400 cache read · 2,100 cache write tokens · $0.02608';
    const shown = async (where) => {
      const usage = where.locator('[data-testid="usage"]', { hasText: line });
      await usage.waitFor();
      return [await usage.innerText(), await usage.getAttribute('title')];
    };
    for (const tab of [page, tabB]) assert.deepEqual(await shown(tab), [line, exact]);
    await tabB.getByTestId('tab-runs').click();
    const runs = tabB.getByTestId('runs-list');
    await runs.locator('li').first().waitFor();
    assert.equal(await runs.locator('li').count(), 1);
    assert.deepEqual(await shown(runs), [line, exact]);
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
