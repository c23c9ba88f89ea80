// The Members and Publish dialogs of the builder page, in a real browser against the real
// servers in external sign-in mode (spec "Authentication", "Agent config approval": review;
// docs/app-runtime.md "Governed agents"). The app's agents.json (examples/apps/team-notes) is
// made through the API; builder turns (real Claude Code CLI, scripted model) write src/App.tsx
// and build it with done_building. Covers: the owner adds a collaborator by user id and changes
// another member's role in the Members dialog while the owner's own row has no role select, and
// the members route agrees; a collaborator has no Members button; before the app has a build,
// the Publish dialog says why and what to do (a sentence) and Publish now is disabled, and once
// a builder turn built the app the open dialog enables it; the collaborator's Publish dialog
// offers a review request (no "Publish now") and the note makes a pending review; the owner's
// 409s (publish, and approving the review, before the agents are approved) are sentences, not
// JSON; the owner approves the agents on the Agents tab, then the review, which publishes the
// app; the dialog's link opens the published page, which shows the build, and before the
// publish that it was never published, with a way back to the builder. A second app, without
// agents.json: a 409 no_build the dialog did not expect (its knowledge of the build stale) is
// the sentence too and publishes nothing; once built it publishes from the dialog (the reply's
// `published` says who and when) and its page shows the build. Releases (issue 35): the
// collaborator asks to roll back to the first release, the owner approves, it is live again.
//
// Usage: node browser/e2e-members-publish.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { identityProvider, toolTurn, use } from '../harness.mjs';
import { apiClient, browserTest, launchBrowser, recordRequests, requireChromium, screenshot, signedInContext, startPlatform } from './platform.mjs';

requireChromium();
const t = browserTest('platform-members-publish-e2e-');
const { check, watch, run, tmp } = t;

// ui/src/publish/publish-errors.ts: what the dialog says for a 409 not_approved.
const notApprovedSentence =
  'The agents were never approved. A workspace admin or owner must approve them on the Agents tab before the app can be published.';
// And before the builder's first successful build (also for a 409 no_build).
const noBuildSentence = 'This app has no build yet. Ask the builder to finish it; it builds the app when it is done.';

// Every builder turn (each app's first) writes the app and builds it.
const marker = 'Team notes board';
const appTsx = `export default function App() {
  return <main className="p-8"><h1 className="text-2xl font-bold">${marker}</h1></main>;
}
`;
const turns = [
  toolTurn(use('t_write', 'Bash', { command: `cat > src/App.tsx <<'EOF'\n${appTsx}EOF`, description: 'Write the app' })),
  toolTurn(use('t_build', 'mcp__platform__done_building', { summary: 'Team notes' })),
  { blocks: [{ type: 'text', text: 'Built the app.' }], stop_reason: 'end_turn' },
];

