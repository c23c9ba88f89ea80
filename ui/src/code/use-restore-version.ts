import { mutate } from 'swr';
import { keys, mutations, send } from '../api/endpoints';
import type { VersionSummary } from '../api/types';
import { useAction } from '../settings/use-action';

/** POST .../versions/{n}/restore: version n's files become the draft again as a new version;
 *  the list and the app (its preview) are read again. Answers the new version, or null. */
export function useRestoreVersion(workspaceId: string, appId: string) {
  const { run, busy, error } = useAction();
  const restore = async (n: number): Promise<VersionSummary | null> => {
    let made: VersionSummary | null = null;
    await run(async () => {
      made = await send(mutations.restoreVersion(workspaceId, appId, n));
    });
    void mutate(keys.versions(workspaceId, appId));
    void mutate(keys.app(workspaceId, appId));
    return made;
  };
  return { restore, busy, error };
}
