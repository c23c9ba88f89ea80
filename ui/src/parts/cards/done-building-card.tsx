import type { DynamicToolUIPart } from 'ai';
import { Badge } from '../../components/badge';
import { asRecord, unwrapToolOutput } from '../tool-output';
import { CardShell } from './card-shell';

function Check({ label, check }: { label: string; check: Record<string, unknown> }) {
  const ok = check.ok === true;
  const ms = typeof check.durationMs === 'number' ? ` · ${(check.durationMs / 1000).toFixed(1)} s` : '';
  return (
    <div className="mt-1">
      <div className="flex items-center gap-2 text-xs">
        <Badge tone={ok ? 'green' : 'red'}>{ok ? 'passed' : check.timedOut ? 'timed out' : 'failed'}</Badge>
        <span className="font-medium">{label}</span>
        <span className="text-zinc-500">{ms}</span>
      </div>
      {!ok && typeof check.output === 'string' ? <pre className="mt-1 max-h-60 overflow-auto rounded bg-zinc-900 p-2 font-mono text-xs whitespace-pre-wrap text-zinc-100">{check.output}</pre> : null}
    </div>
  );
}

export function DoneBuildingCard({ part }: { part: DynamicToolUIPart }) {
  if (part.state !== 'output-available' && part.state !== 'output-error')
    return (
      <div className="my-2 flex items-center gap-2 rounded-lg border border-zinc-200 bg-white px-3 py-2 text-sm" data-card="done-building">
        <span className="size-2 animate-pulse rounded-full bg-amber-400" /> Type-checking and building…
      </div>
    );
  const out = asRecord(unwrapToolOutput(part.output));
  const ok = out.ok === true;
  return (
    <CardShell
      testId="done-building"
      icon={ok ? 'check' : 'cross'}
      title={<span className="font-medium">{ok ? 'Built — preview updated' : 'Build failed'}</span>}
      state={<Badge tone={ok ? 'green' : 'red'}>{ok ? 'ok' : 'failed'}</Badge>}
      defaultOpen={!ok}
    >
      <Check label="Type check" check={asRecord(out.typecheck)} />
      <Check label="Build" check={asRecord(out.build)} />
    </CardShell>
  );
}
