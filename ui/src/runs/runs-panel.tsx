import { useEffect, useState } from 'react';
import { mutate } from 'swr';
import { useAgentRuns, useRuns } from '../api/queries';
import { keys } from '../api/endpoints';
import type { App } from '../api/types';
import { Button } from '../components/button';
import { ErrorNotice } from '../components/error-notice';
import { useWorkspaceEvents } from '../events/use-workspace-events';
import { navigate, paths } from '../routing/location';
import { when } from '../settings/when';
import { AppBudgetPanel } from '../budgets/app-budget-panel';
import { RoutinesSection } from '../routines/routines-section';
import { AgentRunsDrawer } from './agent-runs-drawer';
import { RunStatusBadge } from './run-status-badge';
import { useOlderRuns } from './use-older-runs';
import { UsageLine } from './usage-line';

const agentRunsPollMs = 5000;

/** The app's past builder runs and app agent runs; an agent run opens in the drawer. */
export function RunsPanel({ app }: { app: App }) {
  const { data, error } = useRuns(app.workspaceId, app.id);
  const older = useOlderRuns(app.workspaceId, app.id, data?.nextCursor);
  // A run created while older pages are read again may be on two pages for a moment: once is enough.
  const firstIds = new Set((data?.runs ?? []).map((r) => r.id));
  const runs = [...(data?.runs ?? []), ...older.runs.filter((r) => !firstIds.has(r.id))];
  const { data: agentRuns, error: agentRunsError } = useAgentRuns(app.workspaceId, app.id, true);
  const [openRun, setOpenRun] = useState<string | null>(null);
  // Agent runs publish only their end; the list's statuses follow it. A new run publishes
  // nothing, so the list (projected summaries only) is also read again now and then.
  useWorkspaceEvents(app.workspaceId, { appId: app.id, kind: 'agent' }, () => void mutate(keys.agentRuns(app.workspaceId, app.id)));
  useEffect(() => {
    const t = setInterval(() => void mutate(keys.agentRuns(app.workspaceId, app.id)), agentRunsPollMs);
    return () => clearInterval(t);
  }, [app.workspaceId, app.id]);
  return (
    <div className="min-h-0 flex-1 overflow-y-auto p-4">
      <AppBudgetPanel app={app} />
      <RoutinesSection app={app} />
      <h2 className="mt-6 text-sm font-semibold">Builder runs</h2>
      <ErrorNotice error={error} />
      <ul className="mt-2 divide-y divide-zinc-200 rounded-lg border border-zinc-200 bg-white" data-testid="runs-list">
        {runs.map((r) => (
          <li key={r.id}>
            <button type="button" onClick={() => navigate(paths.run(app.workspaceId, app.id, r.id))} className="flex w-full items-center gap-3 px-3 py-2 text-left text-sm hover:bg-zinc-50">
              <RunStatusBadge status={r.status} stoppedBy={r.stopReason} />
              {/* Below sm the usage goes under the date, which keeps the row's width. */}
              <span className="flex min-w-0 flex-1 flex-col gap-0.5 sm:flex-row sm:items-center sm:gap-3">
                <span className="flex-1 text-zinc-700">
                  {when(r.createdAt)} · {r.messageCount} message{r.messageCount === 1 ? '' : 's'}
                  {r.runReason === 'app_tool_failure' ? ' · repair' : ''}
                </span>
                <UsageLine usage={r.usage} />
              </span>
            </button>
          </li>
        ))}
        {data && data.runs.length === 0 ? <li className="px-3 py-2 text-sm text-zinc-500">No runs yet.</li> : null}
      </ul>
      <ErrorNotice error={older.error} />
      {older.more || older.loading ? (
        <Button className="mt-2" onClick={older.loadMore} disabled={older.loading} data-testid="older-runs">
          {older.loading ? 'Loading older runs…' : 'Show older runs'}
        </Button>
      ) : null}
      <h2 className="mt-6 text-sm font-semibold">Agent runs</h2>
      <ErrorNotice error={agentRunsError} />
      <ul className="mt-2 divide-y divide-zinc-200 rounded-lg border border-zinc-200 bg-white" data-testid="agent-runs-list">
        {(agentRuns?.runs ?? []).map((r) => (
          <li key={r.id}>
            <button type="button" onClick={() => setOpenRun(r.id)} className="flex w-full items-center gap-3 px-3 py-2 text-left text-sm hover:bg-zinc-50" data-testid={`agent-run-${r.id}`}>
              <RunStatusBadge status={r.status === 'running' ? 'streaming' : r.status} stoppedBy={r.stopReason} />
              <span className="font-medium">{r.agentName || r.agentId}</span>
              {r.draft ? <span className="text-xs text-zinc-500">draft</span> : null}
              {r.trigger ? <span className="text-xs text-zinc-500" data-testid="agent-run-trigger">{r.trigger === 'schedule' ? 'scheduled' : 'webhook'}</span> : null}
              <span className="flex-1 text-right text-xs text-zinc-500">{when(r.createdAt)}</span>
            </button>
          </li>
        ))}
        {agentRuns && agentRuns.runs.length === 0 ? <li className="px-3 py-2 text-sm text-zinc-500">No agent runs yet.</li> : null}
      </ul>
      {openRun ? <AgentRunsDrawer key={openRun} workspaceId={app.workspaceId} appId={app.id} runId={openRun} onClose={() => setOpenRun(null)} /> : null}
    </div>
  );
}
