import type { WorkerSync } from './use-agents-patch';

// Why the workspace did not get the file, said for the person (the reply carries a code).
const reasons: Record<string, string> = {
  worker_unreachable: 'its worker did not answer',
};

/** The draft kept the edit but the builder's workspace did not get it: the next builder turn's
 *  snapshot would bring the old file back, so the person has to repeat the change. */
export function WorkerSyncNotice({ sync }: { sync: WorkerSync | null }) {
  if (!sync || sync.synced) return null;
  const reason = sync.error === undefined ? undefined : (reasons[sync.error] ?? 'the worker refused the file');
  return (
    <div role="alert" className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900" data-testid="worker-sync-warning">
      <p className="font-medium">Saved in the draft, but the builder’s workspace was not updated{reason ? `: ${reason}` : ''}.</p>
      <p className="mt-0.5">The next builder turn would undo this change. Switch the tool again once the worker is reachable.</p>
    </div>
  );
}
