import { mutate } from 'swr';
import { api } from '../api/client';
import { keys } from '../api/queries';
import { useAction } from '../settings/use-action';

/** DELETE .../members?userId=: takes the person out of the workspace, then reloads the list. */
export function useRemoveMember(workspaceId: string) {
  const { run, busy, error } = useAction();
  const remove = async (userId: string) => {
    const ok = await run(() => api(`${keys.members(workspaceId)}?userId=${encodeURIComponent(userId)}`, { method: 'DELETE' }));
    void mutate(keys.members(workspaceId));
    return ok;
  };
  return { remove, busy, error };
}
