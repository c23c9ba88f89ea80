import type { AgentRunDetail } from '../api/types';
import { JsonBlock } from '../parts/cards/card-shell';
import { useMemberLabel } from '../members/use-member-label';
import { when } from '../settings/when';
import { RunStatusBadge } from './run-status-badge';
import { UsageLine } from './usage-line';

/** The projected summary of an app agent run: who started it, when, how it ended. */
export function AgentRunSummary({ run }: { run: AgentRunDetail }) {
  const label = useMemberLabel(run.workspaceId);
  return (
    <div className="space-y-2 text-sm" data-testid="agent-run-summary" data-status={run.status}>
      <div className="flex flex-wrap items-center gap-2">
        {/* An app agent run that is running or streaming is simply working, as a builder turn is. */}
        <RunStatusBadge status={run.status === 'running' ? 'streaming' : run.status} stoppedBy={run.stopReason} />
        <span className="text-xs text-zinc-500">{run.sourceVersion === 'draft' ? 'Draft preview' : 'Published app'}</span>
        <span className="flex-1" />
        <UsageLine usage={run.usage} />
      </div>
      <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5 text-xs">
        <dt className="text-zinc-500">Started by</dt>
        <dd>
          {run.routineId
            ? `its routine (${run.trigger === 'webhook' ? 'a webhook' : 'its schedule'}), running as ${label(run.triggeredByUserId)}, who approved its agents`
            : label(run.triggeredByUserId)}
        </dd>
        <dt className="text-zinc-500">Created</dt>
        <dd>{when(run.createdAt)}</dd>
        {run.startedAt ? (
          <>
            <dt className="text-zinc-500">Started</dt>
            <dd>{when(run.startedAt)}</dd>
          </>
        ) : null}
        {run.finishedAt ? (
          <>
            <dt className="text-zinc-500">Finished</dt>
            <dd>{when(run.finishedAt)}</dd>
          </>
        ) : null}
      </dl>
      {run.error && run.stopReason === 'budget' ? (
        <p className="rounded-md bg-amber-50 px-3 py-2 text-amber-800" data-testid="agent-run-budget-stopped">
          {run.error} What it did so far is kept.
        </p>
      ) : run.error ? (
        <p className="rounded-md bg-red-50 px-3 py-2 text-red-700" data-testid="agent-run-error">
          {run.error}
        </p>
      ) : null}
      {run.status === 'completed' && run.result !== null && run.result !== undefined ? <JsonBlock label="Result" value={run.result} /> : null}
    </div>
  );
}
