// The Members and Publish dialogs of the builder page, in a real browser against the real
// servers in external sign-in mode (spec "Authentication", "Agent config approval": review;
// docs/app-runtime.md "Governed agents"). No builder turn: the app and its agents.json
// (examples/apps/team-notes) are made through the API. Covers: the owner adds a collaborator by
// user id and changes another member's role in the Members dialog while the owner's own row
// has no role select, and the members route agrees; a collaborator has no Members button; the
// collaborator's Publish dialog offers a review request (no "Publish now") and the note makes a
// pending review; the owner's 409s (publish, and approving the review, before the agents are
// approved) are sentences, not JSON; the owner approves the agents on the Agents tab, then the
// review, which publishes the app; the dialog's link opens the published page, which says the
// app has no build yet (no done_building ran), and before the publish that it was never
// published, with a way back to the builder.
//
// Usage: node browser/e2e-members-publish.mjs --build DIR --project DIR
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { identityProvider } from '../harness.mjs';
import { apiClient, browserTest, launchBrowser, requireChromium, screenshot, signedInContext, startPlatform } from './platform.mjs';

requireChromium();
const t = browserTest('platform-members-publish-e2e-');
const { check, watch, run, tmp } = t;

// ui/src/publish/publish-errors.ts: what the dialog says for a 409 not_approved.
const notApprovedSentence =
  'The agents were never approved. A workspace admin or owner must approve them on the Agents tab before the app can be published.';

run(async () => {
  const idp = identityProvider();
  const p = await startPlatform(t, { buildDir: t.buildDir, projectDir: t.projectDir, turns: [], name: 'ext', webEnv: idp.env });
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

  let reviewId;
  await check('Publish dialog (collaborator): a review request instead of Publish now; the note makes a pending review', async () => {
    const page = collabPage;
    await page.getByTestId('publish-button').click();
    const dialog = page.getByTestId('publish-dialog');
    await dialog.getByText('No review is waiting.').waitFor();
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
    // No done_building ran: there is no build for the published page to show.
    assert.equal((await owner('GET', A)).publishedPreview, null);
  });

  await check('the published link opens /live, which says the app has no build yet (owner and collaborator)', async () => {
    const page = ownerPage;
    await page.getByTestId('published-link').click();
    await page.waitForURL(`${p.web}${livePath}`);
    await page
      .locator('[data-testid="not-published"][data-published="true"]', { hasText: /^This app was published by you on .+, but it has no build yet/ })
      .waitFor();
    await page.locator('header').getByText('Published', { exact: true }).waitFor();
    assert.equal(await page.getByTestId('open-in-builder').getAttribute('href'), `/w/${ws}/apps/${app.id}`);
    await screenshot(page, tmp, 'published-page-no-build');

    await collabPage.goto(`${p.web}${livePath}`);
    await collabPage
      .locator('[data-testid="not-published"][data-published="true"]', { hasText: /^This app was published by owner on .+, but it has no build yet/ })
      .waitFor();
  });

  await browser.close();
});
