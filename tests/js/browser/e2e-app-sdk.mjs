// A generated app using the platform SDK in the live preview (issue 12): the builder (real
// Claude Code CLI, scripted model) writes an app with useCollection and useAgentList, and
// done_building builds it; in the preview frame the app lists its agents and inserts a note
// through the parent bridge — shown at once (optimistic), stored in the draft scope, and live in
// a second viewer without a reload, and in the writer before its request is answered, never
// twice. Messages from any other window than the app's frame (the builder page itself, a frame of
// its origin, a popup at the app's origin, pages at another app's preview origin and at another
// site) reach no API and get no reply. Once published, the app's own page shows the published
// build on the published data, and a viewer (external mode) gets the published agents there.
// That app is written with the SDK's names of before the spec's (`docs`, `void trigger(...)`),
// which still work. A second app, on a platform of its own, is written with the spec's names
// (issue 33): a collection of 5,000 documents shows whole (read page by page through the
// bridge), live (an insert through the API appears, the app's own insert at once), useDoc finds
// a document far past the first page of 200 and follows its changes, and a trigger the app
// ignores that cannot start shows `failed` with its error, with no unhandled rejection.
//
// Usage: node browser/e2e-app-sdk.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import http from 'node:http';
import { identityProvider, toolTurn, use } from '../harness.mjs';
import { apiClient, browserTest, createRun, launchBrowser, recordRequests, requireChromium, screenshot, signedInContext, startPlatform } from './platform.mjs';

requireChromium();
const t = browserTest('platform-app-sdk-e2e-');
const { check, run, watch, tmp } = t;

const app = `import { useState } from 'react';
import { useAgent, useAgentList, useCollection, useIntegrationTool } from './platform/index.ts';

export default function App() {
  const notes = useCollection<{ text: string }>('notes');
  const { agents, loading } = useAgentList();
  const summarizer = useAgent('summarizer');
  const weather = useIntegrationTool('weather');
  const stocks = useIntegrationTool('stocks');
  const [setupError, setSetupError] = useState('');
  const [text, setText] = useState('');
  const [writeError, setWriteError] = useState('');
  const first = notes.docs[0];
  return (
    <main className="p-6">
      <h1 className="text-xl font-semibold">Notes</h1>
      <p data-testid="agents">{loading ? 'loading agents' : agents.length + ' agents'}</p>
      <form onSubmit={(e) => { e.preventDefault(); void notes.insert({ text }); setText(''); }}>
        <input aria-label="Note" value={text} onChange={(e) => setText(e.target.value)} />
        <button type="submit">Save</button>
      </form>
      {notes.error ? <p role="alert">{notes.error}</p> : null}
      <button type="button" onClick={() => void summarizer.trigger('Summarize the notes')}>Summarize</button>
      <p data-testid="agent-status">{summarizer.status}</p>
      {summarizer.status === 'completed' ? <p data-testid="agent-result">{String(summarizer.result)}</p> : null}
      <ul>{notes.docs.map((d) => <li key={d.id} data-pending={d.version === 0 ? 'yes' : 'no'}>{d.data.text}</li>)}</ul>
      {first ? <button type="button" onClick={() => notes.update(first.id, { text: 'stale edit' }, 999).catch((e: Error) => setWriteError(e.message))}>Stale edit</button> : null}
      {writeError ? <p data-testid="write-error">{writeError}</p> : null}
      <button type="button" onClick={() => void weather.call({ city: 'Oslo' })}>Weather</button>
      <button type="button" onClick={() => void weather.call({})}>Weather without a city</button>
      {weather.result ? <p data-testid="weather">{weather.result.success ? (weather.result.mock ? 'sample ' : '') + JSON.stringify(weather.result.data) : weather.result.error + ' / ' + weather.result.resolution}</p> : null}
      {weather.reportFailure ? <button type="button" onClick={() => void weather.reportFailure!('The city is missing')}>Ask builder to fix</button> : null}
      <button type="button" onClick={() => void stocks.call({})}>Stocks</button>
      {stocks.result && !stocks.result.success ? <p data-testid="stocks-error">{stocks.result.error} / {stocks.result.resolution}</p> : null}
      {stocks.reportFailure ? <button type="button">Ask builder to fix stocks</button> : null}
      {stocks.openSetup ? <button type="button" onClick={() => void stocks.openSetup!().catch((e: Error) => setSetupError(e.message))}>Set up Stocks</button> : null}
      {setupError ? <p data-testid="setup-error">{setupError}</p> : null}
    </main>
  );
}
`;
// The stocks provider refuses every key: a credentials failure, which only the integration's
// setup can fix (never a builder repair).
const stocksProvider = http.createServer((req, res) => {
  res.writeHead(401, { 'content-type': 'application/json' });
  res.end('{"error":"bad key"}');
});
await new Promise((r) => stocksProvider.listen(0, '127.0.0.1', r));
const stocksPort = stocksProvider.address().port;
const agents = JSON.stringify({
  agents: [{ id: 'summarizer', name: 'Summarizer', description: 'Summarizes the notes.', systemPrompt: 'Summarize the notes in one line.' }],
  appTools: [{
    type: 'custom', name: 'weather', description: 'The weather of a city. Input: {"city": "<name>"}.',
    integration: { name: 'Weather', domain: 'api.example.org' },
    endpoint: { method: 'GET', url: 'https://api.example.org/weather', queryParams: { city: '{{city}}' }, headers: { 'X-Key': '{{secrets.WEATHER_KEY}}' } },
    mockData: [{ temp: 1 }, { temp: 1 }, { temp: 1 }],
  }, {
    type: 'custom', name: 'stocks', description: 'Stock quotes.',
    integration: { name: 'Stocks', domain: '127.0.0.1', keySlug: 'stocks' },
    endpoint: { method: 'GET', url: `http://127.0.0.1:${stocksPort}/quotes`, headers: { 'X-Key': '{{secrets.STOCKS_KEY}}' } },
    mockData: [{ q: 1 }, { q: 2 }, { q: 3 }],
  }],
});
// The agent has no tools, so the scripted model answers its request with the scenario's
// tool-less reply (`aux`: "Title"), which becomes the run's result.
const turns = [
  toolTurn(use('t_write', 'Bash', { command: `cat > src/App.tsx <<'EOF'\n${app}EOF\ncat > agents.json <<'EOF'\n${agents}\nEOF`, description: 'Write the app' })),
  toolTurn(use('t_build', 'mcp__platform__done_building', { summary: 'Notes' })),
  { blocks: [{ type: 'text', text: 'Built the notes app.' }], stop_reason: 'end_turn' },
];

