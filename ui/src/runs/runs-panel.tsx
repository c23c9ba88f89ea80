import { useAgentRuns, useRuns } from '../api/queries';
import type { App } from '../api/types';
import { ErrorNotice } from '../components/error-notice';
import { navigate, paths } from '../routing/location';
import { RunStatusBadge } from './run-status-badge';
import { UsageLine } from './usage-line';

const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** The app's past builder runs and app agent runs. */
export function RunsPanel({ app }: { app: App }) {
  const { data, error } = useRuns(app.workspaceId, app.id);
  const { data: agentRuns } = useAgentRuns(app.workspaceId, app.id, true);
  return (
    <div className="min-h-0 flex-1 overflow-y-auto p-4">
      <h2 className="text-sm font-semibold">Builder runs</h2>
      <ErrorNotice error={error} />
      <ul className="mt-2 divide-y divide-zinc-200 rounded-lg border border-zinc-200 bg-white" data-testid="runs-list">
        {(data?.runs ?? []).map((r) => (
          <li key={r.id}>
            <button type="button" onClick={() => navigate(paths.run(app.workspaceId, app.id, r.id))} className="flex w-full items-center gap-3 px-3 py-2 text-left text-sm hover:bg-zinc-50">
              <RunStatusBadge status={r.status} />
              <span className="flex-1 text-zinc-700">
                {when(r.createdAt)} · {r.messageCount} message{r.messageCount === 1 ? '' : 's'}
                {r.runReason === 'app_tool_failure' ? ' · repair' : ''}
              </span>
              <UsageLine usage={r.usage} />
            </button>
          </li>
        ))}
        {data && data.runs.length === 0 ? <li className="px-3 py-2 text-sm text-zinc-500">No runs yet.</li> : null}
      </ul>
      <h2 className="mt-6 text-sm font-semibold">Agent runs</h2>
      <ul className="mt-2 divide-y divide-zinc-200 rounded-lg border border-zinc-200 bg-white" data-testid="agent-runs-list">
        {(agentRuns?.runs ?? []).map((r) => (
          <li key={r.id} className="flex items-center gap-3 px-3 py-2 text-sm">
            <span className="font-medium">{r.agentName || r.agentId}</span>
            <span className="text-xs text-zinc-500">{r.status}</span>
            <span className="flex-1 text-xs text-zinc-500">{when(r.createdAt)}</span>
          </li>
        ))}
        {agentRuns && agentRuns.runs.length === 0 ? <li className="px-3 py-2 text-sm text-zinc-500">No agent runs yet.</li> : null}
      </ul>
    </div>
  );
}
