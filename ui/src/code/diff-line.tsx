import { cn } from '../components/cn';
import type { DiffRow } from './parse-diff';

// Opaque backgrounds: the number cells stay put while the code scrolls under them.
const rowLook: Record<'add' | 'del' | 'context', { numbers: string; code: string; sign: string }> = {
  add: { numbers: 'bg-emerald-100 text-emerald-700', code: 'bg-emerald-50', sign: '+' },
  del: { numbers: 'bg-red-100 text-red-700', code: 'bg-red-50', sign: '−' },
  context: { numbers: 'bg-white text-zinc-400', code: 'bg-white', sign: '' },
};

/** One row of a file's diff: a hunk header, a note, or a line with its numbers. */
export function DiffLine({ row }: { row: DiffRow }) {
  if (row.kind === 'hunk') {
    return (
      <tr data-kind="hunk">
        <td colSpan={4} className="bg-sky-50 px-3 py-1 whitespace-pre text-sky-700">{row.header}</td>
      </tr>
    );
  }
  if (row.kind === 'note') {
    return (
      <tr data-kind="note">
        <td colSpan={4} className="px-3 py-0.5 text-xs text-zinc-400 italic">{row.text}</td>
      </tr>
    );
  }
  const look = rowLook[row.kind];
  return (
    <tr data-kind={row.kind}>
      <td className={cn('sticky left-0 w-10 min-w-10 pr-2 pl-2 text-right align-top select-none', look.numbers)}>{row.oldNumber ?? ''}</td>
      <td className={cn('sticky left-10 w-10 min-w-10 pr-2 text-right align-top select-none', look.numbers)}>{row.newNumber ?? ''}</td>
      <td className={cn('w-5 min-w-5 pl-2 align-top select-none', look.code, row.kind === 'add' ? 'text-emerald-700' : 'text-red-700')} aria-hidden>{look.sign}</td>
      {/* The highlighter escapes the file's text; its markup is only spans of its classes. */}
      <td className={cn('pr-6 whitespace-pre text-zinc-800', look.code)} data-line dangerouslySetInnerHTML={{ __html: row.html || '\u200b' }} />
    </tr>
  );
}
