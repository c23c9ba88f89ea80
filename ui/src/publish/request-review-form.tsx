import { useState } from 'react';
import { mutations, send } from '../api/endpoints';
import { Button } from '../components/button';
import { ErrorNotice } from '../components/error-notice';
import { publishErrors } from './publish-errors';
import { usePublishAction } from './use-publish-action';

/** An editor asks an admin or owner to publish the current draft. */
export function RequestReviewForm({ workspaceId, appId, pending }: { workspaceId: string; appId: string; pending: boolean }) {
  const { run, busy, error } = usePublishAction(workspaceId, appId);
  const [note, setNote] = useState('');
  const submit = async () => {
    if (await run(() => send(mutations.requestReview(workspaceId, appId, note.trim() ? { note: note.trim() } : {})))) setNote('');
  };
  return (
    <form
      className="space-y-2"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <label className="block text-sm font-medium" htmlFor="review-note">
        Ask an admin or owner to publish this draft
      </label>
      <textarea
        id="review-note"
        value={note}
        onChange={(e) => setNote(e.target.value)}
        maxLength={2000}
        rows={2}
        placeholder="What changed, what to check (optional)"
        disabled={pending}
        data-testid="review-note"
        className="block w-full resize-none rounded-md border border-zinc-300 px-2 py-1 text-sm focus:border-accent focus:outline-none disabled:bg-zinc-50"
      />
      <Button type="submit" variant="primary" disabled={busy || pending} data-testid="request-review">
        {busy ? 'Asking…' : 'Request review'}
      </Button>
      {pending ? <p className="text-xs text-zinc-500">A review is already waiting for an admin or owner.</p> : null}
      <ErrorNotice error={error} wording={publishErrors} />
    </form>
  );
}
