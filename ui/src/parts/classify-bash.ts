// Read-only shell wrappers render as the file tool they stand for (spec "Rendering of message
// parts": cat, sed, ls, find, rg --files become Read, List or Grep cards). Anything with a
// pipe into a writer, a redirect, a chain or a substitution stays a terminal card.
export type ShellReadKind = 'Read' | 'List' | 'Grep';

export interface ShellRead {
  kind: ShellReadKind;
  target: string;
}

const unsafe = /[;&|`$<>]|\n/;

export function classifyBash(command: string): ShellRead | null {
  let cmd = command.trim();
  // `cd dir && cat x` is still a read of x.
  const cd = /^cd\s+("[^"]*"|'[^']*'|[^\s;&|]+)\s*&&\s*/.exec(cmd);
  if (cd) cmd = cmd.slice(cd[0].length);
  if (!cmd || unsafe.test(cmd)) return null;
  const words = cmd.split(/\s+/);
  const [prog, ...args] = words;
  const operands = args.filter((a) => !a.startsWith('-'));
  const last = operands[operands.length - 1] ?? '.';
  switch (prog) {
    case 'cat':
    case 'head':
    case 'tail':
    case 'less':
    case 'nl':
    case 'wc':
      return operands.length ? { kind: 'Read', target: operands.join(' ') } : null;
    case 'sed':
      // Only `sed -n` is a read; `sed -i` edits.
      return args.includes('-n') && !args.some((a) => a.startsWith('-i')) ? { kind: 'Read', target: last } : null;
    case 'ls':
    case 'tree':
      return { kind: 'List', target: operands.join(' ') || '.' };
    case 'find':
      if (args.some((a) => a === '-delete' || a === '-exec' || a === '-execdir' || a === '-ok')) return null;
      return { kind: 'List', target: operands[0] ?? '.' };
    case 'rg':
      if (args.includes('--files')) return { kind: 'List', target: operands[0] ?? '.' };
      return operands.length ? { kind: 'Grep', target: operands.join(' ') } : null;
    case 'grep':
    case 'ag':
      return operands.length ? { kind: 'Grep', target: operands.join(' ') } : null;
    default:
      return null;
  }
}
