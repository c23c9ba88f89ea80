// The Code tab (issue 34: "a newcomer never sees a diff"), in a real browser against the real
// servers, the real Claude Code CLI and the scripted model server. Two builder turns, each
// through the chat route: the first writes src/App.tsx, the second changes one of its lines
// (a long one) and adds src/due-date.ts; each builds with done_building. Covers: the Code tab,
// open before the second turn, shows version 2 once that turn ends (the run.completed event
// reads the versions again, no reload); the Files view lists version 2's files as a folder
// tree (the version route's files), folders fold; opening App.tsx shows its text with line
// numbers and highlight.js's classes; Changes shows version 2's diff: App.tsx changed with
// exactly the changed line removed and added, the added file with all its lines added, and
// version 1 with every file added; a reload keeps the view, the version and the file (the
// address holds them); at 390 px nothing scrolls sideways but the code boxes (the long line
// scrolls inside its box). An app without versions says when the first appears; a viewer's
// 403 is a sentence. Screenshots code-view-desktop, code-view-diff-desktop, code-view-phone,
// code-view-diff-phone. Then releases (issue 35): two publishes listed in the publish dialog, the
// live one marked, a rollback to the first after its confirmation (publish-releases-desktop,
// publish-rollback-confirm, publish-releases-phone).
//
// Usage: node browser/e2e-code-view.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { endTurn, toolTurn, use, waitUntil } from '../harness.mjs';
import { apiClient, browserTest, launchBrowser, requireChromium, screenshot, startPlatform } from './platform.mjs';

requireChromium();
const t = browserTest('platform-code-view-e2e-');
const { tmp, check, run, watch, buildDir, projectDir } = t;

const ws = 'default';
const firstRequest = 'A task list';
const secondRequest = 'Add a due date';
const oldLine = '      <p className="text-slate-600">Nothing is due yet.</p>';
// Long on purpose: on a phone it scrolls inside the code box, not the page.
const newLine = '      <p className="text-slate-600">Every task shows the day it is due, so the list reads in the order the work has to be done, soonest first.</p>';
const appV1 = `// The task list the builder made.
export default function App() {
  return (
    <main className="p-8">
      <h1 className="text-2xl font-bold">Tasks</h1>
${oldLine}
    </main>
  );
}
`;
const appV2 = appV1.replace(oldLine, newLine);
const dueDate = `/** The day a task is due, as the list shows it. */
export function dueLabel(day: string): string {
  return \`Due \${day}\`;
}
`;
const heredoc = (file, text) => `cat > ${file} <<'EOF'\n${text}EOF`;
const scenario = {
  turns: [
    toolTurn(use('t_write', 'Bash', { command: heredoc('src/App.tsx', appV1), description: 'Write the app' })),
    toolTurn(use('t_build', 'mcp__platform__done_building', { summary: 'Task list' })),
    endTurn('Built the task list.'),
  ],
  after_user: [
    {
      contains: secondRequest,
      turns: [
        toolTurn(use('t_change', 'Bash', { command: `${heredoc('src/App.tsx', appV2)}\n${heredoc('src/due-date.ts', dueDate)}`, description: 'Add due dates' })),
        toolTurn(use('t_build2', 'mcp__platform__done_building', { summary: 'Due dates' })),
        endTurn('Added due dates.'),
      ],
    },
  ],
  aux: { blocks: [{ type: 'text', text: 'Title' }], stop_reason: 'end_turn' },
};

const lines = (text) => text.replace(/\n$/, '').split('\n');

