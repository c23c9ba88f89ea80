import { useMemo } from 'react';
import type { FileChange } from '../api/types';
import { languageOf } from './highlight';
import { LineCounts } from './line-counts';
import { DiffLine } from './diff-line';
import { parseDiff } from './parse-diff';
import { StatusBadge } from './status-badge';

export const fileDiffId = (path: string) => `diff-${path.replace(/[^A-Za-z0-9_-]/g, '_')}`;

/** One file's changes: old and new line numbers, the added lines green, the removed red, and
 *  each hunk's header. Long lines scroll sideways inside the box. */
export function FileDiff({ change }: { change: FileChange }) {
  const rows = useMemo(() => parseDiff(change.diff, languageOf(change.path)), [change.diff, change.path]);
  return (
    <section id={fileDiffId(change.path)} className="scroll-mt-3 overflow-hidden rounded-lg border border-zinc-200 bg-white" data-testid="file-diff" data-path={change.path}>
      <header className="flex min-w-0 items-center gap-2 border-b border-zinc-200 bg-zinc-50 px-3 py-2">
        <StatusBadge status={change.status} />
        <h3 className="min-w-0 flex-1 truncate font-mono text-[13px] text-zinc-800" title={change.path}>{change.path}</h3>
        <LineCounts additions={change.additions} deletions={change.deletions} />
      </header>
      {change.tooLarge ? (
        <p className="px-4 py-3 text-sm text-zinc-500">This file is too large to show its changes here.</p>
      ) : rows.length === 0 ? (
        <p className="px-4 py-3 text-sm text-zinc-500">{change.status === 'removed' ? 'The file was empty.' : 'The file is empty.'}</p>
      ) : (
        <div className="overflow-x-auto py-1 font-mono text-[12.5px] leading-5">
          <table className="min-w-full border-collapse">
            <tbody>{rows.map((row, i) => <DiffLine key={i} row={row} />)}</tbody>
          </table>
        </div>
      )}
    </section>
  );
}
