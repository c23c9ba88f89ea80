import { useEffect } from 'react';
import { useReleases } from '../api/queries';
import { ErrorNotice } from '../components/error-notice';
import { ReleaseRow } from './release-row';

/** The app's releases, newest first: every publish and rollback, the live one marked. Admins
 *  and owners roll back to an earlier one; everyone else reads the history. */
export function ReleasesList({ workspaceId, appId, open, canRollBack }: { workspaceId: string; appId: string; open: boolean; canRollBack: boolean }) {
  const { data, error, mutate } = useReleases(workspaceId, appId, open);
  // Others publish and roll back meanwhile: opening reads the list again.
  useEffect(() => {
    if (open) void mutate();
  }, [open, mutate]);
  const releases = data?.items ?? [];
  return (
    <section data-testid="releases">
      <h3 className="text-sm font-semibold">Releases</h3>
      <p className="mt-1 text-xs text-zinc-500">Rolling back publishes an earlier release’s code and agents again. The published data stays as it is.</p>
      <ErrorNotice error={error} />
      {data && releases.length === 0 ? <p className="mt-1 text-sm text-zinc-500">Nothing was published yet.</p> : null}
      {releases.length ? (
        <ul className="mt-2 divide-y divide-zinc-100 rounded-lg border border-zinc-200">
          {releases.map((r) => (
            <ReleaseRow key={r.number} workspaceId={workspaceId} appId={appId} release={r} canRollBack={canRollBack} />
          ))}
        </ul>
      ) : null}
    </section>
  );
}
