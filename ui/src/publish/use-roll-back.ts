import { mutate } from 'swr';
import { keys, mutations, send } from '../api/endpoints';
import type { AppRelease } from '../api/types';
import { useAction } from '../settings/use-action';

/** POST .../releases/{n}/rollback: release n is published again exactly, as a new release.
 *  The releases, the published agents and the app (its published preview) are read again,
 *  whatever the outcome. Answers the new release, or null. */
export function useRollBack(workspaceId: string, appId: string) {
  const { run, busy, error } = useAction();
  const rollBack = async (n: number): Promise<AppRelease | null> => {
    let made: AppRelease | null = null;
    await run(async () => {
      made = await send(mutations.rollBack(workspaceId, appId, n));
    });
    void mutate(keys.releases(workspaceId, appId));
    void mutate(keys.agents(workspaceId, appId));
    void mutate(keys.app(workspaceId, appId));
    return made;
  };
  return { rollBack, busy, error };
}
