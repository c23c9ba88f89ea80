import { useState } from 'react';
import { mutate } from 'swr';
import { keys, mutations, send } from '../api/endpoints';
import { useAction } from '../settings/use-action';
import type { AgentsDocument } from './with-tool-enabled';

export interface WorkerSync {
  synced: boolean;
  error?: string;
}

/** PATCH .../agents with a whole document. The reply is the new draft view, so it becomes the
 *  agents key's data at once; only whether the worker got the file is this hook's own. */
export function useAgentsPatch(workspaceId: string, appId: string) {
  const { run, busy: saving, error } = useAction();
  const [workerSync, setWorkerSync] = useState<WorkerSync | null>(null);
  const patch = (doc: AgentsDocument) =>
    run(async () => {
      const { workerSynced, workerError, ...view } = await send(mutations.patchAgents(workspaceId, appId, doc));
      setWorkerSync(workerError === undefined ? { synced: workerSynced } : { synced: workerSynced, error: workerError });
      await mutate(keys.agents(workspaceId, appId), view, { revalidate: false });
    });
  return { patch, saving, error, workerSync };
}
