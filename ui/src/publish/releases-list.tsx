import { useEffect } from 'react';
import { useReleases } from '../api/queries';
import { ErrorNotice } from '../components/error-notice';
import { ReleaseRow } from './release-row';

/** The app's releases, newest first: every publish and rollback, the live one marked. Admins
 *  and owners roll back to an earlier one, other editors ask for it, viewers read the history. */
export function ReleasesList({ workspaceId, appId, open, rollBack, pending }: { workspaceId: string; appId: string; open: boolean; rollBack: 'now' | 'ask' | 'no'; pending: boolean }) {
  const { data, error, mutate } = useReleases(workspaceId, appId, open);
  // Others publish and roll back meanwhile: opening reads the list again.
  useEffect(() => {
    if (open) void mutate();
  }, [open, mutate]);
  const releases = data?.items ?? [];
  return (
    <section data-testid="releases">
      {/* In the viewers' own Releases dialog its title says what this is, and nothing rolls back. */}
      {rollBack !== 'no' ? (
        <>
          <h3 className="text-sm font-semibold">Releases</h3>
          <p className="mt-1 text-xs text-zinc-500">Rolling back publishes an earlier release’s code and agents again. The published data stays as it is.</p>
        </>
      ) : null}
      <ErrorNotice error={error} />
      {data && releases.length === 0 ? <p className="mt-1 text-sm text-zinc-500">Nothing was published yet.</p> : null}
      {releases.length ? (
        <ul className="mt-2 divide-y divide-zinc-100 rounded-lg border border-zinc-200">
          {releases.map((r) => (
            <ReleaseRow key={r.number} workspaceId={workspaceId} appId={appId} release={r} rollBack={rollBack} pending={pending} />
          ))}
        </ul>
      ) : null}
    </section>
  );
}
