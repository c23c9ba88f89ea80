import type { WorkerSync } from './use-agents-patch';

/** The draft kept the edit but the builder's workspace did not get it: the next builder turn's
 *  snapshot would bring the old file back, so the person has to repeat the change. */
export function WorkerSyncNotice({ sync }: { sync: WorkerSync | null }) {
  if (!sync || sync.synced) return null;
  return (
    <div role="alert" className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900" data-testid="worker-sync-warning">
      <p className="font-medium">Saved in the draft, but the builder’s workspace was not updated{sync.error ? ` (${sync.error})` : ''}.</p>
      <p className="mt-0.5">The next builder turn would undo this change. Switch the tool again once the worker is reachable.</p>
    </div>
  );
}
