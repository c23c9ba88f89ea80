import type { AgentsView } from '../api/types';

/** What makes agents.json invalid, by path, as present_agents reports it. */
export function ProblemsList({ problems }: { problems: AgentsView['problems'] }) {
  if (!problems.length) return null;
  return (
    <div className="rounded-lg border border-amber-300 bg-amber-50 px-3 py-2 text-sm" data-testid="agents-page-problems">
      <p className="font-medium text-amber-900">agents.json needs changes before it can be approved</p>
      <ProblemItems problems={problems} className="mt-1 space-y-0.5" />
    </div>
  );
}

/** The problems alone, one line each (the agents card frames them itself). */
export function ProblemItems({ problems, className, testId }: { problems: Array<{ path?: string; message?: string }>; className: string; testId?: string }) {
  return (
    <ul className={className} data-testid={testId}>
      {problems.map((p, i) => (
        <li key={i} className="flex gap-2">
          <code className="shrink-0 font-mono text-xs text-amber-800">{p.path || '(file)'}</code>
          <span className="text-zinc-700">{p.message}</span>
        </li>
      ))}
    </ul>
  );
}