run(async () => {
  const scenarioFile = path.join(tmp, 'code-view-scenario.json');
  fs.writeFileSync(scenarioFile, JSON.stringify(scenario));
  const p = await startPlatform(t, { buildDir, projectDir, scenarioFile });
  const call = apiClient(p.web);
  const app = await call('POST', `/api/workspaces/${ws}/apps`, { name: 'Task list' });
  const A = `/api/workspaces/${ws}/apps/${app.id}`;
  const codePage = `${p.web}/w/${ws}/apps/${app.id}/code`;
  const versions = () => call('GET', `${A}/versions?limit=50`);
  // One builder turn through the chat route, read to its end; then its version is there.
  const turn = async (text, number) => {
    const made = await call('POST', `${A}/runs`, {});
    const res = await fetch(`${p.web}${A}/runs/${made.id}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text }] }] }),
    });
    const body = await res.text();
    assert.equal((await call('GET', `${A}/runs/${made.id}/chat`)).status, 'completed', body.slice(-3000));
    await waitUntil(`version ${number}`, async () => (await versions()).items[0]?.number === number);
  };

  const browser = await launchBrowser();
  const desktop = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = watch(await desktop.newPage());
  const tree = page.getByTestId('file-tree');
  const treeItem = (p) => tree.locator(`[role=treeitem][data-path="${p}"]`);
  const diffOf = (p) => page.locator(`[data-testid=file-diff][data-path="${p}"]`);
  const rowsOf = (locator, kind) => locator.locator(`tr[data-kind=${kind}] td[data-line]`).allInnerTexts();
  // innerText turns the empty-line placeholder (a zero-width space) into nothing visible.
  const clean = (texts) => texts.map((s) => s.replace(/\u200b/g, ''));

  await check('before any turn that writes files, the Code tab says when the first version appears', async () => {
    await page.goto(codePage);
    await page.getByText('The first version appears after the builder’s first turn that writes files.').waitFor();
  });

  await check('the first turn makes version 1; the open tab shows it without a reload', async () => {
    await turn(firstRequest, 1);
    await page.getByTestId('file-tree').waitFor();
    assert.match(await page.getByTestId('version-picker').locator('option:checked').innerText(), /^Version 1 · .* · “A task list” \(latest\)$/);
  });

  await check('the second turn makes version 2, and the tab open meanwhile follows it (run.completed)', async () => {
    await turn(secondRequest, 2);
    await treeItem('src/due-date.ts').waitFor();
    assert.match(await page.getByTestId('version-picker').locator('option:checked').innerText(), /^Version 2 · today at .* · “Add a due date” \(latest\)$/);
    const listed = (await versions()).items.map((v) => [v.number, v.request]);
    assert.deepEqual(listed, [[2, secondRequest], [1, firstRequest]]);
  });

  let v2Files;
  await check('Files lists version 2’s files as a folder tree; a folder folds and opens', async () => {
    v2Files = (await call('GET', `${A}/versions/2`)).files.map((f) => f.path);
    assert.ok(v2Files.includes('src/App.tsx') && v2Files.includes('src/due-date.ts'), v2Files.join(', '));
    // The top level: each first segment once, folders first.
    const top = await tree.locator('[role=treeitem][aria-level="1"]').evaluateAll((els) => els.map((e) => e.dataset.path));
    const expected = [...new Set(v2Files.map((f) => f.split('/')[0]))];
    assert.deepEqual([...top].sort(), [...expected].sort());
    const kinds = await tree.locator('[role=treeitem][aria-level="1"]').evaluateAll((els) => els.map((e) => e.dataset.kind));
    assert.ok(!kinds.includes('file') || kinds.lastIndexOf('folder') < kinds.indexOf('file'), `folders before files: ${kinds}`);
    // Every shown file is one of the version's, under its folder's level.
    const shown = await tree.locator('[role=treeitem][data-kind=file]').evaluateAll((els) => els.map((e) => [e.dataset.path, Number(e.getAttribute('aria-level'))]));
    for (const [file, level] of shown) {
      assert.ok(v2Files.includes(file), file);
      assert.equal(level, file.split('/').length, file);
    }
    const src = treeItem('src');
    assert.equal(await src.getAttribute('aria-expanded'), 'true');
    await src.locator('button').first().click();
    assert.equal(await src.getAttribute('aria-expanded'), 'false');
    assert.equal(await treeItem('src/App.tsx').count(), 0);
    await src.locator('button').first().click();
    await treeItem('src/App.tsx').waitFor();
  });

  await check('opening src/App.tsx shows its text, numbered and highlighted', async () => {
    await treeItem('src/App.tsx').locator('button').click();
    await page.waitForURL(/\/code\?version=2&path=src%2FApp\.tsx$/);
    const box = page.locator('[data-testid=file-view][data-path="src/App.tsx"] [data-testid=code-box]');
    await box.locator('.hljs-keyword').first().waitFor();
    assert.ok(await box.locator('.hljs-keyword', { hasText: 'export' }).count() >= 1);
    assert.ok(await box.locator('.hljs-comment').count() >= 1);
    const rows = await box.locator('tr').evaluateAll((trs) => trs.map((tr) => [tr.cells[0].innerText, tr.cells[1].innerText.replace(/\u200b/g, '')]));
    assert.deepEqual(rows.map((r) => r[1]), lines(appV2));
    assert.deepEqual(rows.map((r) => r[0]), lines(appV2).map((_, i) => String(i + 1)));
    assert.equal(await treeItem('src/App.tsx').getAttribute('aria-selected'), 'true');
    await screenshot(page, tmp, 'code-view-desktop');
  });

  await check('Changes shows version 2’s diff: exactly the changed line, and the added file', async () => {
    await page.getByTestId('code-view-changes').click();
    await page.waitForURL(/\/code\?view=changes&version=2$/);
    await page.locator('[data-testid=diff-view][data-version="2"]').waitFor();
    await diffOf('src/App.tsx').waitFor();
    const diff = await call('GET', `${A}/versions/2/diff`);
    assert.deepEqual(diff.files.map((f) => [f.path, f.status]).sort(), [['src/App.tsx', 'modified'], ['src/due-date.ts', 'added']]);
    assert.equal(await page.getByTestId('file-diff').count(), 2);
    const app = diffOf('src/App.tsx');
    assert.deepEqual(clean(await rowsOf(app, 'del')), [oldLine]);
    assert.deepEqual(clean(await rowsOf(app, 'add')), [newLine]);
    assert.ok((await app.locator('tr[data-kind=hunk]').first().innerText()).startsWith('@@ -'));
    assert.match(await app.locator('header').innerText(), /Changed[\s\S]*src\/App\.tsx[\s\S]*\+1 −1/);
    // Old and new line numbers: the changed line is line 6 on both sides.
    const numbered = await app.locator('tr[data-kind=del], tr[data-kind=add]').evaluateAll((trs) => trs.map((tr) => [tr.dataset.kind, tr.cells[0].innerText, tr.cells[1].innerText]));
    assert.deepEqual(numbered, [['del', '6', ''], ['add', '', '6']]);
    const added = diffOf('src/due-date.ts');
    assert.deepEqual(clean(await rowsOf(added, 'add')), lines(dueDate));
    assert.equal(await added.locator('tr[data-kind=del]').count(), 0);
    assert.match(await added.locator('header').innerText(), /Added[\s\S]*\+4 −0/);
    assert.ok(await app.locator('td[data-line] .hljs-string').count() >= 1, 'the diff is highlighted');
    await screenshot(page, tmp, 'code-view-diff-desktop');
  });

  await check('version 1’s changes: every file added, App.tsx with all its lines', async () => {
    await page.getByTestId('version-1').click();
    await page.waitForURL(/\/code\?view=changes&version=1$/);
    await page.locator('[data-testid=diff-view][data-version="1"]').waitFor();
    await diffOf('src/App.tsx').waitFor();
    const statuses = await page.getByTestId('file-diff').locator('[data-status]').evaluateAll((els) => els.map((e) => e.dataset.status));
    assert.ok(statuses.length >= 2);
    assert.deepEqual([...new Set(statuses)], ['added']);
    assert.equal(await page.locator('[data-testid=file-diff] tr[data-kind=del]').count(), 0);
    assert.deepEqual(clean(await rowsOf(diffOf('src/App.tsx'), 'add')), lines(appV1));
    assert.equal(await diffOf('src/due-date.ts').count(), 0);
  });

  await check('a reload keeps the place: the view, the version and the file', async () => {
    await page.reload();
    await page.locator('[data-testid=diff-view][data-version="1"]').waitFor();
    assert.equal(await page.getByTestId('version-1').getAttribute('aria-current'), 'true');
    await page.getByTestId('code-view-files').click();
    await page.waitForURL(/\/code\?version=1$/);
    await treeItem('src/App.tsx').locator('button').click();
    await page.waitForURL(/\/code\?version=1&path=src%2FApp\.tsx$/);
    await page.reload();
    const box = page.locator('[data-testid=file-view][data-path="src/App.tsx"] [data-testid=code-box]');
    await box.getByText('Nothing is due yet.').waitFor();
    assert.equal(await treeItem('src/due-date.ts').count(), 0, 'version 1 has no due-date.ts');
    assert.equal(await page.getByTestId('version-picker').inputValue(), '1');
    // The picker goes to version 2 with the same file open.
    await page.getByTestId('version-picker').selectOption('2');
    await page.waitForURL(/\/code\?version=2&path=src%2FApp\.tsx$/);
    await box.getByText('soonest first.').waitFor();
  });

  const phone = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const small = watch(await phone.newPage());
  // Nothing past the viewport's right edge but what a scrolling box holds.
  const sideways = () =>
    small.evaluate(() => {
      const vw = document.documentElement.clientWidth;
      const boxes = [...document.querySelectorAll('[data-testid=code-box], [data-testid=file-diff] > div')].map((b) => ({ scrolls: b.scrollWidth > b.clientWidth, right: b.getBoundingClientRect().right }));
      return { scrollWidth: document.documentElement.scrollWidth, vw, boxes };
    });

  await check('390 px: the file under its folded tree, no sideways page, the long line scrolls in its box', async () => {
    await small.goto(`${codePage}?version=2&path=src%2FApp.tsx`);
    const box = small.locator('[data-testid=code-box]');
    await box.locator('.hljs-keyword').first().waitFor();
    // Folded because the address names a file; it opens on a tap and folds again once a file is chosen.
    assert.equal(await small.getByTestId('file-tree').isVisible(), false);
    await small.getByTestId('tree-panel-toggle').click();
    await small.getByTestId('file-tree').waitFor();
    await small.locator('[role=treeitem][data-path="src/due-date.ts"] button').click();
    await small.waitForURL(/path=src%2Fdue-date\.ts$/);
    assert.equal(await small.getByTestId('file-tree').isVisible(), false);
    await small.locator('[data-testid=file-view][data-path="src/due-date.ts"] .hljs-keyword').first().waitFor();
    await small.goBack();
    await small.locator('[data-testid=file-view][data-path="src/App.tsx"] .hljs-keyword').first().waitFor();
    const m = await sideways();
    assert.ok(m.scrollWidth <= m.vw, `the page scrolls sideways: ${m.scrollWidth} > ${m.vw}`);
    assert.equal(m.boxes.length, 1);
    assert.ok(m.boxes[0].scrolls, 'the long line scrolls inside the code box');
    assert.ok(m.boxes[0].right <= m.vw + 1);
    await screenshot(small, tmp, 'code-view-phone');
  });

  await check('390 px: Changes of version 2, the versions folded above, diffs scroll in their boxes', async () => {
    await small.getByTestId('code-view-changes').click();
    await small.locator('[data-testid=diff-view][data-version="2"] [data-testid=file-diff]').first().waitFor();
    assert.equal(await small.getByTestId('version-list').isVisible(), false);
    assert.match(await small.getByTestId('versions-panel-toggle').innerText(), /^Version 2 · /);
    const m = await sideways();
    assert.ok(m.scrollWidth <= m.vw, `the page scrolls sideways: ${m.scrollWidth} > ${m.vw}`);
    assert.ok(m.boxes.length === 2 && m.boxes.every((b) => b.right <= m.vw + 1));
    assert.ok(m.boxes[0].scrolls, 'App.tsx’s long line scrolls inside its diff');
    await screenshot(small, tmp, 'code-view-diff-phone');
    // The list opens on a tap and version 1 is one more tap away.
    await small.getByTestId('versions-panel-toggle').click();
    await small.getByTestId('version-1').click();
    await small.locator('[data-testid=diff-view][data-version="1"]').waitFor();
    assert.equal(await small.getByTestId('version-list').isVisible(), false);
    const again = await sideways();
    assert.ok(again.scrollWidth <= again.vw, `version 1 scrolls sideways: ${again.scrollWidth} > ${again.vw}`);
  });

  await check('Undo this turn on version 2 asks first, then makes version 3 with version 1’s files; nothing is lost', async () => {
    await page.goto(`${codePage}?view=changes&version=2`);
    await page.locator('[data-testid=diff-view][data-version="2"]').waitFor();
    await page.getByTestId('undo-turn').click();
    const ask = page.getByRole('alertdialog', { name: 'Restore version 1' });
    await ask.getByText(/as a new version 3; every version stays in the history/).waitFor();
    await screenshot(page, tmp, 'code-view-undo-confirm');
    await ask.getByTestId('restore-confirm').click();
    await page.locator('[data-testid=diff-view][data-version="3"]').getByText('Restored from version 1.').waitFor();
    const listed = await versions();
    assert.deepEqual(listed.items.map((v) => [v.number, v.restoredFrom]), [[3, 1], [2, null], [1, null]]);
    assert.equal((await call('GET', `${A}/versions/3/file?path=src%2FApp.tsx`)).content, appV1);
    // Version 3's changes undo version 2's: the due-date file removed, the old line back.
    const undone = await call('GET', `${A}/versions/3/diff`);
    assert.deepEqual(undone.files.map((f) => [f.path, f.status]), [['src/App.tsx', 'modified'], ['src/due-date.ts', 'removed']]);
  });

  await check('Changes compares any two versions: version 3 against 1 (the same files), then against 2', async () => {
    await page.goto(`${codePage}?view=changes&version=3`);
    await page.locator('[data-testid=diff-view][data-version="3"]').getByText('Compared with version 2.', { exact: false }).waitFor();
    await page.getByTestId('compare-picker').selectOption('1');
    await page.waitForURL(/view=changes&version=3&from=1$/);
    await page.getByText('Version 3 and version 1 have the same files.').waitFor();
    await page.getByTestId('compare-picker').selectOption('2');
    await page.waitForURL(/from=2$/);
    const files = page.getByTestId('diff-files');
    await files.locator('[data-path="src/due-date.ts"]').waitFor();
    assert.deepEqual(await files.locator('button').evaluateAll((bs) => bs.map((b) => b.dataset.path)), ['src/App.tsx', 'src/due-date.ts']);
    await screenshot(page, tmp, 'code-view-compare');
    // Another version in the list compares with the one before it again.
    await page.getByTestId('version-2').click();
    await page.waitForURL(/view=changes&version=2$/);
  });

  await check('the version shown downloads as a zip, and the history as a git bundle, from the page', async () => {
    await page.goto(`${codePage}?version=2`);
    const [zip] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-zip').click()]);
    assert.equal(zip.suggestedFilename(), 'task-list-v2.zip');
    const [bundle] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-bundle').click()]);
    assert.equal(bundle.suggestedFilename(), 'task-list.bundle');
    const saved = path.join(tmp, 'from-page.bundle');
    await bundle.saveAs(saved);
    assert.equal(fs.readFileSync(saved).subarray(0, 16).toString(), '# v2 git bundle\n');
  });

  await check('the publish dialog lists the releases, the live one marked; rolling back asks first, then publishes release 1 again', async () => {
    // Release 1: version 3; release 2: version 4 (version 2's content restored).
    await call('POST', `${A}/publish`);
    await call('POST', `${A}/versions/2/restore`);
    await call('POST', `${A}/publish`);
    const [second, first] = (await call('GET', `${A}/releases`)).items;
    assert.deepEqual([second.number, second.version, first.number, first.version], [2, 4, 1, 3]);
    await page.goto(codePage);
    await page.getByTestId('publish-button').click();
    const list = page.getByTestId('releases');
    await list.locator('[data-testid=release-2][data-live=true]').waitFor();
    await list.locator('[data-testid=release-2]').getByText('“Restored version 2”').waitFor();
    await list.locator('[data-testid=release-1][data-live=false]').getByText('Published by', { exact: false }).waitFor();
    assert.equal(await list.getByTestId('roll-back-2').count(), 0, 'the live release has no rollback');
    await screenshot(page, tmp, 'publish-releases-desktop');
    await list.getByTestId('roll-back-1').click();
    const ask = page.getByRole('alertdialog', { name: 'Roll back to release 1' });
    await ask.getByText(/The draft and its approval stay as they are, and so does the published data/).waitFor();
    await screenshot(page, tmp, 'publish-rollback-confirm');
    await ask.getByTestId('roll-back-confirm').click();
    await list.locator('[data-testid=release-3][data-live=true]').getByText('again: release 1').waitFor();
    const shown = await call('GET', A);
    assert.equal(shown.publishedPreview.digest, first.buildDigest, 'the published page shows release 1’s build');
    assert.equal(shown.preview.digest, second.buildDigest, 'the draft preview is untouched');
    assert.equal((await versions()).items[0].number, 4, 'a rollback makes no version');
  });

  await check('390 px: the releases in the publish dialog, nothing sideways', async () => {
    await small.goto(codePage);
    await small.getByTestId('publish-button').click();
    await small.getByTestId('release-3').waitFor();
    await small.getByTestId('release-1').scrollIntoViewIfNeeded();
    const m = await sideways();
    assert.ok(m.scrollWidth <= m.vw, `the page scrolls sideways: ${m.scrollWidth} > ${m.vw}`);
    await screenshot(small, tmp, 'publish-releases-phone');
  });

  await check('a viewer (the server’s 403) reads a sentence, not an error', async () => {
    const other = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    await other.route('**/versions?*', (route) =>
      route.fulfill({ status: 403, contentType: 'application/json', body: JSON.stringify({ error: { code: 'forbidden', message: 'viewers cannot read the draft' } }) }),
    );
    const viewer = watch(await other.newPage());
    await viewer.goto(codePage);
    await viewer.getByText('Viewers see the published app only; the code is for the app’s makers.').waitFor();
    assert.equal(await viewer.getByRole('alert').count(), 0);
    await other.close();
  });

  await browser.close();
});
