// The spec's rendering table for the tool parts runtime-b and runtime-c send, and for the native
// one-line and web tools, in a real browser (spec "Rendering of message parts": Read, List,
// Glob, Grep a one-line card; WebSearch, WebFetch a card with source chips; Bash a terminal
// card; Write, Edit a card with diff stats). The golden UI message streams
// (tests/golden/runtime-b, runtime-c: what the bridge made of each runtime's real recorded
// output) are replayed into the builder page: the page's chat POST is answered with the golden
// stream, and its no-store read of the run, once the stream ended, with the message the real
// AI SDK client assembles from it (what the server would have persisted). Each replay's cards
// are checked live, then as persisted (after a reload). No runtime sends a List or LS call
// today and runtime-a's Read, Glob, Grep and WebSearch have no golden stream, so one stream is
// written here in the bridge's shapes with runtime-a's inputs and outputs (e2e-cards.mjs
// covers Read, Glob and Grep from the real Claude Code CLI).
//
// Usage: node browser/e2e-cards-replay.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { assembleMessage } from '../harness.mjs';
import { browserTest, createRun, launchBrowser, requireChromium, screenshot, uiDir } from './platform.mjs';

requireChromium();
const t = browserTest('platform-cards-replay-e2e-');
const { check, watch, run, tmp, start, buildDir, projectDir } = t;

const golden = (file) => fs.readFileSync(path.join(projectDir, 'tests/golden', file), 'utf8');
const sse = (chunks) => chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + 'data: [DONE]\n\n';

// runtime-a's native read-only and web tools, in the chunk shapes of the bridge's output
// (tests/golden/runtime-a/tool-write.sse), runtime-a's tool inputs and its text-block outputs.
const text = (s) => [{ type: 'text', text: s }];
const call = (id, toolName, input, output) => [
  { type: 'tool-input-start', toolCallId: id, toolName, dynamic: true },
  { type: 'tool-input-available', toolCallId: id, toolName, input, dynamic: true },
  { type: 'tool-output-available', toolCallId: id, output, dynamic: true },
];
const nativeTools = sse([
  { type: 'start', messageId: 'msg-native-tools' },
  { type: 'start-step' },
  ...call('toolu_read', 'Read', { file_path: '/workspace/app/src/main.tsx' }, text("1\timport { createRoot } from 'react-dom/client';")),
  ...call('toolu_list', 'List', { path: '/workspace/app/src' }, text('- src/\n  - App.tsx\n  - main.tsx')),
  ...call('toolu_ls', 'LS', { path: '/workspace/app/public' }, text('- public/\n  - favicon.svg')),
  ...call('toolu_glob', 'Glob', { pattern: 'src/**/*.tsx' }, text('/workspace/app/src/App.tsx\n/workspace/app/src/main.tsx')),
  ...call('toolu_grep', 'Grep', { pattern: 'createRoot', output_mode: 'files_with_matches' }, text('Found 1 file\n/workspace/app/src/main.tsx')),
  ...call('toolu_search', 'WebSearch', { query: 'vite config options' },
    text('Web search results for query: "vite config options"\n\nLinks: [{"title":"Configure Vite","url":"https://vite.dev/config/"},{"title":"Vite on GitHub","url":"https://github.com/vitejs/vite"}]')),
  { type: 'finish-step' },
  { type: 'start-step' },
  { type: 'text-start', id: 'msg_native:0' },
  { type: 'text-delta', id: 'msg_native:0', delta: 'Read, listed, globbed, grepped and searched.' },
  { type: 'text-end', id: 'msg_native:0' },
  { type: 'finish-step' },
  { type: 'finish', finishReason: 'stop' },
]);

// Each replay: its stream, the text it ends with, and its cards in order, as `summary` reads
// them: the card kind, what its header names, its status mark (done, failed, running).
const replays = [
  {
    name: 'native read-only and web tools', body: nativeTools, last: 'Read, listed, globbed, grepped and searched.',
    cards: [
      'oneline Read src/main.tsx done', 'oneline List src done', 'oneline List public done', 'oneline Glob src/**/*.tsx done',
      'oneline Grep createRoot done', 'web Search vite config options chips=vite.dev,github.com done',
    ],
  },
  {
    name: 'runtime-b web-search', body: golden('runtime-b/web-search.sse'), last: 'turn/start begins a turn.',
    cards: [
      'web Search codex app-server protocol chips= done',
      'web Fetch https://example.com/docs chips=example.com done',
      'web Fetch https://example.com/docs chips=example.com done',
    ],
  },
  {
    name: 'runtime-b command-exec', body: golden('runtime-b/command-exec.sse'), last: 'three lines and finished.',
    cards: ['terminal for i in 1 2 3; do echo "line $i"; sleep 0.3; done; echo done >&2 done'],
    // The command's whole output, from its last (not preliminary) output chunk.
    terminal: { command: 'for i in 1 2 3; do echo "line $i"; sleep 0.3; done; echo done >&2', output: 'line 1\nline 2\nline 3\ndone' },
  },
  {
    name: 'runtime-b file-change', body: golden('runtime-b/file-change.sse'), last: 'added src/hello.txt and removed obsolete.txt.',
    cards: ['file-change Edit README.md +2 −0 done', 'file-change Edit obsolete.txt +0 −1 done', 'file-change Write src/hello.txt +1 −0 done'],
  },
  {
    name: 'runtime-c tool-error', body: golden('runtime-c/tool-error.sse'), last: 'The file missing.txt does not exist.',
    cards: ['oneline Read missing.txt failed'],
  },
  {
    name: 'runtime-c permission-rejected', body: golden('runtime-c/permission-rejected.sse'), last: 'Let me look outside the project.',
    cards: ['oneline Read /etc/hostname failed'],
  },
  {
    name: 'runtime-c tool-edit', body: golden('runtime-c/tool-edit.sse'), last: 'Updated the greeting in app.js.',
    cards: ['file-change Write app.js +2 −0 done', 'file-change Edit app.js +1 −1 done'],
  },
  {
    name: 'runtime-c tool-parallel', body: golden('runtime-c/tool-parallel.sse'), last: 'Both commands ran: one, two.',
    cards: ['terminal echo one done', 'terminal echo two done'],
  },
  {
    name: 'runtime-c tool-bash-write', body: golden('runtime-c/tool-bash-write.sse'), last: 'Created notes.md (2 lines).',
    cards: ['file-change Write notes.md +2 −0 done', 'terminal cat notes.md && wc -l notes.md done'],
  },
];

