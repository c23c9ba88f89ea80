// A file's unified-diff hunks (the diff route's `diff`: no ---/+++ lines) as table rows, each
// line with its number in the old and the new file.
import { highlightLines } from './highlight';

export type DiffRow =
  | { kind: 'hunk'; header: string }
  | { kind: 'context' | 'add' | 'del'; oldNumber: number | null; newNumber: number | null; text: string; html: string }
  | { kind: 'note'; text: string };

const hunkHeader = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

export function parseDiff(diff: string, language: string | undefined): DiffRow[] {
  const rows: DiffRow[] = [];
  // The code rows of the hunk being read: highlighted together once it ends, so a token that
  // continues on the next line (a comment, a JSX tag) is still read as one.
  let hunk: Array<Extract<DiffRow, { text: string; html: string }>> = [];
  const endHunk = () => {
    const html = highlightLines(hunk.map((r) => r.text).join('\n'), language);
    hunk.forEach((r, i) => (r.html = html[i] ?? ''));
    hunk = [];
  };
  let oldLine = 0;
  let newLine = 0;
  const lines = diff.replace(/\r\n/g, '\n').split('\n');
  // The line break after the last line is no line of its own.
  if (lines.at(-1) === '') lines.pop();
  for (const line of lines) {
    const header = hunkHeader.exec(line);
    if (header) {
      endHunk();
      oldLine = Number(header[1]);
      newLine = Number(header[2]);
      rows.push({ kind: 'hunk', header: line });
      continue;
    }
    const sign = line.charAt(0);
    if (sign === '\\') {
      // "\ No newline at end of file": about the line above, not a line of the file.
      rows.push({ kind: 'note', text: line.slice(1).trim() });
      continue;
    }
    let row: (typeof hunk)[number];
    if (sign === '+') row = { kind: 'add', oldNumber: null, newNumber: newLine++, text: line.slice(1), html: '' };
    else if (sign === '-') row = { kind: 'del', oldNumber: oldLine++, newNumber: null, text: line.slice(1), html: '' };
    // A context line, also one whose leading space was trimmed away on the way.
    else row = { kind: 'context', oldNumber: oldLine++, newNumber: newLine++, text: sign === ' ' ? line.slice(1) : line, html: '' };
    rows.push(row);
    hunk.push(row);
  }
  endHunk();
  return rows;
}