run(async () => {
  const idp = identityProvider();
  const p = await startPlatform(t, { buildDir: t.buildDir, projectDir: t.projectDir, turns, name: 'ext', webEnv: idp.env });
  const as = (who) => apiClient(p.web, { authorization: `Bearer ${idp.token(who)}` });
  const owner = as('owner');
  const ws = (await owner('POST', '/api/workspaces', { name: 'Team' })).id;
  await owner('POST', `/api/workspaces/${ws}/members`, { userId: 'vera', role: 'viewer' });
  const app = await owner('POST', `/api/workspaces/${ws}/apps`, { name: 'Team notes' });
  const A = `/api/workspaces/${ws}/apps/${app.id}`;
  const agentsDoc = JSON.parse(fs.readFileSync(path.join(t.projectDir, 'examples/apps/team-notes/agents.json'), 'utf8'));
  const patched = await owner('PATCH', `${A}/agents`, agentsDoc);
  assert.equal(patched.valid, true, JSON.stringify(patched.problems));
  assert.equal(patched.approvalStatus, 'none');
  const appPage = `${p.web}/w/${ws}/apps/${app.id}`;
  const livePath = `/w/${ws}/apps/${app.id}/live`;
  // A builder turn of `appId` through the chat route, read to its end: it writes and builds the app.
  const build = async (appId) => {
    const appPath = `/api/workspaces/${ws}/apps/${appId}`;
    const made = await owner('POST', `${appPath}/runs`, {});
    const res = await fetch(`${p.web}${appPath}/runs/${made.id}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${idp.token('owner')}` },
      body: JSON.stringify({ messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'A team notes board' }] }] }),
    });
    const body = await res.text();
    assert.equal((await owner('GET', `${appPath}/runs/${made.id}/chat`)).status, 'completed', body.slice(-3000));
    const shown = await owner('GET', appPath);
    assert.ok(shown.preview, 'the turn built the app');
    return shown.preview;
  };

  const browser = await launchBrowser();
  const signedInPage = async (who) => watch((await signedInContext(browser, p.web, idp.token(who))).page);
  // Clicks `button` and answers the response of the request it makes (`method` `route`).
  const clickFor = async (page, button, method, route) =>
    (await Promise.all([page.waitForResponse((r) => r.url() === `${p.web}${route}` && r.request().method() === method), button.click()]))[0];
  const ownerPage = await signedInPage('owner');
  let collabPage;

  await check('Members dialog (owner): add a collaborator by user id, change a role, no select on the owner row; the API agrees', async () => {
    const page = ownerPage;
    await page.goto(appPage);
    await page.getByTestId('members-button').click();
    const dialog = page.getByTestId('members-dialog');
    const ownerRow = dialog.getByTestId('member-owner');
    await ownerRow.waitFor();
    assert.equal(await ownerRow.getAttribute('data-role'), 'owner');
    assert.equal(await dialog.getByTestId('member-role-owner').count(), 0);
    assert.equal(await ownerRow.locator('select').count(), 0);
    assert.match(await ownerRow.innerText(), /owner[\s\S]*\(you\)[\s\S]*owner@example\.test/);
    const veraRole = dialog.getByTestId('member-role-vera');
    assert.equal(await veraRole.inputValue(), 'viewer');

    await dialog.getByTestId('add-member-user-id').fill('collab');
    await dialog.getByTestId('add-member-role').selectOption('collaborator');
    const added = await clickFor(page, dialog.getByTestId('add-member'), 'POST', `/api/workspaces/${ws}/members`);
    assert.equal(added.status(), 200);
    assert.deepEqual(added.request().postDataJSON(), { userId: 'collab', role: 'collaborator' });
    const collabRow = dialog.locator('[data-testid="member-collab"][data-role="collaborator"]');
    await collabRow.waitFor();
    // Not signed in yet: the row has only the id to show.
    assert.match(await collabRow.innerText(), /collab · has not signed in yet/);
    assert.equal(await dialog.getByTestId('add-member-user-id').inputValue(), '');

    await veraRole.selectOption('admin');
    await dialog.locator('[data-testid="member-vera"][data-role="admin"]').waitFor();
    assert.equal(await veraRole.inputValue(), 'admin');
    assert.equal(await dialog.getByRole('alert').count(), 0);
    await screenshot(page, tmp, 'members-dialog-owner');

    const listed = await owner('GET', `/api/workspaces/${ws}/members`);
    assert.deepEqual(listed.members.map((m) => [m.userId, m.role]).sort(), [['collab', 'collaborator'], ['owner', 'owner'], ['vera', 'admin']]);
    const shown = await dialog.locator('li[data-testid^="member-"]').evaluateAll((els) => els.map((el) => [el.dataset.testid.slice(7), el.dataset.role]));
    assert.deepEqual(shown.sort(), [['collab', 'collaborator'], ['owner', 'owner'], ['vera', 'admin']]);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  await check('Members dialog (owner): remove a member after a confirmation that says what it does; the owner stays; the API refuses what it must', async () => {
    const page = ownerPage;
    await owner('POST', `/api/workspaces/${ws}/members`, { userId: 'temp', role: 'viewer' });
    // temp signs in once: a member who may open the workspace, until removed.
    const temp = apiClient(p.web, { authorization: `Bearer ${idp.token('temp')}` });
    assert.ok((await temp('GET', `/api/workspaces/${ws}/apps`)).apps);
    await page.goto(appPage);
    await page.getByTestId('members-button').click();
    const dialog = page.getByTestId('members-dialog');
    await dialog.getByTestId('member-temp').waitFor();
    // What "has not signed in yet" means is said once, under the list.
    await dialog.getByTestId('not-signed-in-note').getByText(/identity provider has not yet shown this id/).waitFor();
    assert.equal(await dialog.getByTestId('member-remove-owner').count(), 0, 'no Remove on the owner');
    await dialog.getByTestId('member-remove-temp').click();
    const ask = dialog.getByRole('alertdialog', { name: /Remove temp/ });
    await ask.getByText(/lose access to its apps at once/).waitFor();
    await screenshot(page, tmp, 'members-remove-confirm');
    const removed = await clickFor(page, dialog.getByTestId('member-remove-confirm-temp'), 'DELETE', `/api/workspaces/${ws}/members?userId=temp`);
    assert.equal(removed.status(), 200);
    await dialog.getByTestId('member-temp').waitFor({ state: 'detached' });
    const listed = await owner('GET', `/api/workspaces/${ws}/members`);
    assert.ok(!listed.members.some((m) => m.userId === 'temp'));
    // Removed means no way in: temp's own calls are refused now.
    const after = await fetch(`${p.web}/api/workspaces/${ws}/apps`, { headers: { authorization: `Bearer ${idp.token('temp')}` } });
    assert.ok(after.status === 403 || after.status === 404, `temp after removal: ${after.status}`);
    // The owner cannot be removed; an unknown member is 404; a collaborator may not remove anyone.
    const del = (who, user) => fetch(`${p.web}/api/workspaces/${ws}/members?userId=${encodeURIComponent(user)}`, { method: 'DELETE', headers: { authorization: `Bearer ${idp.token(who)}` } });
    const ownerGone = await del('owner', 'owner');
    assert.equal(ownerGone.status, 409);
    assert.match((await ownerGone.json()).error.message, /owner cannot be removed/);
    assert.equal((await del('owner', 'nobody')).status, 404);
    // An identity provider's id need not fit a path segment.
    await owner('POST', `/api/workspaces/${ws}/members`, { userId: 'idp|odd@example.test', role: 'viewer' });
    assert.equal((await del('owner', 'idp|odd@example.test')).status, 200);
    assert.ok(!(await owner('GET', `/api/workspaces/${ws}/members`)).members.some((m) => m.userId === 'idp|odd@example.test'));
    assert.equal((await del('collab', 'vera')).status, 403);
    assert.ok((await owner('GET', `/api/workspaces/${ws}/members`)).members.some((m) => m.userId === 'vera'));
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  await check('before any publish, /live says so without a Published badge; a collaborator gets back to the builder from it', async () => {
    collabPage = await signedInPage('collab');
    await collabPage.goto(`${p.web}${livePath}`);
    const said = collabPage.locator('[data-testid="not-published"][data-published="false"]');
    await said.waitFor();
    assert.equal(await said.innerText(), 'This app has no published build yet: an admin or owner publishes it once the builder has built it.');
    assert.equal(await collabPage.locator('header').getByText('Published', { exact: true }).count(), 0);
    await collabPage.getByTestId('open-in-builder').click();
    await collabPage.waitForURL(appPage);
  });

  await check('a collaborator has the Publish button but no Members button', async () => {
    if (collabPage.url() !== appPage) await collabPage.goto(appPage);
    // Both buttons wait for the role (GET /api/workspaces): Publish showing means it is known.
    await collabPage.getByTestId('publish-button').waitFor();
    assert.equal(await collabPage.getByTestId('members-button').count(), 0);
    const roles = await as('collab')('GET', '/api/workspaces');
    assert.equal(roles.workspaces.find((w) => w.id === ws)?.role, 'collaborator');
  });

  await check('before the app has a build, the Publish dialog says why and what to do, and Publish now is disabled (owner and collaborator)', async () => {
    assert.equal((await owner('GET', A)).preview, null);
    const page = ownerPage;
    const seen = recordRequests(page.context());
    await page.goto(appPage);
    await page.getByTestId('publish-button').click();
    const dialog = page.getByTestId('publish-dialog');
    const note = dialog.getByTestId('publish-no-build');
    await note.waitFor();
    assert.equal((await note.innerText()).replace(/\s+/g, ' ').trim(), `No build ${noBuildSentence}`);
    assert.equal(await dialog.getByTestId('publish-readiness').getAttribute('data-build'), 'none');
    const publishNow = dialog.getByTestId('publish-now');
    assert.equal(await publishNow.isDisabled(), true);
    assert.equal(await publishNow.getAttribute('aria-describedby'), await note.getAttribute('id'));
    await publishNow.click({ force: true });
    assert.equal(await dialog.getByRole('alert').count(), 0);
    assert.doesNotMatch(await dialog.innerText(), /[{}"]|no_build/);
    for (const [width, height] of [[1440, 900], [390, 844]]) {
      await page.setViewportSize({ width, height });
      await note.scrollIntoViewIfNeeded();
      await screenshot(page, tmp, `publish-dialog-no-build-${width}x${height}`);
    }
    await page.setViewportSize({ width: 1300, height: 900 });
    assert.equal(seen.filter((r) => r.method === 'POST' && r.path === `${A}/publish`).length, 0, 'the disabled button sent nothing');
    assert.equal((await owner('GET', `${A}/agents`)).published, null);

    await collabPage.getByTestId('publish-button').click();
    const theirs = collabPage.getByTestId('publish-dialog');
    assert.equal((await theirs.getByTestId('publish-no-build').innerText()).replace(/\s+/g, ' ').trim(), `No build ${noBuildSentence}`);
    await collabPage.keyboard.press('Escape');
    await theirs.waitFor({ state: 'detached' });
  });

  await check('a builder turn writes the app and done_building builds it: the open Publish dialog enables Publish now without a reload', async () => {
    const page = ownerPage;
    const dialog = page.getByTestId('publish-dialog');
    await dialog.getByTestId('publish-no-build').waitFor();
    const preview = await build(app.id);
    // The run's end (a workspace event) makes the page read the app again.
    await dialog.locator('[data-testid="publish-readiness"][data-build="built"]').waitFor();
    assert.equal(await dialog.getByTestId('publish-no-build').count(), 0);
    assert.equal(await dialog.getByTestId('publish-now').isDisabled(), false);
    assert.equal(await dialog.getByTestId('publish-now').getAttribute('aria-describedby'), null);
    assert.equal((await owner('GET', A)).preview.digest, preview.digest);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  let reviewId;
  await check('Publish dialog (collaborator): a review request instead of Publish now; the note makes a pending review', async () => {
    const page = collabPage;
    await page.getByTestId('publish-button').click();
    const dialog = page.getByTestId('publish-dialog');
    await dialog.getByText('No review is waiting.').waitFor();
    await dialog.locator('[data-testid="publish-readiness"][data-build="built"]').waitFor();
    assert.equal(await dialog.getByTestId('publish-now').count(), 0);
    assert.equal(await dialog.getByTestId('publish-readiness').getAttribute('data-status'), 'none');
    const note = 'Added the weather action; please check the summarizer prompt.';
    await dialog.getByTestId('review-note').fill(note);
    const asked = await clickFor(page, dialog.getByTestId('request-review'), 'POST', `${A}/reviews`);
    assert.equal(asked.status(), 201);
    assert.deepEqual(asked.request().postDataJSON(), { note });
    reviewId = (await asked.json()).id;
    const row = dialog.getByTestId('pending-reviews').getByTestId(`review-${reviewId}`);
    await row.waitFor();
    assert.equal(await row.getAttribute('data-status'), 'pending');
    // Names come with GET /api/me and the members list: wait for them, not the first render.
    await row.getByText(/Asked by you on /).waitFor();
    assert.match(await row.innerText(), /please check the summarizer prompt/);
    // Only admins and owners decide.
    assert.equal(await row.getByRole('button').count(), 0);
    await dialog.getByText('A review is already waiting for an admin or owner.').waitFor();
    assert.equal(await dialog.getByTestId('request-review').isDisabled(), true);
    assert.equal(await dialog.getByTestId('review-note').isDisabled(), true);
    assert.equal(await dialog.getByTestId('review-note').inputValue(), '');
    await screenshot(page, tmp, 'publish-dialog-collaborator');

    const { reviews } = await owner('GET', `${A}/reviews`);
    assert.equal(reviews.length, 1);
    assert.equal(reviews[0].id, reviewId);
    assert.equal(reviews[0].status, 'pending');
    assert.equal(reviews[0].requestedBy, 'collab');
    assert.equal(reviews[0].note, note);
    await page.keyboard.press('Escape');
  });

  await check('a 409 in the Publish dialog is a sentence, not JSON: Publish now and approving the review before the agents are approved', async () => {
    const page = ownerPage;
    await page.getByTestId('publish-button').click();
    const dialog = page.getByTestId('publish-dialog');
    const review = dialog.getByTestId(`review-${reviewId}`);
    await review.waitFor();
    assert.equal(await dialog.getByTestId('publish-readiness').getAttribute('data-status'), 'none');
    assert.equal(await dialog.getByTestId('request-review').count(), 0);
    const refused = await clickFor(page, dialog.getByTestId('publish-now'), 'POST', `${A}/publish`);
    assert.equal(refused.status(), 409);
    assert.equal((await refused.json()).error.code, 'not_approved');
    const alert = dialog.getByRole('alert');
    await alert.waitFor();
    assert.equal((await alert.innerText()).trim(), notApprovedSentence);
    assert.equal(await dialog.getByTestId('publish-done').count(), 0);

    const refusedReview = await clickFor(page, review.getByTestId(`review-approve-${reviewId}`), 'POST', `${A}/reviews/${reviewId}/approve`);
    assert.equal(refusedReview.status(), 409);
    const reviewAlert = review.getByRole('alert');
    await reviewAlert.waitFor();
    assert.equal((await reviewAlert.innerText()).trim(), notApprovedSentence);
    for (const text of await dialog.getByRole('alert').allInnerTexts()) {
      assert.doesNotMatch(text, /[{}"]|not_approved|error/);
    }
    await screenshot(page, tmp, 'publish-dialog-409');
    assert.equal((await owner('GET', `${A}/reviews`)).reviews[0].status, 'pending');
    assert.equal((await owner('GET', `${A}/agents`)).published, null);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  await check('the owner approves the agents on the Agents tab, then the review: the app is published, the dialog links it', async () => {
    const page = ownerPage;
    await page.getByTestId('tab-agents').click();
    const state = page.getByTestId('approval-state');
    await state.waitFor();
    assert.equal(await state.getAttribute('data-status'), 'none');
    await page.getByTestId('agent-summarizer').waitFor();
    await page.getByTestId('approve-agents').click();
    await page.locator('[data-testid="approval-state"][data-status="approved"]').waitFor();
    const view = await owner('GET', `${A}/agents`);
    assert.equal(view.approvalStatus, 'approved');
    assert.equal(view.approvedBy, 'owner');
    assert.equal(view.published, null);

    await page.getByTestId('publish-button').click();
    const dialog = page.getByTestId('publish-dialog');
    await dialog.locator('[data-testid="publish-readiness"][data-status="approved"]').waitFor();
    assert.equal(await dialog.getByTestId('published-link').count(), 0);
    const approved = await clickFor(page, dialog.getByTestId(`review-approve-${reviewId}`), 'POST', `${A}/reviews/${reviewId}/approve`);
    assert.equal(approved.status(), 200);
    const link = dialog.getByTestId('published-link');
    await link.waitFor();
    assert.equal(await link.innerText(), 'Open the published app');
    assert.equal(await link.getAttribute('href'), livePath);
    const decided = dialog.locator(`[data-testid="review-${reviewId}"][data-status="approved"]`);
    await decided.waitFor();
    await decided.getByText(/^Published by you on /).waitFor();
    await dialog.getByText('No review is waiting.').waitFor();
    await dialog.getByTestId('publish-readiness').getByText(/^Last published by you on /).waitFor();
    assert.equal(await dialog.getByRole('alert').count(), 0);
    await screenshot(page, tmp, 'publish-dialog-published');

    const after = await owner('GET', `${A}/agents`);
    assert.equal(after.published?.publishedBy, 'owner');
    assert.equal(after.published?.hash, after.approvedHash);
    const [review] = (await owner('GET', `${A}/reviews`)).reviews;
    assert.deepEqual([review.status, review.decidedBy], ['approved', 'owner']);
    // The published page shows the draft's build.
    const shown = await owner('GET', A);
    assert.equal(shown.publishedPreview?.digest, shown.preview.digest);
  });

  await check('the published link opens /live in a new tab, which shows the published build (owner and collaborator)', async () => {
    const [page] = await Promise.all([ownerPage.context().waitForEvent('page'), ownerPage.getByTestId('published-link').click()]);
    await page.waitForURL(`${p.web}${livePath}`);
    assert.match(ownerPage.url(), /\/w\//, 'the builder stays where it was');
    assert.ok(!ownerPage.url().endsWith('/live'));
    await page.frameLocator('[data-testid="preview-frame"]').getByRole('heading', { name: marker }).waitFor();
    await page.locator('header').getByText('Published', { exact: true }).waitFor();
    assert.equal(await page.getByTestId('not-published').count(), 0);
    assert.equal(await page.getByTestId('open-in-builder').getAttribute('href'), `/w/${ws}/apps/${app.id}`);
    await screenshot(page, tmp, 'published-page');
    await page.close();

    await collabPage.goto(`${p.web}${livePath}`);
    await collabPage.frameLocator('[data-testid="preview-frame"]').getByRole('heading', { name: marker }).waitFor();
    assert.equal(await collabPage.getByTestId('not-published').count(), 0);
  });

  await check('a collaborator asks to roll back to an earlier release; the owner approves it and that release is live again', async () => {
    await owner('POST', `${A}/publish`);  // release 2: the same version again
    await collabPage.goto(appPage);
    await collabPage.getByTestId('publish-button').click();
    const dialog = collabPage.getByTestId('publish-dialog');
    await dialog.locator('[data-testid=release-2][data-live=true]').waitFor();
    assert.equal(await dialog.getByTestId('roll-back-1').count(), 0, 'a collaborator does not roll back directly');
    const asked = await clickFor(collabPage, dialog.getByTestId('ask-roll-back-1'), 'POST', `${A}/reviews`);
    assert.equal(asked.status(), 201);
    const review = await asked.json();
    assert.equal(review.rollbackTo, 1);
    await dialog.getByTestId(`review-${review.id}`).getByText(/^Asks to roll back to release 1/).waitFor();
    await screenshot(collabPage, tmp, 'publish-rollback-review-asked');
    await collabPage.keyboard.press('Escape');

    await ownerPage.goto(appPage);
    await ownerPage.getByTestId('publish-button').click();
    const ownerDialog = ownerPage.getByTestId('publish-dialog');
    const approve = ownerDialog.getByTestId(`review-approve-${review.id}`);
    assert.equal(await approve.innerText(), 'Approve and roll back');
    assert.equal((await clickFor(ownerPage, approve, 'POST', `${A}/reviews/${review.id}/approve`)).status(), 200);
    await ownerDialog.locator('[data-testid=release-3][data-live=true]').getByText('again: release 1').waitFor();
    await ownerDialog.locator(`[data-testid="review-${review.id}"][data-status="approved"]`).getByText(/^Rolled back by you on /).waitFor();
    const [made] = (await owner('GET', `${A}/releases`)).items;
    assert.deepEqual([made.via, made.rolledBackFrom, made.reviewId], ['rollback', 1, review.id]);
    await ownerPage.keyboard.press('Escape');
  });

  await check('a viewer reads the releases, nothing more: no Publish button, no rollback', async () => {
    await owner('POST', `/api/workspaces/${ws}/members`, { userId: 'val', role: 'viewer' });
    const viewerPage = await signedInPage('val');
    await viewerPage.goto(appPage);
    assert.equal(await viewerPage.getByTestId('publish-button').count(), 0);
    await viewerPage.getByTestId('releases-button').click();
    await viewerPage.locator('[data-testid=release-3][data-live=true]').waitFor();
    await viewerPage.getByTestId('release-1').waitFor();
    assert.equal(await viewerPage.locator('[data-testid^=roll-back-], [data-testid^=ask-roll-back-]').count(), 0);
    await screenshot(viewerPage, tmp, 'releases-viewer');
    // The server agrees: viewers read releases, not versions, and roll nothing back.
    const val = as('val');
    assert.equal((await val('GET', `${A}/releases`)).items.length, 3);
    const versions = await fetch(`${p.web}${A}/versions`, { headers: { authorization: `Bearer ${idp.token('val')}` } });
    assert.equal(versions.status, 403);
    const refused = await fetch(`${p.web}${A}/releases/1/rollback`, { method: 'POST', headers: { authorization: `Bearer ${idp.token('val')}` } });
    assert.equal(refused.status, 403);
    assert.equal((await refused.json()).error.code, 'forbidden');
    await viewerPage.context().close();
  });

  // An app without agents.json, and so far without a build.
  const plain = await owner('POST', `/api/workspaces/${ws}/apps`, { name: 'Plain board' });
  const P = `/api/workspaces/${ws}/apps/${plain.id}`;
  const plainPage = `${p.web}/w/${ws}/apps/${plain.id}`;

  await check('a 409 no_build the dialog did not expect is the sentence, not JSON, and publishes nothing', async () => {
    const page = ownerPage;
    // The page's knowledge of the build is stale: its reads of the app answer with a build
    // (the first app's); the server knows better.
    const borrowed = (await owner('GET', A)).preview;
    const appUrl = `${p.web}${P}`;
    const stale = async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, json: { ...(await response.json()), preview: borrowed } });
    };
    await page.route(appUrl, stale);
    try {
      await page.goto(plainPage);
      await page.getByTestId('publish-button').click();
      const dialog = page.getByTestId('publish-dialog');
      await dialog.locator('[data-testid="publish-readiness"][data-build="built"]').waitFor();
      const refused = await clickFor(page, dialog.getByTestId('publish-now'), 'POST', `${P}/publish`);
      assert.equal(refused.status(), 409);
      assert.equal((await refused.json()).error.code, 'no_build');
      const alert = dialog.getByRole('alert');
      await alert.waitFor();
      assert.equal((await alert.innerText()).trim(), noBuildSentence);
      assert.doesNotMatch(await alert.innerText(), /[{}"]|no_build|done_building/);
      assert.equal(await dialog.getByTestId('publish-done').count(), 0);
      await screenshot(page, tmp, 'publish-dialog-409-no-build');
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
    } finally {
      await page.unroute(appUrl, stale);
    }
    const shown = await owner('GET', P);
    assert.deepEqual([shown.preview, shown.publishedPreview], [null, null]);
    assert.equal((await owner('GET', `${P}/agents`)).published, null);
  });

  await check('once built, the app without agents.json publishes from the dialog: the reply says who and when; its page shows the build', async () => {
    await build(plain.id);
    const page = ownerPage;
    await page.goto(plainPage);
    await page.getByTestId('publish-button').click();
    const dialog = page.getByTestId('publish-dialog');
    const readiness = dialog.locator('[data-testid="publish-readiness"][data-build="built"]');
    await readiness.waitFor();
    await readiness.getByText('No agents', { exact: true }).waitFor();
    const before = Date.now();
    const published = await clickFor(page, dialog.getByTestId('publish-now'), 'POST', `${P}/publish`);
    assert.equal(published.status(), 200);
    const reply = await published.json();
    assert.equal(reply.published?.hash, null);
    assert.equal(reply.published.publishedBy, 'owner');
    assert.equal(typeof reply.published.publishedAt, 'number');
    assert.ok(Math.abs(reply.published.publishedAt - before) < 60000, String(reply.published.publishedAt));
    await dialog.getByTestId('publish-done').waitFor();
    assert.equal(await dialog.getByRole('alert').count(), 0);
    await dialog.getByTestId('publish-readiness').getByText(/^Last published on /).waitFor();
    await screenshot(page, tmp, 'publish-dialog-published-no-agents');
    const shown = await owner('GET', P);
    assert.equal(shown.publishedPreview?.digest, shown.preview.digest);
    const [live] = await Promise.all([page.context().waitForEvent('page'), dialog.getByTestId('published-link').click()]);
    await live.waitForURL(`${p.web}/w/${ws}/apps/${plain.id}/live`);
    await live.frameLocator('[data-testid="preview-frame"]').getByRole('heading', { name: marker }).waitFor();
    await live.locator('header').getByText('Published', { exact: true }).waitFor();
    await live.close();
  });

  await browser.close();
});
