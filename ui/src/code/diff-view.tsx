import { useVersionDiff } from './version-queries';
import type { VersionSummary } from '../api/types';
import { ErrorNotice } from '../components/error-notice';
import { Spinner } from '../components/spinner';
import { navigate, paths } from '../routing/location';
import { FileDiff, fileDiffId } from './file-diff';
import { LineCounts } from './line-counts';
import { RestoreVersionButton } from './restore-version-button';
import { StatusBadge } from './status-badge';
import { ComparePicker } from './compare-picker';
import { versionTime } from './version-label';

/** What one version changed against the one before it, or against any other version: which
 *  turn, the files, then each file's diff. */
export function DiffView({ workspaceId, appId, version, summary, latest, onRestored, versions, from, onCompare }: { workspaceId: string; appId: string; version: number; summary: VersionSummary | undefined; latest: number; onRestored: (n: number) => void; versions: VersionSummary[]; from: number | null; onCompare: (from: number | null) => void }) {
  const { data, error } = useVersionDiff(workspaceId, appId, version, from);
  const additions = data?.files.reduce((n, f) => n + f.additions, 0) ?? 0;
  const deletions = data?.files.reduce((n, f) => n + f.deletions, 0) ?? 0;
  return (
    <div className="flex min-w-0 flex-col gap-4" data-testid="diff-view" data-version={version}>
      <div className="flex min-w-0 flex-col gap-1">
        <h2 className="text-base font-semibold text-zinc-900">
          Version {version}
          {summary ? <span className="font-normal text-zinc-500"> · {versionTime(summary.createdAt)}</span> : null}
        </h2>
        {summary?.request.trim() ? <p className="text-sm text-zinc-700">“{summary.request.trim()}”</p> : null}
        <p className="flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-zinc-500">
          {data ? (
            <span>
              {data.from === null ? 'The first version: every file is new.' : `Compared with version ${data.from}.`} {data.files.length} file{data.files.length === 1 ? '' : 's'},{' '}
              <LineCounts additions={additions} deletions={deletions} />
            </span>
          ) : null}
          {summary?.runId ? (
            <a
              className="text-accent hover:underline"
              href={paths.run(workspaceId, appId, summary.runId)}
              onClick={(e) => {
                // A plain click stays in the page; a modified one opens a tab as links do.
                if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
                e.preventDefault();
                if (summary.runId) navigate(paths.run(workspaceId, appId, summary.runId));
              }}
            >
              Open the builder turn
            </a>
          ) : null}
          {summary?.restoredFrom ? <span>Restored from version {summary.restoredFrom}.</span> : null}
          <ComparePicker versions={versions} version={version} from={from} onChange={onCompare} />
        </p>
        <RestoreVersionButton workspaceId={workspaceId} appId={appId} version={version} latest={latest} onRestored={onRestored} />
      </div>
      {error ? (
        <ErrorNotice error={error} />
      ) : !data ? (
        <Spinner label="Loading the changes" />
      ) : data.files.length === 0 ? (
        <p className="rounded-lg border border-dashed border-zinc-300 px-4 py-6 text-center text-sm text-zinc-500">
          {from === null ? 'This version changed no files.' : `Version ${version} and version ${from} have the same files.`}
        </p>
      ) : (
        <>
          <ul className="divide-y divide-zinc-100 rounded-lg border border-zinc-200 bg-white" data-testid="diff-files">
            {data.files.map((f) => (
              <li key={f.path}>
                <button
                  type="button"
                  onClick={() => document.getElementById(fileDiffId(f.path))?.scrollIntoView({ block: 'start', behavior: 'smooth' })}
                  className="flex w-full min-w-0 items-center gap-2 px-3 py-1.5 text-left hover:bg-zinc-50"
                  data-path={f.path}
                >
                  <StatusBadge status={f.status} />
                  <span className="min-w-0 flex-1 truncate font-mono text-[13px] text-zinc-700" title={f.path}>{f.path}</span>
                  <LineCounts additions={f.additions} deletions={f.deletions} />
                </button>
              </li>
            ))}
          </ul>
          {data.files.map((f) => (
            <FileDiff key={f.path} change={f} />
          ))}
        </>
      )}
    </div>
  );
}