// The spec's names only (spec "SDK surface in the workspace template"): `data`, `insert`,
// useDoc's `data`, and a trigger whose result the app ignores (no agents.json: it cannot start).
const specApp = `import { useState } from 'react';
import { useAgent, useCollection, useDoc } from './platform/index.ts';

type Note = { text: string };

function Picked({ id }: { id: string }) {
  const { data, loading } = useDoc<Note>('notes', id);
  return <p data-testid="picked">{loading ? 'loading' : data ? data.data.text : 'no such note'}</p>;
}

export default function App() {
  const { data, loading, insert } = useCollection<Note>('notes');
  const ghost = useAgent('no-such-agent');
  const [text, setText] = useState('');
  const [picked, setPicked] = useState('');
  return (
    <main className="p-6">
      <h1 className="text-xl font-semibold">Spec notes</h1>
      <p data-testid="count">{loading ? 'loading' : data.length + ' notes'}</p>
      <form onSubmit={(e) => { e.preventDefault(); void insert({ text }); setText(''); }}>
        <input className="border px-1" aria-label="Note" value={text} onChange={(e) => setText(e.target.value)} />
        <button className="border px-2" type="submit">Save</button>
      </form>
      <input className="border px-1" aria-label="Note id" value={picked} onChange={(e) => setPicked(e.target.value)} />
      {picked ? <Picked id={picked} /> : null}
      <button className="border px-2" type="button" onClick={() => ghost.trigger('Hello')}>Ask</button>
      <p data-testid="ghost-status">{ghost.status}</p>
      {ghost.error ? <p data-testid="ghost-error">{ghost.error}</p> : null}
      <ol className="h-64 overflow-auto">{data.map((d) => <li key={d.id} data-pending={d.version === 0 ? 'yes' : 'no'}>{d.data.text}</li>)}</ol>
    </main>
  );
}
`;
const specTurns = [
  toolTurn(use('t_write', 'Bash', { command: `cat > src/App.tsx <<'EOF'\n${specApp}EOF`, description: 'Write the app' })),
  toolTurn(use('t_build', 'mcp__platform__done_building', { summary: 'Spec notes' })),
  { blocks: [{ type: 'text', text: 'Built the spec notes app.' }], stop_reason: 'end_turn' },
];
const seededCount = 5000;

