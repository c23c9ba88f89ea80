import { useEffect, useRef } from 'react';
import { subscribeWorkspaceEvents } from './shared-events';

/** Calls `handler` with the id of each app of the workspace that is deleted, in this tab or any
 *  other (the server's app.deleted event). The latest handler is used without resubscribing. */
export function useAppDeleted(workspaceId: string | undefined, handler: (appId: string) => void) {
  const latest = useRef(handler);
  latest.current = handler;
  useEffect(() => {
    if (!workspaceId) return;
    return subscribeWorkspaceEvents(workspaceId, (e) => {
      if (e.type === 'app.deleted') latest.current(e.appId);
    });
  }, [workspaceId]);
}
