import { mutate } from 'swr';
import { api } from '../api/client';
import { keys } from '../api/queries';
import type { WebhookSecret } from '../api/types';
import { useAction } from '../settings/use-action';

/** Switching a routine on or off, and showing or rotating its webhook secret (admins). The
 *  routines are read again after a switch. */
export function useRoutineAction(workspaceId: string, appId: string, routineId: string) {
  const { run, busy, error } = useAction();
  const base = `${keys.routines(workspaceId, appId)}/${encodeURIComponent(routineId)}`;
  const setEnabled = (enabled: boolean) =>
    run(async () => {
      await api(`${base}/enable`, { method: 'POST', body: { enabled } });
      await mutate(keys.routines(workspaceId, appId));
    });
  const secret = async (rotate: boolean): Promise<WebhookSecret | null> => {
    let out: WebhookSecret | null = null;
    await run(async () => {
      out = await api<WebhookSecret>(`${base}/webhook-secret${rotate ? '/rotate' : ''}`, { method: 'POST' });
    });
    return out;
  };
  return { setEnabled, secret, busy, error };
}
