// The publish and review conflicts (409s) in words that say what to do next.

/** Why a publish cannot go through before the builder's first successful build, and what to do. */
export const noBuildSentence = 'This app has no build yet. Ask the builder to finish it; it builds the app when it is done.';

export const publishErrors = {
  no_build: noBuildSentence,
  not_approved: 'The agents were never approved. A workspace admin or owner must approve them on the Agents tab before the app can be published.',
  approval_stale: 'agents.json changed after it was approved. A workspace admin or owner must approve the current agents on the Agents tab, then publish again.',
  no_draft: 'There is no draft to publish yet. Let the builder build the app first.',
  review_pending: 'A review of this app is already waiting for an admin or owner. Wait for their decision before asking again.',
  draft_changed: 'The draft changed after this review was asked for, so it is no longer what was reviewed. Reject this review and ask for a new one of the current draft.',
  not_pending: 'This review was decided already; the list now shows how.',
};

/** A rollback's refusals: the release's build is what viewers would be shown again. */
export const rollBackErrors = {
  no_build: 'That release’s build is no longer stored, so it cannot be published again. Publish a newer release instead.',
  not_found: 'That release is not in this app’s history; the list now shows what is.',
};
