import { mutate } from 'swr';
import { api } from '../api/client';
import { keys } from '../api/queries';
import type { VersionSummary } from '../api/types';
import { useAction } from '../settings/use-action';
import { versionKeys } from './version-queries';

/** POST .../versions/{n}/restore: version n's files become the draft again as a new version;
 *  the list and the app (its preview) are read again. Answers the new version, or null. */
export function useRestoreVersion(workspaceId: string, appId: string) {
  const { run, busy, error } = useAction();
  const restore = async (n: number): Promise<VersionSummary | null> => {
    let made: VersionSummary | null = null;
    await run(async () => {
      made = await api<VersionSummary>(`${versionKeys.version(workspaceId, appId, n)}/restore`, { method: 'POST' });
    });
    void mutate(versionKeys.list(workspaceId, appId));
    void mutate(keys.app(workspaceId, appId));
    return made;
  };
  return { restore, busy, error };
}
