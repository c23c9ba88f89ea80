import type { VersionSummary } from '../api/types';
import { cn } from '../components/cn';
import { changesSummary, versionTime } from './version-label';

/** The app's versions, newest first: each builder turn that wrote files, with what it was asked. */
export function VersionList({ versions, selected, onSelect }: { versions: VersionSummary[]; selected: number; onSelect: (n: number) => void }) {
  return (
    <ol className="flex flex-col gap-0.5" data-testid="version-list">
      {versions.map((v) => (
        <li key={v.number}>
          <button
            type="button"
            onClick={() => onSelect(v.number)}
            aria-current={v.number === selected ? 'true' : undefined}
            className={cn('flex w-full min-w-0 flex-col gap-0.5 rounded-md px-2.5 py-2 text-left', v.number === selected ? 'bg-accent-soft' : 'hover:bg-zinc-100')}
            data-testid={`version-${v.number}`}
          >
            <span className="flex items-baseline gap-2">
              <span className={cn('text-sm font-medium', v.number === selected ? 'text-indigo-900' : 'text-zinc-900')}>Version {v.number}</span>
              <span className="ml-auto shrink-0 text-xs text-zinc-500">{versionTime(v.createdAt)}</span>
            </span>
            {v.request.trim() ? <span className="line-clamp-2 text-[13px] text-zinc-600">“{v.request.trim()}”</span> : null}
            <span className="text-xs text-zinc-500">
              {changesSummary(v)}
              {v.restoredFrom !== null ? ` · restored from version ${v.restoredFrom}` : ''}
            </span>
          </button>
        </li>
      ))}
    </ol>
  );
}
