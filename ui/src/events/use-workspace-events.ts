import { useEffect, useRef } from 'react';
import type { WorkspaceEvent } from '../api/types';
import { subscribeWorkspaceEvents } from './shared-events';

export interface EventFilter {
  appId?: string;
  runId?: string;
  kind?: WorkspaceEvent['kind'];
}

/** Calls `handler` for the workspace's events that match `filter` (spec: observers react only
 *  to their {workspaceId, appId, runId}). The latest handler is used without resubscribing. */
export function useWorkspaceEvents(workspaceId: string | undefined, filter: EventFilter, handler: (e: WorkspaceEvent) => void) {
  const latest = useRef(handler);
  latest.current = handler;
  const { appId, runId, kind } = filter;
  useEffect(() => {
    if (!workspaceId) return;
    return subscribeWorkspaceEvents(workspaceId, (e) => {
      if (e.type === 'app.deleted') return;  // useAppDeleted's
      if (appId !== undefined && e.appId !== appId) return;
      if (runId !== undefined && e.runId !== runId) return;
      if (kind !== undefined && e.kind !== kind) return;
      latest.current(e);
    });
  }, [workspaceId, appId, runId, kind]);
}
