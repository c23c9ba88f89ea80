import type { AgentsView } from '../api/types';
import { Badge } from '../components/badge';
import { useMemberLabel } from '../members/use-member-label';
import { when } from '../settings/when';

/** Whether a publish would go through now, read from the agents view the server keeps. */
export function PublishReadiness({ workspaceId, appId, view }: { workspaceId: string; appId?: string; view: AgentsView }) {
  const label = useMemberLabel(workspaceId);
  return (
    <div className="space-y-1 text-sm" data-testid="publish-readiness" data-status={view.approvalStatus}>
      <p className="[&>span:first-child]:mr-1.5">
        {view.approvalStatus === 'approved' ? (
          <>
            <Badge tone="green">Agents approved</Badge> The approved agents are published with the draft.
          </>
        ) : view.approvalStatus === 'stale' ? (
          <>
            <Badge tone="amber">Stale</Badge> agents.json changed after its approval: an admin or owner must approve it again on the Agents tab first.
          </>
        ) : (
          <>
            <Badge>Not approved</Badge> An admin or owner must approve the agents on the Agents tab first.
          </>
        )}
      </p>
      <p className="text-xs text-zinc-500">
        {view.published ? `Last published by ${label(view.published.publishedBy)} on ${when(view.published.publishedAt)}.` : 'Never published: viewers cannot use the app yet.'}
        {view.published && appId ? (
          <>
            {' '}
            <a className="text-accent underline" href={`/w/${encodeURIComponent(workspaceId)}/apps/${encodeURIComponent(appId)}/live`} data-testid="published-link">
              Open the published app
            </a>
          </>
        ) : null}
      </p>
    </div>
  );
}
