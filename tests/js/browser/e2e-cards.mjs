// The spec's table "Rendering of message parts", row by row, in a real browser against the real
// servers: scripted replies drive the real Claude Code CLI, which really runs every tool, and the
// page renders the parts as they stream and as persisted. Covers: the reasoning block's
// "Reasoning..." while the model is still inside its thinking and "Done reasoning" after; the
// read-only shell wrappers (cat, sed -n, ls, find, rg --files, grep) as Read, List and Grep
// one-liners and a writing command as a terminal card with its real output; Claude Code's own
// Read, Glob and Grep tools as Read, Glob and Grep one-liners (e2e-cards-replay.mjs replays
// runtime-b's and runtime-c's cards, List and WebSearch); Claude Code's Write
// and Edit as file-change cards with +/− line counts; WebFetch as a web card with a source chip;
// add_packages as a failed card listing each refused spec, then as the one-liner "Added
// clsx@2.1.1" (npm offline from the cache scripts/setup-test-npm-cache.sh fills); an unknown
// tool as an inline card; the text as markdown with a code block. The custom app-tool card is
// covered by e2e-agent-drawer.mjs (app tools run only in app-agent runs).
//
// Usage: node browser/e2e-cards.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { toolTurn, use } from '../harness.mjs';
import { browserTest, createRun, launchBrowser, requireChromium, screenshot, startPlatform } from './platform.mjs';

requireChromium();
const t = browserTest('platform-cards-e2e-');
const { check, watch, run, tmp } = t;

const reads = [
  ['t_cat', 'cat src/main.tsx', 'Read', 'src/main.tsx'],
  ['t_sed', "sed -n 1,5p src/App.tsx", 'Read', 'src/App.tsx'],
  ['t_ls', 'ls src', 'List', 'src'],
  ['t_find', 'find src -name *.tsx', 'List', 'src'],
  ['t_rg', 'rg --files src', 'List', 'src'],
  ['t_grep', 'grep -n createRoot src/main.tsx', 'Grep', 'createRoot src/main.tsx'],
];
// Claude Code's own read-only tools, which the CLI really runs (paths relative to the workspace).
const natives = [
  ['t_native_read', 'Read', { file_path: 'src/main.tsx' }, 'Read', 'src/main.tsx'],
  ['t_native_glob', 'Glob', { pattern: 'src/*.tsx' }, 'Glob', 'src/*.tsx'],
  ['t_native_grep', 'Grep', { pattern: 'createRoot', output_mode: 'files_with_matches' }, 'Grep', 'createRoot'],
];
const turns = [
  {
    blocks: [
      { type: 'thinking', thinking: 'Weighing which cards to show first.', pause: 'think' },
      { type: 'text', text: 'Looking around the workspace.' },
      ...reads.map(([id, command]) => use(id, 'Bash', { command, description: 'Look' })),
    ],
    stop_reason: 'tool_use',
  },
  toolTurn(...natives.map(([id, name, input]) => use(id, name, input))),
  // Claude Code's file tools take the path relative to the workspace too (it resolves it).
  toolTurn(
    use('t_shell', 'Bash', { command: 'echo written-by-cards > shell-note.txt && cat shell-note.txt', description: 'Write a note' }),
    use('t_write', 'Write', { file_path: 'notes.md', content: 'one\ntwo\nthree\n' }),
  ),
  toolTurn(use('t_edit', 'Edit', { file_path: 'notes.md', old_string: 'two', new_string: '2\nzwei' })),
  toolTurn(use('t_fetch', 'WebFetch', { url: 'https://docs.example.com/guide', prompt: 'What does it say?' })),
  toolTurn(use('t_pkg_bad', 'mcp__platform__add_packages', { packages: ['clsx@^2.1.1', 'react@19.0.0'] })),
  toolTurn(use('t_pkg', 'mcp__platform__add_packages', { packages: ['clsx@2.1.1'] })),
  toolTurn(use('t_other', 'mcp__platform__list_app_integration_keys', {})),
  { blocks: [{ type: 'text', text: 'All cards shown:\n\n```ts\nconst cards = 6;\n```\n' }], stop_reason: 'end_turn' },
];

/** Opens a collapsible card unless it is open already (a card that was running while the page
 *  watched stays open). */
async function expand(card) {
  if ((await card.getAttribute('data-state')) !== 'open') await card.getByRole('button').first().click();
  await card.and(card.page().locator('[data-state="open"]')).waitFor();
}

