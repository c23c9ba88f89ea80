import { useState } from 'react';
import { mutate } from 'swr';
import { api } from '../api/client';
import { keys } from '../api/queries';
import type { AgentsPatchReply } from '../api/types';
import type { AgentsDocument } from './with-tool-enabled';

export interface WorkerSync {
  synced: boolean;
  error?: string;
}

/** PATCH .../agents with a whole document. The reply is the new draft view, so it becomes the
 *  agents key's data at once; only whether the worker got the file is this hook's own. */
export function useAgentsPatch(workspaceId: string, appId: string) {
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [workerSync, setWorkerSync] = useState<WorkerSync | null>(null);

  const patch = async (doc: AgentsDocument) => {
    setSaving(true);
    setError(null);
    try {
      const { workerSynced, workerError, ...view } = await api<AgentsPatchReply>(keys.agents(workspaceId, appId), { method: 'PATCH', body: doc });
      setWorkerSync(workerError === undefined ? { synced: workerSynced } : { synced: workerSynced, error: workerError });
      await mutate(keys.agents(workspaceId, appId), view, { revalidate: false });
    } catch (e) {
      setError(e);
    } finally {
      setSaving(false);
    }
  };

  return { patch, saving, error, workerSync };
}
