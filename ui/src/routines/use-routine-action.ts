import { mutate } from 'swr';
import { keys, mutations, send } from '../api/endpoints';
import type { WebhookSecret } from '../api/types';
import { useAction } from '../settings/use-action';

/** Switching a routine on or off, and showing or rotating its webhook secret (admins). The
 *  routines are read again after a switch. */
export function useRoutineAction(workspaceId: string, appId: string, routineId: string) {
  const { run, busy, error } = useAction();
  const setEnabled = (enabled: boolean) =>
    run(async () => {
      await send(mutations.enableRoutine(workspaceId, appId, routineId, { enabled }));
      await mutate(keys.routines(workspaceId, appId));
    });
  const secret = async (rotate: boolean): Promise<WebhookSecret | null> => {
    let out: WebhookSecret | null = null;
    await run(async () => {
      out = await send((rotate ? mutations.rotateWebhookSecret : mutations.webhookSecret)(workspaceId, appId, routineId));
    });
    return out;
  };
  return { setEnabled, secret, busy, error };
}