run(async () => {
  // add_packages installs clsx offline, from the npm cache the setup filled.
  execFileSync('bash', [path.join(t.projectDir, 'scripts/setup-test-npm-cache.sh')], { stdio: ['ignore', 2, 2] });
  const npmCache = execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8', cwd: tmp }).trim();
  const workerEnv = { PLATFORM_NPM_CACHE: npmCache, PLATFORM_NPM_OFFLINE: '1' };
  const p = await startPlatform(t, { buildDir: t.buildDir, projectDir: t.projectDir, turns, workerEnv });
  const routes = await createRun(p.web, 'Cards');
  const workspace = path.join(p.dataDir, 'worker/workspaces', routes.app.id);
  const browser = await launchBrowser();
  const page = watch(await (await browser.newContext({ viewport: { width: 1300, height: 1000 } })).newPage());
  const reasoning = page.locator('[data-part="reasoning"]');

  await check('reasoning: "Reasoning..." while the model is inside its thinking, "Done reasoning" after', async () => {
    await page.goto(routes.page);
    await page.getByTestId('composer').fill('Show me every card');
    await page.getByTestId('send').click();
    // The reply holds inside the open thinking block.
    await reasoning.getByText('Reasoning...', { exact: true }).waitFor();
    assert.equal(await reasoning.getByText('Done reasoning').count(), 0);
    await reasoning.getByRole('button').click();
    await reasoning.getByText('Weighing').waitFor();
    await p.model.release('think');
    await reasoning.getByText('Done reasoning', { exact: true }).waitFor();
    assert.equal(await reasoning.getByText('Reasoning...').count(), 0);
  });

  await check('read-only shell wrappers are Read, List and Grep one-liners, the CLI\'s Read, Glob and Grep too; a writing command is a terminal card', async () => {
    await page.getByText('All cards shown:').waitFor({ timeout: 90000 });
    await page.waitForSelector('[data-testid="composer"]:not([disabled])');
    const onelines = await page.locator('[data-card="oneline"]').evaluateAll((els) =>
      els.map((el) => ({ kind: el.getAttribute('data-kind'), target: el.querySelector('code')?.textContent, done: !!el.querySelector('[aria-label="done"]') })),
    );
    assert.deepEqual(onelines, [...reads.map(([, , kind, target]) => ({ kind, target, done: true })),
      ...natives.map(([, , , kind, target]) => ({ kind, target, done: true }))]);
    const terminal = page.locator('[data-card="terminal"]');
    assert.equal(await terminal.count(), 1);
    await expand(terminal);
    // The real output of the command, which really ran in the app's workspace.
    await terminal.getByTestId('terminal-output').getByText('written-by-cards').waitFor();
    assert.equal(fs.readFileSync(path.join(workspace, 'shell-note.txt'), 'utf8'), 'written-by-cards\n');
  });

  await check('Write and Edit are file-change cards with +/− line counts', async () => {
    const cards = page.locator('[data-card="file-change"]');
    assert.equal(await cards.count(), 2);
    const write = cards.nth(0);
    const edit = cards.nth(1);
    assert.match(await write.innerText(), /Write\s+notes\.md/);
    assert.equal((await write.getByTestId('diff-stats').innerText()).replace(/\s+/g, ' '), '+3 −0');
    assert.match(await edit.innerText(), /Edit\s+notes\.md/);
    assert.equal((await edit.getByTestId('diff-stats').innerText()).replace(/\s+/g, ' '), '+2 −1');
    // Both tools really ran, in order: the file holds the edit.
    assert.equal(fs.readFileSync(path.join(workspace, 'notes.md'), 'utf8'), 'one\n2\nzwei\nthree\n');
    await expand(edit);
    const diff = await edit.locator('pre').innerText();
    assert.deepEqual(diff.split('\n').filter(Boolean), ['-two', '+2', '+zwei']);
  });

  await check('add_packages: refused specs in a failed card with their codes, then "Added clsx@2.1.1" on one line', async () => {
    const cards = page.locator('[data-card="packages"]');
    assert.equal(await cards.count(), 2);
    const failed = cards.nth(0);
    assert.equal(await page.locator('[data-status="failed"] [data-card="packages"]').count(), 1);
    assert.match(await failed.innerText(), /Packages not added/);
    const problems = await failed.getByTestId('package-problems').locator('li').allInnerTexts();
    assert.equal(problems.length, 2);
    assert.match(problems[0], /^not_exact_version\s*"clsx@\^2\.1\.1" is not an exact version/);
    assert.match(problems[1], /^platform_package\s*"react" is one of the platform's own packages/);
    const added = cards.nth(1);
    assert.equal(await added.getAttribute('data-status'), 'ok');
    assert.equal((await added.innerText()).replace(/\s+/g, ' ').trim(), 'Added clsx@2.1.1');
    assert.equal(JSON.parse(fs.readFileSync(path.join(workspace, 'package.json'), 'utf8')).dependencies.clsx, '2.1.1');
  });

  await check('WebFetch is a web card with a source chip; another tool an inline card; text is markdown', async () => {
    const web = page.locator('[data-card="web"]');
    assert.equal(await web.count(), 1);
    assert.match(await web.innerText(), /Fetch\s+https:\/\/docs\.example\.com\/guide/);
    const chip = web.getByTestId('source-chips').getByRole('link');
    assert.deepEqual(await chip.allInnerTexts(), ['docs.example.com']);
    assert.equal(await chip.getAttribute('href'), 'https://docs.example.com/guide');
    assert.equal(await chip.getAttribute('rel'), 'noreferrer noopener');
    const inline = page.locator('[data-card="inline"]');
    assert.equal(await inline.count(), 1);
    assert.match(await inline.innerText(), /list_app_integration_keys/);
    const code = page.locator('[data-role="assistant"] .prose-chat pre');
    assert.match(await code.innerText(), /const cards = 6;/);
    await screenshot(page, tmp, 'cards');
  });

  await check('after a reload the persisted parts render the same cards', async () => {
    const before = await page.locator('[data-card]').evaluateAll((els) => els.map((el) => `${el.getAttribute('data-card')}:${el.getAttribute('data-kind') ?? ''}`));
    await page.reload();
    await page.getByText('All cards shown:').waitFor();
    const after = await page.locator('[data-card]').evaluateAll((els) => els.map((el) => `${el.getAttribute('data-card')}:${el.getAttribute('data-kind') ?? ''}`));
    assert.deepEqual(after, before);
    assert.equal(await reasoning.getByText('Done reasoning', { exact: true }).count(), 1);
  });

  await browser.close();
});
