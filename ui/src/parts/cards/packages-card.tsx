import type { DynamicToolUIPart } from 'ai';
import { Badge } from '../../components/badge';
import { Icon } from '../../components/icon';
import { asRecord, unwrapToolOutput } from '../tool-output';
import { ToolState } from '../tool-state';
import { CardShell } from './card-shell';

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

/** add_packages: one line while it installs and once the packages are in ("Added clsx@2.1.1");
 *  a card with each refused spec or npm's error when nothing was added. */
export function PackagesCard({ part }: { part: DynamicToolUIPart }) {
  const asked = strings(asRecord(part.input).packages);
  const done = part.state === 'output-available' || part.state === 'output-error';
  const out = asRecord(unwrapToolOutput(part.state === 'output-error' ? part.errorText : part.output));
  if (!done || out.status === 'ok') {
    const added = out.status === 'ok' ? strings(out.added) : asked;
    return (
      <div className="my-1 flex min-w-0 items-center gap-2 px-1 text-sm text-zinc-600" data-card="packages" data-status={done ? 'ok' : 'running'}>
        <Icon name="package" className="size-4 shrink-0 text-zinc-500" />
        <span className="font-medium text-zinc-800">{done ? 'Added' : 'Adding'}</span>
        <code className="min-w-0 truncate font-mono text-xs">{added.join(', ')}</code>
        <ToolState part={part} />
      </div>
    );
  }
  const problems = (Array.isArray(out.problems) ? out.problems : []).map(asRecord);
  const npmOutput = asRecord(out.npm).output;
  const fallback = typeof out.error !== 'string' && problems.length === 0 ? (part.errorText ?? '') : '';
  return (
    <div data-status="failed">
      <CardShell
        testId="packages"
        icon="package"
        title={<span className="font-medium">Packages not added</span>}
        meta={<code className="min-w-0 truncate font-mono text-xs text-zinc-500">{asked.join(', ')}</code>}
        state={<Badge tone="red">failed</Badge>}
        defaultOpen
      >
        {problems.length > 0 ? (
          <ul className="space-y-1 text-xs" data-testid="package-problems">
            {problems.map((p, i) => (
              <li key={i}>
                <code className="mr-1 rounded bg-zinc-100 px-1 font-mono">{String(p.code ?? '')}</code>
                {String(p.message ?? '')}
              </li>
            ))}
          </ul>
        ) : null}
        {typeof out.error === 'string' ? <p className="text-xs text-zinc-700">{out.error}</p> : null}
        {typeof npmOutput === 'string' && npmOutput ? (
          <pre className="mt-1 max-h-60 overflow-auto rounded bg-zinc-900 p-2 font-mono text-xs whitespace-pre-wrap text-zinc-100">{npmOutput}</pre>
        ) : null}
        {fallback ? <p className="text-xs text-zinc-700">{fallback}</p> : null}
      </CardShell>
    </div>
  );
}
