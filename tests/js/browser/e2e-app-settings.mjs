// Renaming and deleting an app on the builder page (issue 34), at 1440x900 and at 390x844: the
// header's App settings button opens a dialog with the name and, for those who may, Delete app;
// a new name shows in the header and the sidebar at once (and in the API); Delete asks first in
// a dialog that names the app and what goes with it, Cancel keeps it, Delete app removes it and
// the page goes to the workspace's home with the app gone from the sidebar; another tab of the
// same browser drops it from its sidebar, and one showing it leaves it, without a reload. While
// the app's builder turn streams, the delete is refused and the dialog says so in a sentence;
// once the turn ended, the same button deletes. Nothing scrolls sideways at phone width. A
// collaborator who did not create an app may rename it but is not offered its deletion.
// Screenshots app-settings-*.png, delete-app-*.png.
//
// Usage: node browser/e2e-app-settings.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { endTurn, identityProvider, SseReader } from '../harness.mjs';
import { apiClient, browserTest, launchBrowser, requireChromium, screenshot as save, signedInContext, startPlatform } from './platform.mjs';

requireChromium();
const { tmp, check, run, watch, start, buildDir, projectDir } = browserTest('platform-app-settings-e2e-');

const phone = { width: 390, height: 844 };
const desktop = { width: 1440, height: 900 };
const ws = 'default';

const scenario = {
  turns: [endTurn('Here is a start: a list of recipes with their ingredients.')],
  // A turn that holds its stream until the test releases it: the app is busy meanwhile.
  after_user: [{ contains: 'Hold on', turns: [{ blocks: [{ type: 'text', text: 'On it. ' }, { type: 'pause', name: 'turn' },
    { type: 'text', text: 'Done.' }], stop_reason: 'end_turn' }] }],
  aux: endTurn('Title'),
};

/** Visible controls of the header and the open dialogs that reach past the viewport's sides,
 *  and whether the document scrolls sideways. */
function overflow() {
  const vw = window.innerWidth;
  const past = [];
  for (const el of document.querySelectorAll('header button, header h1, header input, [role="dialog"], [role="dialog"] *')) {
    if (!el.checkVisibility()) continue;
    const r = el.getBoundingClientRect();
    if (r.width > 0 && (r.left < -1 || r.right > vw + 1)) past.push(`${el.tagName.toLowerCase()}${el.dataset.testid ? `[${el.dataset.testid}]` : ''}`);
  }
  return { sideways: document.documentElement.scrollWidth > vw, past };
}

async function assertFits(page, what) {
  const m = await page.evaluate(overflow);
  assert.equal(m.sideways, false, `${what}: the page scrolls sideways`);
  assert.deepEqual(m.past, [], `${what}: past the viewport's edges`);
}

/** A screenshot once the dialog's and buttons' transitions ended, the mouse off the controls. */
async function screenshot(page, name) {
  await page.mouse.move(page.viewportSize().width - 1, page.viewportSize().height - 1);
  // Transitions only: a streaming turn's spinner and pulsing dot animate for as long as it runs.
  await page.waitForFunction(() => document.getAnimations().every((a) => !(a instanceof CSSTransition) || a.playState !== 'running'));
  return save(page, tmp, name);
}

const sidebarNames = (page) => page.getByTestId('app-list').locator('a').allInnerTexts();

