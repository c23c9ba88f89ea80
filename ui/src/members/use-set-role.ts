import { mutate } from 'swr';
import { keys, mutations, send } from '../api/endpoints';
import type { Role } from '../api/types';
import { useAction } from '../settings/use-action';

/** POST .../members {userId, role}: adds the user or changes their role, then reloads the list. */
export function useSetRole(workspaceId: string) {
  const { run, busy, error } = useAction();
  const setRole = async (userId: string, role: Exclude<Role, 'owner'>) => {
    const ok = await run(() => send(mutations.setMemberRole(workspaceId, { userId, role })));
    void mutate(keys.members(workspaceId));
    return ok;
  };
  return { setRole, busy, error };
}
