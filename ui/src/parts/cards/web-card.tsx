import type { DynamicToolUIPart } from 'ai';
import { asRecord, unwrapToolOutput } from '../tool-output';
import { ToolState, inputField } from '../tool-state';
import { CardShell } from './card-shell';

/** Every URL an output mentions, as source chips (runtime-b sends page and source URLs as
 *  later outputs of the same call). */
function sources(part: DynamicToolUIPart): string[] {
  const found = new Set<string>();
  const url = inputField(part.input, 'url');
  if (url) found.add(url);
  const walk = (v: unknown, depth: number) => {
    if (depth > 6 || found.size >= 12) return;
    if (typeof v === 'string') {
      for (const m of v.matchAll(/https?:\/\/[^\s"'<>)\]]+/g)) found.add(m[0]);
    } else if (Array.isArray(v)) v.forEach((x) => walk(x, depth + 1));
    else if (v && typeof v === 'object') Object.values(asRecord(v)).forEach((x) => walk(x, depth + 1));
  };
  if (part.state === 'output-available') walk(unwrapToolOutput(part.output), 0);
  return [...found];
}

function host(u: string): string {
  try {
    return new URL(u).host;
  } catch {
    return u;
  }
}

export function WebCard({ part }: { part: DynamicToolUIPart }) {
  const query = inputField(part.input, 'query', 'url') ?? '';
  const chips = sources(part);
  return (
    <CardShell testId="web" icon="globe" title={<span><span className="font-medium">{part.toolName === 'WebSearch' ? 'Search' : 'Fetch'}</span> <span className="text-zinc-600">{query}</span></span>} state={<ToolState part={part} />} defaultOpen>
      <div className="flex flex-wrap gap-1.5" data-testid="source-chips">
        {chips.length === 0 ? <span className="text-xs text-zinc-500">No sources yet</span> : null}
        {chips.map((u) => (
          <a key={u} href={u} target="_blank" rel="noreferrer noopener" className="rounded-full border border-zinc-200 bg-zinc-50 px-2 py-0.5 text-xs text-zinc-700 hover:bg-zinc-100" title={u}>
            {host(u)}
          </a>
        ))}
      </div>
    </CardShell>
  );
}
