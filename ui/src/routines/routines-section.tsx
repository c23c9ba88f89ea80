import { useEffect } from 'react';
import { mutate } from 'swr';
import { useAgentsView, useRoutines } from '../api/queries';
import { keys } from '../api/endpoints';
import type { App } from '../api/types';
import { ErrorNotice } from '../components/error-notice';
import { useWorkspaceEvents } from '../events/use-workspace-events';
import { RoutineRow } from './routine-row';
import { scheduleText } from './schedule-text';

const pollMs = 15000;

/** The Runs tab's routines: the published agents that run on a schedule or a webhook, and the
 *  draft's triggers, which fire only once published. Their runs are in the agent runs below. */
export function RoutinesSection({ app }: { app: App }) {
  const { data, error } = useRoutines(app.workspaceId, app.id);
  const { data: agents } = useAgentsView(app.workspaceId, app.id);
  // A routine's run ends with a run event; its next tick and counts follow.
  useWorkspaceEvents(app.workspaceId, { appId: app.id, kind: 'agent' }, () => void mutate(keys.routines(app.workspaceId, app.id)));
  useEffect(() => {
    const t = setInterval(() => void mutate(keys.routines(app.workspaceId, app.id)), pollMs);
    return () => clearInterval(t);
  }, [app.workspaceId, app.id]);
  const names = new Map<string, string>();
  for (const a of agents?.agents ?? []) names.set(a.id, a.name);
  if (error) return <ErrorNotice error={error} />;
  if (!data || (data.routines.length === 0 && data.draft.length === 0)) return null;
  const published = new Set(data.routines.map((r) => r.agentId));
  const draftOnly = data.draft.filter((d) => !published.has(d.agentId));
  return (
    <section className="mt-6" aria-label="Routines">
      <h2 className="text-sm font-semibold">Routines</h2>
      <ul className="mt-2 divide-y divide-zinc-200 rounded-lg border border-zinc-200 bg-white" data-testid="routines-list">
        {data.routines.map((r) => (
          <RoutineRow key={r.id} workspaceId={app.workspaceId} appId={app.id} routine={r} agentName={names.get(r.agentId) ?? r.agentId} canEdit={data.canEdit} />
        ))}
        {draftOnly.map((d) => (
          <li key={d.agentId} className="px-3 py-2.5 text-sm text-zinc-500" data-testid={`routine-draft-${d.agentId}`}>
            <span className="font-medium text-zinc-700">{names.get(d.agentId) ?? d.agentId}</span> · {d.schedule ? scheduleText(d.schedule.cron) : ''}
            {d.schedule && d.webhook ? ' and ' : ''}
            {d.webhook ? 'webhook' : ''} · in the draft: fires once published
          </li>
        ))}
      </ul>
    </section>
  );
}