/** Every card of the page, in order, as one line each. */
const summary = (page) =>
  page.locator('[data-role="assistant"] [data-card]').evaluateAll((els) =>
    els.map((el) => {
      const card = el.getAttribute('data-card');
      const state = el.querySelector('[aria-label="done"]') ? 'done' : el.querySelector('[aria-label="running"]') ? 'running'
        : /\bfailed\b/.test(el.innerText) ? 'failed' : '?';
      const header = (el.querySelector('button') ?? el).innerText.replace(/\s+/g, ' ').replace(/\bfailed\b/, '').trim();
      if (card === 'oneline') return `oneline ${el.getAttribute('data-kind')} ${el.querySelector('code')?.textContent} ${state}`;
      if (card === 'web') {
        const chips = [...el.querySelectorAll('[data-testid="source-chips"] a')].map((a) => a.textContent).join(',');
        return `web ${header} chips=${chips} ${state}`;
      }
      if (card === 'file-change') return `file-change ${header} ${state}`;
      if (card === 'terminal') return `terminal ${el.querySelector('button code')?.textContent} ${state}`;
      return `${card} ${header} ${state}`;
    }),
  );

run(async () => {
  // The page and the API of platform-web; no turn reaches a worker (none is listening).
  const web = (await start('web', path.join(buildDir, 'servers/web/platform-web'), [], {
    PLATFORM_WEB_PORT: '0', PLATFORM_DATA_DIR: path.join(tmp, 'web'), PLATFORM_WORKER_URL: 'http://127.0.0.1:9', PLATFORM_UI_DIR: uiDir(projectDir),
  }, /listening on (http:\S+)/)).match[1];
  const browser = await launchBrowser();
  const page = watch(await (await browser.newContext({ viewport: { width: 1300, height: 1100 } })).newPage());

  for (const r of replays) {
    await check(`${r.name}: the cards as they stream, and the same after a reload`, async () => {
      const routes = await createRun(web, r.name);
      const assistant = await assembleMessage(r.body);
      // The page's chat POST gets the golden stream; its no-store reads get the run pending
      // before it, and after it, once the live cards are checked, the run as persisted.
      let sent;
      let persist;
      const persisted = new Promise((resolve) => { persist = resolve; });
      const runAs = (status, messages) => ({ ...routes.run, status, activeStreamId: null, messageCount: messages.length, messages, usage: null });
      await page.route(`**${routes.chat}`, async (route) => {
        const req = route.request();
        if (req.method() === 'POST') {
          sent = req.postDataJSON().messages;
          return route.fulfill({ status: 200, headers: { 'content-type': 'text/event-stream', 'x-vercel-ai-ui-message-stream': 'v1' }, body: r.body });
        }
        if (!sent) return route.fulfill({ json: runAs('pending', []) });
        await persisted;
        return route.fulfill({ json: runAs('completed', [...sent, assistant]) });
      });
      await page.goto(routes.page);
      await page.getByTestId('composer').fill(`Replay ${r.name}`);
      await page.getByTestId('send').click();
      await page.locator('[data-role="assistant"]').getByText(r.last).waitFor();
      assert.deepEqual(await summary(page), r.cards, 'live');
      if (r.terminal) {
        const card = page.locator('[data-card="terminal"]');
        if ((await card.getAttribute('data-state')) !== 'open') await card.getByRole('button').first().click();
        assert.equal((await card.getByTestId('terminal-output').innerText()).trim(), `$ ${r.terminal.command}\n${r.terminal.output}`);
      }
      await screenshot(page, tmp, `cards-replay-${r.name.replace(/\W+/g, '-')}`);
      persist();
      await page.waitForSelector('[data-testid="composer"]:not([disabled])');
      await page.reload();
      await page.locator('[data-role="assistant"]').getByText(r.last).waitFor();
      assert.deepEqual(await summary(page), r.cards, 'persisted');
      await page.unroute(`**${routes.chat}`);
    });
  }

  await browser.close();
});
