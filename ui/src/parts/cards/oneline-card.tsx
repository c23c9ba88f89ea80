import type { DynamicToolUIPart } from 'ai';
import { Icon, type IconName } from '../../components/icon';
import { ToolState } from '../tool-state';

const icons: Record<string, IconName> = { Read: 'file', List: 'folder', Glob: 'folder', Grep: 'search' };

/** Read, List, Glob and Grep: one line, no body (spec rendering table). */
export function OnelineCard({ part, kind, target }: { part: DynamicToolUIPart; kind: string; target: string }) {
  return (
    <div className="my-1 flex min-w-0 items-center gap-2 px-1 text-sm text-zinc-600" data-card="oneline" data-kind={kind}>
      <Icon name={icons[kind] ?? 'file'} className="size-4 shrink-0 text-zinc-500" />
      <span className="font-medium text-zinc-800">{kind}</span>
      <code className="min-w-0 truncate font-mono text-xs">{target}</code>
      <ToolState part={part} />
    </div>
  );
}
