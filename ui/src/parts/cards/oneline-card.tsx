import type { DynamicToolUIPart } from 'ai';
import { ToolState } from '../tool-state';

const icons: Record<string, string> = { Read: '📄', List: '📁', Glob: '📁', Grep: '🔍' };

/** Read, List, Glob and Grep: one line, no body (spec rendering table). */
export function OnelineCard({ part, kind, target }: { part: DynamicToolUIPart; kind: string; target: string }) {
  return (
    <div className="my-1 flex min-w-0 items-center gap-2 px-1 text-sm text-zinc-600" data-card="oneline" data-kind={kind}>
      <span aria-hidden className="w-4 text-center">
        {icons[kind] ?? '•'}
      </span>
      <span className="font-medium text-zinc-800">{kind}</span>
      <code className="min-w-0 truncate font-mono text-xs">{target}</code>
      <ToolState part={part} />
    </div>
  );
}
