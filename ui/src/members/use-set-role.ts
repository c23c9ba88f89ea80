import { mutate } from 'swr';
import { api } from '../api/client';
import { keys } from '../api/queries';
import type { Role } from '../api/types';
import { useAction } from '../settings/use-action';

/** POST .../members {userId, role}: adds the user or changes their role, then reloads the list. */
export function useSetRole(workspaceId: string) {
  const { run, busy, error } = useAction();
  const setRole = async (userId: string, role: Exclude<Role, 'owner'>) => {
    const ok = await run(() => api(keys.members(workspaceId), { method: 'POST', body: { userId, role } }));
    void mutate(keys.members(workspaceId));
    return ok;
  };
  return { setRole, busy, error };
}
