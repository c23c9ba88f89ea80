import type { AgentsJsonTool } from '../api/types';
import { ToolRow } from './tool-row';

/** An agent (or the app actions) with its tools; `onToggle` switches one tool by name. */
export function AgentSection({
  testId,
  title,
  subtitle,
  description,
  collections,
  tools,
  editable,
  saving,
  onToggle,
}: {
  testId: string;
  title: string;
  subtitle?: string;
  description?: string;
  collections?: string[];
  tools: AgentsJsonTool[];
  editable: boolean;
  saving: boolean;
  onToggle: (name: string, enabled: boolean) => void;
}) {
  return (
    <section className="rounded-lg border border-zinc-200 bg-white" data-testid={testId}>
      <header className="border-b border-zinc-100 px-3 py-2">
        <div className="flex items-baseline gap-2">
          <h3 className="text-sm font-semibold">{title}</h3>
          {subtitle ? <code className="font-mono text-xs text-zinc-400">{subtitle}</code> : null}
        </div>
        {description ? <p className="mt-0.5 text-sm text-zinc-600">{description}</p> : null}
        {collections?.length ? <p className="mt-0.5 text-xs text-zinc-500">Data: {collections.join(', ')}</p> : null}
      </header>
      {tools.length ? (
        <ul className="divide-y divide-zinc-100">
          {tools.map((t) => (
            <ToolRow key={t.name} tool={t} editable={editable} saving={saving} onToggle={(enabled) => onToggle(t.name, enabled)} />
          ))}
        </ul>
      ) : (
        <p className="px-3 py-2 text-xs text-zinc-500">No tools.</p>
      )}
    </section>
  );
}
