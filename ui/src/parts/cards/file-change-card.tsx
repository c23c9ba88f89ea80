import type { DynamicToolUIPart } from 'ai';
import { ToolState, inputField, shortPath } from '../tool-state';
import { CardShell } from './card-shell';

export interface DiffStats {
  added: number;
  removed: number;
}

const lines = (s: string | undefined) => (s ? s.replace(/\n$/, '').split('\n').length : 0);

/** +/− line counts of a Write or Edit, from whichever form the runtime gave: a unified diff
 *  (runtime-b), old/new strings (runtime-a, runtime-c) or a whole new file. */
export function diffStats(input: unknown): DiffStats {
  const diff = inputField(input, 'diff', 'patch');
  if (diff) {
    let added = 0;
    let removed = 0;
    for (const l of diff.split('\n')) {
      if (l.startsWith('+++') || l.startsWith('---')) continue;
      if (l.startsWith('+')) added++;
      else if (l.startsWith('-')) removed++;
    }
    return { added, removed };
  }
  const content = inputField(input, 'content');
  if (content !== undefined) return { added: lines(content), removed: 0 };
  return { added: lines(inputField(input, 'new_string', 'newString')), removed: lines(inputField(input, 'old_string', 'oldString')) };
}

export function FileChangeCard({ part }: { part: DynamicToolUIPart }) {
  const path = shortPath(inputField(part.input, 'file_path', 'filePath', 'path'));
  const stats = diffStats(part.input);
  const diff = inputField(part.input, 'diff', 'patch');
  const content = inputField(part.input, 'content');
  const oldS = inputField(part.input, 'old_string', 'oldString');
  const newS = inputField(part.input, 'new_string', 'newString');
  return (
    <CardShell
      testId="file-change"
      icon="pencil"
      title={
        <span>
          <span className="font-medium">{part.toolName}</span> <code className="font-mono text-xs">{path}</code>
        </span>
      }
      meta={
        <span className="font-mono text-xs" data-testid="diff-stats">
          <span className="text-emerald-600">+{stats.added}</span> <span className="text-red-600">−{stats.removed}</span>
        </span>
      }
      state={<ToolState part={part} />}
    >
      <pre className="max-h-80 overflow-auto font-mono text-xs whitespace-pre">
        {diff
          ? diff.split('\n').map((l, i) => <DiffLine key={i} line={l} />)
          : content !== undefined
            ? content.split('\n').map((l, i) => <DiffLine key={i} line={`+${l}`} />)
            : [...(oldS ?? '').split('\n').map((l) => `-${l}`), ...(newS ?? '').split('\n').map((l) => `+${l}`)].map((l, i) => <DiffLine key={i} line={l} />)}
      </pre>
    </CardShell>
  );
}

function DiffLine({ line }: { line: string }) {
  const cls = line.startsWith('+') ? 'bg-emerald-50 text-emerald-800' : line.startsWith('-') ? 'bg-red-50 text-red-800' : line.startsWith('@@') ? 'text-sky-700' : 'text-zinc-700';
  return <div className={cls}>{line || ' '}</div>;
}
