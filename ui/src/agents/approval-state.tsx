import type { AgentsView } from '../api/types';
import { Badge } from '../components/badge';
import { useMemberLabel } from '../members/use-member-label';
import { when } from '../settings/when';

/** Whether the draft's agents.json is the approved one (spec "Agent config approval"), by whom
 *  and when, and what the app cannot do until it is. */
export function ApprovalState({ workspaceId, view }: { workspaceId: string; view: AgentsView }) {
  const label = useMemberLabel(workspaceId);
  const approved = view.approvedAt ? `${label(view.approvedBy)} on ${when(view.approvedAt)}` : null;
  return (
    <div className="space-y-2 text-sm" data-testid="approval-state" data-status={view.approvalStatus}>
      <div className="flex flex-wrap items-center gap-2">
        {view.approvalStatus === 'approved' ? (
          <Badge tone="green">Approved</Badge>
        ) : view.approvalStatus === 'stale' ? (
          <Badge tone="amber">Stale</Badge>
        ) : (
          <Badge>Not approved</Badge>
        )}
        {view.approvalStatus === 'approved' && approved ? <span className="text-zinc-600">by {approved}</span> : null}
        {view.scope === 'published' ? <span className="text-zinc-500">You see the published agents.</span> : null}
      </div>
      {view.approvalStatus === 'stale' ? (
        <div role="status" className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-amber-900" data-testid="approval-stale">
          <p className="font-medium">Stale: an admin must re-approve.</p>
          <p className="mt-0.5">
            agents.json changed after it was approved{approved ? ` by ${approved}` : ''}. Draft agent runs still start, but their custom HTTP tools,
            the app actions and agent data tools stay blocked until a workspace admin or owner approves the current agents.
          </p>
        </div>
      ) : view.approvalStatus === 'none' && view.scope === 'draft' ? (
        <p className="text-zinc-600">
          Custom HTTP tools, app actions and agent data tools stay blocked until a workspace admin or owner approves these agents.
        </p>
      ) : null}
      <p className="text-xs text-zinc-500" data-testid="published-state">
        {view.published ? `Published by ${label(view.published.publishedBy)} on ${when(view.published.publishedAt)}.` : 'Not published yet.'}
      </p>
    </div>
  );
}
