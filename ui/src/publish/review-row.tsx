import { useState } from 'react';
import { mutations, send } from '../api/endpoints';
import type { PublishReview } from '../api/types';
import { Badge } from '../components/badge';
import { Button } from '../components/button';
import { ErrorNotice } from '../components/error-notice';
import { useMemberLabel } from '../members/use-member-label';
import { when } from '../settings/when';
import { publishErrors } from './publish-errors';
import { noBuildNoteId } from './publish-readiness';
import { usePublishAction } from './use-publish-action';

const tone = { pending: 'amber', approved: 'green', rejected: 'red' } as const;

/** One review; a pending one can be approved (which publishes exactly the reviewed draft, or
 *  for a rollback review the release it names) or rejected by an admin or owner. `noBuild`: the app is known to have no build, so approving
 *  (publishing) would be refused; rejecting still works. */
export function ReviewRow({ workspaceId, appId, review: r, canDecide, noBuild = false }: { workspaceId: string; appId: string; review: PublishReview; canDecide: boolean; noBuild?: boolean }) {
  const label = useMemberLabel(workspaceId);
  const { run, busy, error } = usePublishAction(workspaceId, appId);
  const [note, setNote] = useState('');
  const decide = (decision: 'approve' | 'reject') =>
    void run(() => send(mutations.decideReview(workspaceId, appId, r.id, decision, note.trim() ? { note: note.trim() } : {})));
  return (
    <li className="space-y-1.5 px-3 py-2 text-sm" data-testid={`review-${r.id}`} data-status={r.status}>
      <div className="flex flex-wrap items-center gap-2">
        <Badge tone={tone[r.status]}>{r.status}</Badge>
        <span className="text-zinc-700">
          Asked by {label(r.requestedBy)} on {when(r.createdAt)}
        </span>
      </div>
      {r.rollbackTo ? <p className="text-zinc-700">Asks to roll back to release {r.rollbackTo}: its code and agents published again; the draft and the published data stay.</p> : null}
      {r.note ? <p className="whitespace-pre-wrap text-zinc-700">{r.note}</p> : null}
      {r.status !== 'pending' && r.decidedBy ? (
        <p className="text-xs text-zinc-500">
          {r.status === 'approved' ? (r.rollbackTo ? 'Rolled back' : 'Published') : 'Rejected'} by {label(r.decidedBy)}
          {r.decidedAt ? ` on ${when(r.decidedAt)}` : ''}
          {r.decisionNote ? `: ${r.decisionNote}` : '.'}
        </p>
      ) : null}
      {canDecide && r.status === 'pending' ? (
        <div className="flex flex-wrap items-center gap-2">
          <input
            aria-label="Decision note"
            value={note}
            onChange={(e) => setNote(e.target.value)}
            maxLength={2000}
            placeholder="Note (optional)"
            className="min-w-0 flex-1 rounded-md border border-zinc-300 px-2 py-1 text-sm focus:border-accent focus:outline-none"
          />
          <Button
            variant="primary"
            disabled={busy || (noBuild && !r.rollbackTo)}
            aria-describedby={noBuild && !r.rollbackTo ? noBuildNoteId : undefined}
            onClick={() => decide('approve')}
            data-testid={`review-approve-${r.id}`}
          >
            {r.rollbackTo ? 'Approve and roll back' : 'Approve and publish'}
          </Button>
          <Button variant="danger" disabled={busy} onClick={() => decide('reject')} data-testid={`review-reject-${r.id}`}>
            Reject
          </Button>
        </div>
      ) : null}
      <ErrorNotice error={error} wording={publishErrors} />
    </li>
  );
}
