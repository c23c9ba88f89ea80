import { mutate } from 'swr';
import { keys, mutations, send } from '../api/endpoints';
import { useAction } from '../settings/use-action';

/** DELETE .../members?userId=: takes the person out of the workspace, then reloads the list. */
export function useRemoveMember(workspaceId: string) {
  const { run, busy, error } = useAction();
  const remove = async (userId: string) => {
    const ok = await run(() => send(mutations.removeMember(workspaceId, userId)));
    void mutate(keys.members(workspaceId));
    return ok;
  };
  return { remove, busy, error };
}
