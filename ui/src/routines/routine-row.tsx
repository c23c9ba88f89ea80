import { useState } from 'react';
import type { Routine, WebhookSecret } from '../api/types';
import { Badge } from '../components/badge';
import { Button } from '../components/button';
import { ErrorNotice } from '../components/error-notice';
import { useMemberLabel } from '../members/use-member-label';
import { when } from '../settings/when';
import { scheduleText } from './schedule-text';
import { useRoutineAction } from './use-routine-action';
import { WebhookSecretView } from './webhook-secret-view';

/** One routine: how it starts, when it fires next, who it runs as, how its runs went, and for
 *  admins the switch and the webhook's secret. */
export function RoutineRow({ workspaceId, appId, routine, agentName, canEdit }: { workspaceId: string; appId: string; routine: Routine; agentName: string; canEdit: boolean }) {
  const label = useMemberLabel(workspaceId);
  const { setEnabled, secret, busy, error } = useRoutineAction(workspaceId, appId, routine.id);
  const [shown, setShown] = useState<WebhookSecret | null>(null);
  const off = !routine.enabled;
  return (
    <li className="space-y-1.5 px-3 py-2.5 text-sm" data-testid={`routine-${routine.agentId}`} data-enabled={routine.enabled}>
      <div className="flex flex-wrap items-center gap-2">
        <span className="font-medium">{agentName}</span>
        {routine.schedule ? <Badge tone="blue">{scheduleText(routine.schedule.cron)}</Badge> : null}
        {routine.webhook ? <Badge tone="neutral">Webhook</Badge> : null}
        {off ? <Badge tone="red">Switched off</Badge> : null}
        <span className="flex-1" />
        {canEdit ? (
          <Button variant="ghost" disabled={busy} onClick={() => void setEnabled(off)} data-testid={`routine-switch-${routine.agentId}`}>
            {off ? 'Switch on' : 'Switch off'}
          </Button>
        ) : null}
      </div>
      {off && routine.consecutiveFailures >= routine.failureLimit ? (
        <p className="rounded-md bg-red-50 px-2 py-1.5 text-xs text-red-700" role="alert" data-testid={`routine-off-banner-${routine.agentId}`}>
          Switched off after {routine.consecutiveFailures} failed runs in a row. Look at its last runs below, fix the agent, then switch it on.
        </p>
      ) : null}
      {routine.problem ? <p className="text-xs text-red-700">It cannot fire: {routine.problem}</p> : null}
      <p className="text-xs text-zinc-500" data-testid={`routine-facts-${routine.agentId}`}>
        {routine.schedule ? `${routine.schedule.timezone} · ` : ''}
        {routine.nextFireAt && !off ? `next ${when(routine.nextFireAt)} · ` : ''}
        runs as {label(routine.runsAs)}
        {routine.lastOutcome === 'skipped' ? ' · last tick skipped: the run before it was still going' : ''}
        {routine.consecutiveFailures > 0 && !off ? ` · ${routine.consecutiveFailures} failed in a row` : ''}
      </p>
      {routine.webhook && canEdit ? (
        <div className="flex flex-wrap gap-2">
          <Button variant="ghost" disabled={busy} onClick={() => void secret(false).then(setShown)} data-testid={`routine-secret-${routine.agentId}`}>
            Show webhook secret
          </Button>
          <Button variant="ghost" disabled={busy} onClick={() => void secret(true).then(setShown)}>
            Rotate secret
          </Button>
        </div>
      ) : null}
      {shown ? <WebhookSecretView secret={shown} /> : null}
      <ErrorNotice error={error} />
    </li>
  );
}
