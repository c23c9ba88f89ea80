import { mutate } from 'swr';
import { useWorkspaceEvents } from '../events/use-workspace-events';
import { keys } from '../api/endpoints';

/** A builder turn that wrote files records a version when it ends: once a builder run of the
 *  app ends (in this tab or another), the version list is read again, so the Code tab shows
 *  the new version (and, with no version in the address, opens it) without a reload. */
export function useVersionsFollowBuilder(workspaceId: string, appId: string) {
  useWorkspaceEvents(workspaceId, { appId, kind: 'builder' }, (e) => {
    if (e.type === 'run.completed' || e.type === 'run.failed') void mutate(keys.versions(workspaceId, appId));
  });
}
