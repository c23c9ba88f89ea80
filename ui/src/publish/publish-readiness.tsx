import type { AgentsView, App } from '../api/types';
import { Badge } from '../components/badge';
import { useMemberLabel } from '../members/use-member-label';
import { when } from '../settings/when';
import { noBuildSentence } from './publish-errors';

/** The id of the no-build sentence: the publish buttons it disables are described by it. */
export const noBuildNoteId = 'publish-no-build';

/** Whether a publish would go through now, read from what the server keeps: the app's draft build
 *  (GET app's `preview`: null before the builder's first successful build) and the agents view. */
export function PublishReadiness({ app, view }: { app: App; view: AgentsView }) {
  const label = useMemberLabel(app.workspaceId);
  // No agents.json in the draft: the app publishes without agents.
  const noAgents = view.agentsJson === null && view.approvalStatus === 'none';
  const build = app.preview === null ? 'none' : app.preview ? 'built' : 'unknown';
  // An app without agents.json has no publication record: its published build says it was published.
  const publishedAt = view.published?.publishedAt ?? app.publishedPreview?.updatedAt;
  return (
    <div className="space-y-1.5 text-sm [&>p>span:first-child]:mr-1.5" data-testid="publish-readiness" data-status={view.approvalStatus} data-build={build}>
      {app.preview === null ? (
        <p id={noBuildNoteId} data-testid="publish-no-build">
          <Badge tone="amber">No build</Badge>{' '}
          {noBuildSentence}
        </p>
      ) : app.preview ? (
        <p>
          <Badge tone="green">Built</Badge>{' '}
          Last built on {when(app.preview.updatedAt)}: a publish gives viewers this build.
        </p>
      ) : null}
      <p>
        {noAgents ? (
          <>
            <Badge>No agents</Badge>{' '}
            The app has no agents.json, so there are no agents to approve.
          </>
        ) : view.approvalStatus === 'approved' ? (
          <>
            <Badge tone="green">Agents approved</Badge>{' '}
            The approved agents are published with the draft.
          </>
        ) : view.approvalStatus === 'stale' ? (
          <>
            <Badge tone="amber">Stale</Badge>{' '}
            agents.json changed after its approval: an admin or owner must approve it again on the Agents tab first.
          </>
        ) : (
          <>
            <Badge>Not approved</Badge>{' '}
            An admin or owner must approve the agents on the Agents tab first.
          </>
        )}
      </p>
      <p className="text-xs text-zinc-500">
        {view.published
          ? `Last published by ${label(view.published.publishedBy)} on ${when(view.published.publishedAt)}.`
          : publishedAt !== undefined
            ? `Last published on ${when(publishedAt)}.`
            : 'Never published: viewers cannot use the app yet.'}
        {publishedAt !== undefined ? (
          <>
            {' '}
            <a
              className="text-accent underline"
              href={`/w/${encodeURIComponent(app.workspaceId)}/apps/${encodeURIComponent(app.id)}/live`}
              target="_blank"
              rel="noopener"
              data-testid="published-link"
            >
              Open the published app
            </a>
          </>
        ) : null}
      </p>
    </div>
  );
}