await run(async () => {
  const scenarioFile = path.join(tmp, 'scenario.json');
  fs.writeFileSync(scenarioFile, JSON.stringify(scenario));
  const p = await startPlatform({ start, tmp }, { buildDir, projectDir, scenarioFile });
  const call = apiClient(p.web);
  const apps = `/api/workspaces/${ws}/apps`;
  const user = (id, text) => ({ id, role: 'user', parts: [{ type: 'text', text }] });
  const chat = (appId, runId, messages) => fetch(`${p.web}${apps}/${appId}/runs/${runId}/chat`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ messages }) });
  // An app with one finished builder turn, so its page shows a conversation.
  const made = async (name) => {
    const app = await call('POST', apps, { name });
    const runId = (await call('POST', `${apps}/${app.id}/runs`, {})).id;
    await new SseReader(await chat(app.id, runId, [user('u1', `Make ${name}`)]), { payload: true }).toEnd();
    return { ...app, runId };
  };
  const recipes = await made('Recipe box');
  const habits = await made('Habit tracker');
  const kept = await call('POST', apps, { name: 'Reading list' });

  const browser = await launchBrowser();
  const context = await browser.newContext({ viewport: desktop });
  const page = watch(await context.newPage());
  const settingsButton = page.getByTestId('app-settings-button');
  const settingsDialog = page.getByTestId('app-settings-dialog');
  const confirmDialog = page.getByTestId('delete-app-dialog');

  await check('1440 px: App settings renames the app; the header and the sidebar show the new name at once', async () => {
    await page.goto(`${p.web}/w/${ws}/apps/${recipes.id}/runs/${recipes.runId}`);
    await page.getByText('a list of recipes').waitFor();
    await settingsButton.click();
    await settingsDialog.waitFor();
    const input = page.getByTestId('rename-app-input');
    assert.equal(await input.inputValue(), 'Recipe box');
    await input.fill('Recipe book');
    await assertFits(page, 'desktop settings');
    await screenshot(page, 'app-settings-desktop');
    await page.getByTestId('rename-app-save').click();
    await settingsDialog.waitFor({ state: 'hidden' });
    await page.getByTestId('app-name').filter({ hasText: 'Recipe book' }).waitFor();
    await page.getByTestId('app-list').getByText('Recipe book').waitFor();
    assert.equal((await call('GET', `${apps}/${recipes.id}`)).name, 'Recipe book');
    // An empty or unchanged name is not sent.
    await settingsButton.click();
    await page.getByTestId('rename-app-input').fill('   ');
    assert.equal(await page.getByTestId('rename-app-save').isDisabled(), true);
    await page.keyboard.press('Escape');
    await settingsDialog.waitFor({ state: 'hidden' });
  });

  await check('1440 px: Delete asks first, naming the app and what goes; Cancel keeps it', async () => {
    await settingsButton.click();
    await page.getByTestId('delete-app-open').click();
    await confirmDialog.waitFor();
    assert.equal(await settingsDialog.isVisible(), false);
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Delete “Recipe book”?').waitFor();
    const text = await dialog.innerText();
    for (const what of ['cannot be undone', 'builder chats', 'agent runs', 'draft and of its published app', 'previews', 'integration secrets']) {
      assert.ok(text.includes(what), `the dialog says what goes (${what}): ${text}`);
    }
    await assertFits(page, 'desktop delete dialog');
    await screenshot(page, 'delete-app-dialog-desktop');
    await page.getByTestId('delete-app-cancel').click();
    await confirmDialog.waitFor({ state: 'hidden' });
    assert.equal((await call('GET', `${apps}/${recipes.id}`)).id, recipes.id);
  });

  await check('1440 px: Delete app removes it; the page goes home; this and another tab drop it from the sidebar', async () => {
    const other = watch(await context.newPage());
    await other.goto(`${p.web}/w/${ws}/apps/${kept.id}`);
    await other.getByTestId('app-list').getByText('Recipe book').waitFor();
    const showing = watch(await context.newPage());
    await showing.goto(`${p.web}/w/${ws}/apps/${recipes.id}`);
    await showing.getByTestId('app-name').filter({ hasText: 'Recipe book' }).waitFor();
    await page.bringToFront();
    await settingsButton.click();
    await page.getByTestId('delete-app-open').click();
    await page.getByTestId('delete-app-confirm').click();
    await page.waitForURL(`${p.web}/w/${ws}`);
    await page.getByTestId('create-app').waitFor();
    await page.getByTestId('app-list').getByText('Recipe book').waitFor({ state: 'detached' });
    assert.deepEqual((await sidebarNames(page)).sort(), ['Habit tracker', 'Reading list']);
    await page.getByText('Loading runtimes…').waitFor({ state: 'detached' });
    await screenshot(page, 'delete-app-done-desktop');
    await other.getByTestId('app-list').getByText('Recipe book').waitFor({ state: 'detached' });
    assert.equal(other.url(), `${p.web}/w/${ws}/apps/${kept.id}`, 'a tab on another app stays where it is');
    await showing.waitForURL(`${p.web}/w/${ws}`);
    await call('GET', `${apps}/${recipes.id}`, undefined, 404);
    await other.close();
    await showing.close();
  });

  await check('390 px: settings and the delete dialog fit; a delete while the builder works is refused in a sentence, then works', async () => {
    await page.setViewportSize(phone);
    await page.goto(`${p.web}/w/${ws}/apps/${habits.id}/runs/${habits.runId}`);
    await page.getByText('Make Habit tracker').waitFor();
    await assertFits(page, 'phone app page');
    await settingsButton.click();
    await settingsDialog.waitFor();
    await page.getByTestId('rename-app-input').fill('Habit tracker for the whole family, with streaks and weekly goals');
    await assertFits(page, 'phone settings');
    await screenshot(page, 'app-settings-phone');
    await page.getByTestId('rename-app-save').click();
    await settingsDialog.waitFor({ state: 'hidden' });
    await page.getByTestId('app-name').filter({ hasText: 'Habit tracker for the whole family' }).waitFor();
    await assertFits(page, 'phone header with a long name');

    // The builder is working on the app (a turn held by the model server) while it is deleted.
    const history = await call('GET', `${apps}/${habits.id}/runs/${habits.runId}/chat`);
    const held = new SseReader(await chat(habits.id, habits.runId, [...history.messages, user('u2', 'Hold on, add streaks')]), { payload: true });
    await held.until((e) => e.some((x) => x.includes('On it.')));
    await settingsButton.click();
    await page.getByTestId('delete-app-open').click();
    await confirmDialog.waitFor();
    await assertFits(page, 'phone delete dialog');
    await screenshot(page, 'delete-app-dialog-phone');
    await page.getByTestId('delete-app-confirm').click();
    const notice = confirmDialog.getByRole('alert');
    await notice.waitFor();
    assert.match(await notice.innerText(), /^The builder is still working on this app: stop its turn or let it finish, then delete the app\./);
    assert.equal(page.url(), `${p.web}/w/${ws}/apps/${habits.id}/runs/${habits.runId}`);
    await assertFits(page, 'phone delete refused');
    await screenshot(page, 'delete-app-busy-phone');

    await p.model.release('turn');
    await held.toEnd();
    await page.getByTestId('delete-app-confirm').click();
    await page.waitForURL(`${p.web}/w/${ws}`);
    await call('GET', `${apps}/${habits.id}`, undefined, 404);
    await assertFits(page, 'phone after the delete');
    await page.getByTestId('menu-button').click();
    await page.getByTestId('app-list').getByText('Reading list').waitFor();
    assert.deepEqual(await sidebarNames(page), ['Reading list']);
  });
  await context.close();

  await check('a collaborator renames an app of another but is not offered its deletion; its creator is', async () => {
    const idp = identityProvider();
    const ext = (await start('web-ext', path.join(buildDir, 'servers/web/platform-web'), [], {
      PLATFORM_WEB_PORT: '0', PLATFORM_DATA_DIR: path.join(tmp, 'web-ext'), PLATFORM_WORKER_URL: p.worker,
      PLATFORM_UI_DIR: path.join(projectDir, 'ui/dist'), ...idp.env,
    }, /listening on (http:\S+)/)).match[1];
    const as = (who) => apiClient(ext, { authorization: `Bearer ${idp.token(who)}` });
    const team = (await as('owner')('POST', '/api/workspaces', { name: 'Team' })).id;
    await as('owner')('POST', `/api/workspaces/${team}/members`, { userId: 'cara', role: 'collaborator' });
    const owners = await as('owner')('POST', `/api/workspaces/${team}/apps`, { name: 'Team board' });
    const caras = await as('cara')('POST', `/api/workspaces/${team}/apps`, { name: "Cara's notes" });
    const { context: signed, page: cara } = await signedInContext(browser, ext, idp.token('cara'), { viewport: desktop });
    watch(cara);
    await cara.goto(`${ext}/w/${team}/apps/${owners.id}`);
    await cara.getByTestId('app-settings-button').click();
    await cara.getByTestId('app-settings-dialog').waitFor();
    assert.equal(await cara.getByTestId('rename-app-input').isVisible(), true);
    assert.equal(await cara.getByTestId('delete-app-open').count(), 0);
    await cara.keyboard.press('Escape');
    await cara.goto(`${ext}/w/${team}/apps/${caras.id}`);
    await cara.getByTestId('app-settings-button').click();
    await cara.getByTestId('delete-app-open').waitFor();
    await signed.close();
  });
  await browser.close();
});
