import { mutate } from 'swr';
import { keys } from '../api/endpoints';
import { useAction } from '../settings/use-action';

/** Runs one publish or review request; afterwards the agents view (its `published` record) and
 *  the reviews are read again, whatever the outcome, since a conflict means they moved on. */
export function usePublishAction(workspaceId: string, appId: string) {
  const { run: send, busy, error } = useAction();
  const run = async (request: () => Promise<unknown>) => {
    const ok = await send(request);
    void mutate(keys.agents(workspaceId, appId));
    void mutate(keys.reviews(workspaceId, appId));
    void mutate(keys.releases(workspaceId, appId));
    // A publish moves the published page to the draft's build.
    void mutate(keys.app(workspaceId, appId));
    return ok;
  };
  return { run, busy, error };
}