run(async () => {
  const idp = identityProvider();
  const p = await startPlatform(t, {
    buildDir: t.buildDir, projectDir: t.projectDir, turns, webEnv: { ...idp.env, PLATFORM_HTTP_ACTION_ALLOW: `127.0.0.1:${stocksPort}` },
  });
  const ownerAuth = { authorization: `Bearer ${idp.token('owner')}` };
  const call = apiClient(p.web, ownerAuth);
  const ws = (await call('POST', '/api/workspaces', { name: 'Notes team' })).id;
  await call('POST', `/api/workspaces/${ws}/members`, { userId: 'vera', role: 'viewer' });
  const browser = await launchBrowser();
  const viewport = { viewport: { width: 1400, height: 860 } };
  const { context } = await signedInContext(browser, p.web, idp.token('owner'), viewport);
  const seen = recordRequests(context);
  const page = watch(await context.newPage());
  // Every read of the app signs a new preview URL; the frame must not reload for one.
  const previewLoads = [];
  page.on('framenavigated', (f) => {
    if (f.url().includes('.preview.localhost')) previewLoads.push(f.url());
  });
  const made = await createRun(p.web, 'Notes', { ws, call });
  const appPath = `/api/workspaces/${ws}/apps/${made.app.id}`;
  const dataPath = `${appPath}/data`;

  await check('the builder writes an app on the SDK and the preview shows it', async () => {
    // The whole turn, through the chat route (its UI message stream read to the end).
    const turn = await fetch(p.web + made.chat, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...ownerAuth },
      body: JSON.stringify({ messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'A notes app' }] }] }),
    });
    const body = await turn.text();
    const persisted = await call('GET', made.chat);
    assert.equal(persisted.status, 'completed', body.slice(-3000));
    await page.goto(made.page);
    const frame = page.frameLocator('[data-testid="preview-frame"]');
    await frame.getByRole('heading', { name: 'Notes' }).waitFor({ timeout: 120000 });
    await frame.getByTestId('agents').getByText('1 agents').waitFor();
  });

  await check('useAgent().trigger: one run created and started (startOnly), updates to completed with the result', async () => {
    assert.equal(previewLoads.length, 1, 'the preview frame loaded more than once for one build');
    const view = await call('GET', `${appPath}/agents`);
    await call('POST', `${appPath}/agents/approval`, { approvalHash: view.draftHash });
    const frame = page.frameLocator('[data-testid="preview-frame"]');
    const runsPath = `${appPath}/agent-runs`;
    await frame.getByRole('button', { name: 'Summarize' }).click();
    await frame.getByTestId('agent-status').getByText('completed').waitFor({ timeout: 120000 });
    assert.equal(await frame.getByTestId('agent-result').innerText(), 'Title');
    const creates = seen.filter((r) => r.method === 'POST' && r.path === runsPath);
    const starts = seen.filter((r) => r.method === 'POST' && r.path.startsWith(`${runsPath}/`) && r.path.endsWith('/stream'));
    assert.equal(creates.length, 1);
    assert.deepEqual(starts.map((r) => r.search), ['?startOnly=1']);
    const runs = await call('GET', runsPath);
    assert.equal(runs.runs.length, 1);
    assert.equal(runs.runs[0].status, 'completed');
    assert.equal(runs.runs[0].draft, true);
  });

  await check('with the workspace events blocked, the slow summary poll still delivers the agent\'s end', async () => {
    const { context: blocked } = await signedInContext(browser, p.web, idp.token('owner'), viewport);
    await blocked.route('**/api/workspaces/*/events', (route) => route.abort());
    const lone = watch(await blocked.newPage());
    const reads = [];
    lone.on('request', (r) => {
      if (/\/agent-runs\/[^/]+$/.test(new URL(r.url()).pathname)) reads.push(r.url());
    });
    await lone.goto(made.page);
    const frame = lone.frameLocator('[data-testid="preview-frame"]');
    await frame.getByRole('button', { name: 'Summarize' }).click();
    await frame.getByTestId('agent-status').getByText('completed').waitFor({ timeout: 60000 });
    assert.ok(reads.length >= 1, 'the end came without a summary read');
    await blocked.close();
  });

  await check('a note inserted in the app shows at once, before its request is answered, never twice; stored in the draft scope; live in a second viewer', async () => {
    const other = watch(await context.newPage());
    await other.goto(made.page);
    const otherFrame = other.frameLocator('[data-testid="preview-frame"]');
    await otherFrame.getByRole('heading', { name: 'Notes' }).waitFor();
    const frame = page.frameLocator('[data-testid="preview-frame"]');
    await frame.getByRole('heading', { name: 'Notes' }).waitFor();
    // In the app: the data changes it receives, and the most copies of the note ever on screen.
    const app = page.frames().find((f) => f.url().includes('.preview.localhost'));
    await app.evaluate(() => {
      const w = window;
      w.__changes = 0;
      w.__most = 0;
      addEventListener('message', (e) => {
        if (e.data?.type === 'platform:data:change') w.__changes++;
      });
      new MutationObserver(() => {
        const n = [...document.querySelectorAll('li')].filter((li) => li.textContent === 'first note').length;
        w.__most = Math.max(w.__most, n);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    // The insert's answer is held until the app has received the insert's own change event,
    // the order in which an echo would show the note twice.
    let release;
    const held = new Promise((r) => (release = r));
    let stored;
    const storedOnServer = new Promise((r) => (stored = r));
    await page.route(`${p.web}${dataPath}`, async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      const response = await route.fetch();
      stored();
      await held;
      await route.fulfill({ response });
    });
    await frame.getByLabel('Note').fill('first note');
    await frame.getByRole('button', { name: 'Save' }).click();
    await storedOnServer;
    await frame.locator('li[data-pending="yes"]').getByText('first note').waitFor();
    await app.waitForFunction(() => window.__changes > 0);
    release();
    await frame.locator('li[data-pending="no"]').getByText('first note').waitFor();
    await page.unroute(`${p.web}${dataPath}`);
    assert.equal(await frame.locator('li').count(), 1, 'the optimistic note and the stored one are one item');
    assert.equal(await app.evaluate(() => window.__most), 1, 'the note was on screen twice at some point');
    const docs = await call('GET', `${dataPath}/notes?scope=draft`);
    assert.deepEqual(docs.documents.map((d) => d.data.text), ['first note']);
    // The second viewer gets it through platform:data:change, without a reload.
    await otherFrame.getByText('first note').waitFor();
    assert.equal(await otherFrame.locator('li').count(), 1);
    await other.close();
  });

  await check('messages from another window than the app frame reach no API', async () => {
    const before = seen.filter((r) => r.path === dataPath).length;
    const runsBefore = seen.filter((r) => r.path.endsWith('/agent-runs') && r.method === 'POST').length;
    // The builder page itself, and a frame of its own origin, posting a well-formed request.
    await page.evaluate(() => window.postMessage({ type: 'platform:data:insert', requestId: 'x1', collection: 'notes', data: { text: 'forged' } }, '*'));
    await page.evaluate(() => {
      const f = document.createElement('iframe');
      f.srcdoc = '<script>parent.postMessage({type:"platform:data:insert",requestId:"x2",collection:"notes",data:{text:"forged"}},"*")</script>';
      document.body.appendChild(f);
    });
    // A window at the preview's own origin that is not the frame (a popup of the app): the
    // origin matches, the source does not.
    const src = await page.getByTestId('preview-frame').getAttribute('src');
    const [popup] = await Promise.all([page.waitForEvent('popup'), page.evaluate((u) => window.open(u), src)]);
    await popup.waitForLoadState();
    // Opened outside the platform (no parent page), the app says so instead of failing quietly.
    await popup.getByRole('alert').getByText('This app runs inside the platform', { exact: false }).waitFor();
    assert.equal(new URL(popup.url()).origin, new URL(src).origin);
    await popup.evaluate(() => window.opener.postMessage({ type: 'platform:data:insert', requestId: 'x3', collection: 'notes', data: { text: 'forged' } }, '*'));
    await popup.close();
    // Pages of other origins holding a reference to the builder window: another app's preview
    // and another site. Each posts a well-formed request and records any answer it gets.
    const otherApp = await call('POST', `/api/workspaces/${ws}/apps`, { name: 'Other' });
    const port = new URL(p.web).port;
    const hostile = [`http://${otherApp.id}.preview.localhost:${port}/p/hostile`, `http://evil.localhost:${port}/hostile`];
    const hostilePage = `<!doctype html><title>hostile</title><script>
      window.__answers = 0;
      addEventListener('message', () => window.__answers++);
      opener.postMessage({ type: 'platform:data:insert', requestId: 'x4', collection: 'notes', data: { text: 'forged' } }, '*');
      opener.postMessage({ type: 'platform:agent:trigger', requestId: 'x5', agentId: 'summarizer', prompt: 'forged' }, '*');
    </script>`;
    await context.route((u) => u.pathname.endsWith('/hostile'), (route) => route.fulfill({ contentType: 'text/html', body: hostilePage }));
    const popups = [];
    for (const url of hostile) {
      const [w] = await Promise.all([page.waitForEvent('popup'), page.evaluate((u) => window.open(u), url)]);
      await w.waitForFunction(() => window.__answers !== undefined);
      popups.push(w);
    }
    // A round trip through the real frame proves the bridge is listening meanwhile.
    const frame = page.frameLocator('[data-testid="preview-frame"]');
    await frame.getByLabel('Note').fill('second note');
    await frame.getByRole('button', { name: 'Save' }).click();
    await frame.locator('li[data-pending="no"]').getByText('second note').waitFor();
    const stored = await call('GET', `${dataPath}/notes?scope=draft`);
    assert.deepEqual(stored.documents.map((d) => d.data.text), ['first note', 'second note']);
    assert.equal(seen.filter((r) => r.path === dataPath).length, before + 1, 'only the app frame\'s insert reached the API');
    assert.equal(seen.filter((r) => r.path.endsWith('/agent-runs') && r.method === 'POST').length, runsBefore, 'no agent run was created');
    for (const w of popups) {
      assert.equal(await w.evaluate(() => window.__answers), 0, `${w.url()} got an answer`);
      await w.close();
    }
    await context.unroute((u) => u.pathname.endsWith('/hostile'));
  });

  await check('after the change stream of the page reconnects, live lists read again: a note stored meanwhile appears', async () => {
    const { context: away } = await signedInContext(browser, p.web, idp.token('owner'), viewport);
    // The first change stream is held, then ends at once: the page reconnects (a dropped
    // connection). A note stored before then reaches the app only through the resync.
    let release;
    const held = new Promise((r) => (release = r));
    let first = true;
    await away.route((u) => u.pathname.endsWith('/data-events'), async (route) => {
      if (!first) return route.continue();
      first = false;
      await held;
      await route.fulfill({ status: 200, contentType: 'text/event-stream', body: '' });
    });
    const viewer = watch(await away.newPage());
    await viewer.goto(made.page);
    const frame = viewer.frameLocator('[data-testid="preview-frame"]');
    await frame.getByText('first note').waitFor();
    await call('POST', dataPath, { scope: 'draft', collection: 'notes', op: 'insert', data: { text: 'stored while away' } });
    assert.equal(await frame.getByText('stored while away').count(), 0);
    release();
    await frame.getByText('stored while away').waitFor();
    assert.equal(await frame.locator('li', { hasText: 'stored while away' }).count(), 1);
    await away.close();
  });

  await check('a write the server refuses rolls back and surfaces the error', async () => {
    const frame = page.frameLocator('[data-testid="preview-frame"]');
    await frame.getByRole('button', { name: 'Stale edit' }).click();
    await frame.getByTestId('write-error').waitFor();
    assert.match(await frame.getByTestId('write-error').innerText(), /version/i);
    assert.equal(await frame.locator('li').first().innerText(), 'first note');
    assert.equal(await frame.locator('li', { hasText: 'stale edit' }).count(), 0);
  });

  await check('app actions: an unconfigured tool answers sample data; a repairable failure asks the builder, whose repair run shows in the sidebar until it ends', async () => {
    const frame = page.frameLocator('[data-testid="preview-frame"]');
    await frame.getByRole('button', { name: 'Weather', exact: true }).click();
    await frame.getByTestId('weather').getByText('sample {"temp":1}').waitFor();
    assert.equal(await frame.getByRole('button', { name: 'Ask builder to fix' }).count(), 0);
    await frame.getByRole('button', { name: 'Weather without a city' }).click();
    await frame.getByRole('button', { name: 'Ask builder to fix' }).click();
    // The repair run (runReason app_tool_failure) shows as the badge, then ends and clears it.
    await page.getByTestId('repair-badge').waitFor();
    await screenshot(page, tmp, 'sidebar-repair');
    await page.getByTestId('repair-badge').waitFor({ state: 'detached', timeout: 120000 });
    const runs = await call('GET', `${appPath}/runs`);
    const repair = runs.runs.find((r) => r.runReason === 'app_tool_failure');
    assert.ok(repair, 'no repair run');
    assert.equal(repair.status, 'completed');
  });

  await check('a credentials failure offers no repair but the integration setup, which the preview opens on the builder page', async () => {
    await call('PUT', `${appPath}/integrations/secrets`, { domain: '127.0.0.1', keySlug: 'stocks', name: 'STOCKS_KEY', value: 'a-wrong-key' });
    const frame = page.frameLocator('[data-testid="preview-frame"]');
    await frame.getByRole('button', { name: 'Stocks' }).click();
    await frame.getByTestId('stocks-error').waitFor();
    assert.match(await frame.getByTestId('stocks-error').innerText(), /\S+ \/ \S+/, 'the error and its resolution');
    assert.equal(await frame.getByRole('button', { name: 'Ask builder to fix stocks' }).count(), 0);
    await screenshot(page, tmp, 'app-credentials-failure');
    await frame.getByRole('button', { name: 'Set up Stocks' }).click();
    await page.waitForURL(`${p.web}/w/${ws}/apps/${made.app.id}/integrations`);
    await page.getByText('Stocks').first().waitFor();
    await page.goto(made.page);
    await frame.getByRole('heading', { name: 'Notes' }).waitFor();
  });

  await check('the published app has a page of its own: the published build, published data', async () => {
    await call('POST', `${appPath}/publish`, {});
    const live = watch(await context.newPage());
    await live.goto(`${p.web}/w/${ws}/apps/${made.app.id}/live`);
    const frame = live.frameLocator('[data-testid="preview-frame"]');
    await frame.getByRole('heading', { name: 'Notes' }).waitFor();
    // The published scope is its own: the draft's notes are not there.
    assert.equal(await frame.locator('li').count(), 0);
    await frame.getByLabel('Note').fill('published note');
    await frame.getByRole('button', { name: 'Save' }).click();
    await frame.locator('li[data-pending="no"]').getByText('published note').waitFor();
    const published = await call('GET', `${dataPath}/notes?scope=published`);
    assert.deepEqual(published.documents.map((d) => d.data.text), ['published note']);
    const draft = await call('GET', `${dataPath}/notes?scope=draft`);
    assert.ok(!draft.documents.some((d) => d.data.text === 'published note'));
    await live.close();
  });

  await check('a viewer on the published page: the published agents (not the newer draft), the published data, an agent run of the published app', async () => {
    // The draft moves on after publishing: a second agent, not published.
    const doc = JSON.parse(agents);
    doc.agents.push({ id: 'titler', name: 'Titler', description: 'Titles the notes.', systemPrompt: 'Title the notes.' });
    await call('PATCH', `${appPath}/agents`, doc);
    await page.reload();
    await page.frameLocator('[data-testid="preview-frame"]').getByTestId('agents').getByText('2 agents').waitFor();
    const { context: viewerContext, page: viewer } = await signedInContext(browser, p.web, idp.token('vera'), viewport);
    watch(viewer);
    const viewerSeen = recordRequests(viewerContext);
    await viewer.goto(`${p.web}/w/${ws}/apps/${made.app.id}/live`);
    const frame = viewer.frameLocator('[data-testid="preview-frame"]');
    await frame.getByRole('heading', { name: 'Notes' }).waitFor();
    await frame.getByTestId('agents').getByText('1 agents').waitFor();
    await frame.getByText('published note').waitFor();
    await frame.getByLabel('Note').fill('a viewer note');
    await frame.getByRole('button', { name: 'Save' }).click();
    await frame.locator('li[data-pending="no"]').getByText('a viewer note').waitFor();
    const published = await call('GET', `${dataPath}/notes?scope=published`);
    assert.deepEqual(published.documents.map((d) => d.data.text), ['published note', 'a viewer note']);
    assert.ok(viewerSeen.every((r) => !r.search.includes('scope=draft')), 'the viewer\'s page asked for draft data');
    // The integration settings are not the viewer's: the page says so instead of opening them.
    await frame.getByRole('button', { name: 'Stocks' }).click();
    await frame.getByRole('button', { name: 'Set up Stocks' }).click();
    await frame.getByTestId('setup-error').getByText('ask an editor of this app', { exact: false }).waitFor();
    assert.match(viewer.url(), /\/live$/);
    await frame.getByRole('button', { name: 'Summarize' }).click();
    await frame.getByTestId('agent-status').getByText('completed').waitFor({ timeout: 120000 });
    const runs = await call('GET', `${appPath}/agent-runs`);
    const mine = runs.runs.filter((r) => r.draft === false);
    assert.equal(mine.length, 1, JSON.stringify(runs.runs));
    assert.equal(mine[0].status, 'completed');
    await viewerContext.close();
  });

  // A platform of its own (local mode), whose scripted builder writes the spec's app.
  const sp = await startPlatform(t, { buildDir: t.buildDir, projectDir: t.projectDir, turns: specTurns, name: 'spec' });
  const specCall = apiClient(sp.web);
  const specRun = await createRun(sp.web, 'Spec notes', { call: specCall });
  const specData = `/api/workspaces/default/apps/${specRun.app.id}/data`;
  const insertNote = (text) => specCall('POST', specData, { scope: 'draft', collection: 'notes', op: 'insert', data: { text } });
  const specContext = await browser.newContext(viewport);
  const specSeen = recordRequests(specContext);
  const specPage = watch(await specContext.newPage());
  const specFrame = specPage.frameLocator('[data-testid="preview-frame"]');
  const specAppFrame = () => specPage.frames().find((f) => f.url().includes('.preview.localhost'));
  const seeded = [];

  await check(`an app on the spec's names: a collection of ${seededCount} documents shows whole, read page by page through the bridge`, async () => {
    const turn = await fetch(sp.web + specRun.chat, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Notes, the spec way' }] }] }),
    });
    const body = await turn.text();
    assert.equal((await specCall('GET', specRun.chat)).status, 'completed', body.slice(-3000));
    // Seeded through the API before the app opens, 50 at a time (one insert per request).
    for (let i = 0; i < seededCount; i += 50) {
      const batch = await Promise.all(Array.from({ length: Math.min(50, seededCount - i) }, (_, j) => insertNote(`seeded ${i + j}`)));
      seeded.push(...batch.map((r) => r.document));
    }
    await specPage.goto(specRun.page);
    await specFrame.getByTestId('count').getByText(`${seededCount} notes`, { exact: true }).waitFor({ timeout: 60000 });
    assert.equal(await specFrame.locator('li').count(), seededCount);
    const lists = specSeen.filter((r) => r.method === 'GET' && r.path === `${specData}/notes`);
    const cursors = new Set(lists.map((r) => new URLSearchParams(r.search).get('cursor')).filter(Boolean));
    assert.ok(cursors.size >= seededCount / 200 - 1, `the list was not read by its cursors: ${lists.length} reads, ${cursors.size} cursors`);
    await screenshot(specPage, tmp, 'app-sdk-spec-names');
  });

  await check('an insert from elsewhere (the API) appears in the whole list; the app\'s own insert shows at once, once', async () => {
    await insertNote('from elsewhere');
    await specFrame.getByTestId('count').getByText(`${seededCount + 1} notes`, { exact: true }).waitFor();
    await specFrame.locator('li').last().getByText('from elsewhere', { exact: true }).waitFor();
    // The insert's answer is held: the note shows before it, as a guess.
    let release;
    const held = new Promise((r) => (release = r));
    await specPage.route(`${sp.web}${specData}`, async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      const response = await route.fetch();
      await held;
      await route.fulfill({ response });
    });
    await specFrame.getByLabel('Note', { exact: true }).fill('my own note');
    await specFrame.getByRole('button', { name: 'Save' }).click();
    await specFrame.locator('li[data-pending="yes"]').getByText('my own note').waitFor();
    assert.equal(await specFrame.getByTestId('count').innerText(), `${seededCount + 2} notes`);
    release();
    await specFrame.locator('li[data-pending="no"]').getByText('my own note').waitFor();
    await specPage.unroute(`${sp.web}${specData}`);
    assert.equal(await specFrame.locator('li', { hasText: 'my own note' }).count(), 1);
    assert.equal(await specFrame.getByTestId('count').innerText(), `${seededCount + 2} notes`);
  });

  await check('useDoc finds a document far past the first page of 200, and follows its changes', async () => {
    const far = seeded[4321];
    const firstPage = await specCall('GET', `${specData}/notes?scope=draft&limit=200`);
    assert.ok(!firstPage.documents.some((d) => d.id === far.id), 'the document is on the first page');
    await specFrame.getByLabel('Note id').fill(far.id);
    await specFrame.getByTestId('picked').getByText('seeded 4321', { exact: true }).waitFor();
    await specCall('POST', specData, { scope: 'draft', collection: 'notes', op: 'update', docId: far.id, data: { text: 'seeded 4321, edited' } });
    await specFrame.getByTestId('picked').getByText('seeded 4321, edited', { exact: true }).waitFor();
    await specFrame.getByLabel('Note id').fill('doc_none');
    await specFrame.getByTestId('picked').getByText('no such note').waitFor();
  });

  await check('a trigger the app ignores that cannot start: status failed with its error, no unhandled rejection', async () => {
    const errors = [];
    specPage.on('pageerror', (e) => errors.push(String(e)));
    await specAppFrame().evaluate(() => {
      window.__rejections = [];
      addEventListener('unhandledrejection', (e) => window.__rejections.push(String(e.reason)));
    });
    await specFrame.getByRole('button', { name: 'Ask' }).click();
    await specFrame.getByTestId('ghost-status').getByText('failed', { exact: true }).waitFor();
    assert.ok((await specFrame.getByTestId('ghost-error').innerText()).length > 0, 'no error shown');
    // Rejection events are tasks queued by then; one more task of the frame runs after them.
    const rejections = await specAppFrame().evaluate(() => new Promise((r) => setTimeout(() => r(window.__rejections), 0)));
    assert.deepEqual(rejections, []);
    assert.deepEqual(errors, []);
    await screenshot(specPage, tmp, 'app-sdk-spec-failed-trigger');
  });

  await check('the spec-names app on its published page: its own (published) collection, an insert shown once and stored there', async () => {
    const pub = await specCall('POST', `/api/workspaces/default/apps/${specRun.app.id}/publish`, {});
    assert.equal(pub.scope, 'published', JSON.stringify(pub));
    const live = watch(await specContext.newPage());
    await live.goto(`${sp.web}/w/default/apps/${specRun.app.id}/live`);
    const frame = live.frameLocator('[data-testid="preview-frame"]');
    await frame.getByTestId('count').getByText('0 notes', { exact: true }).waitFor();
    await frame.getByLabel('Note', { exact: true }).fill('live spec note');
    await frame.getByRole('button', { name: 'Save' }).click();
    await frame.locator('li[data-pending="no"]').getByText('live spec note').waitFor();
    await frame.getByTestId('count').getByText('1 notes', { exact: true }).waitFor();
    const stored = await specCall('GET', `${specData}/notes?scope=published`);
    assert.deepEqual(stored.documents.map((d) => d.data.text), ['live spec note']);
    await screenshot(live, tmp, 'app-sdk-spec-published');
    await live.close();
  });

  await browser.close();
  stocksProvider.close();
});
