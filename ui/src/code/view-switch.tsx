import { cn } from '../components/cn';
import type { CodeView } from './use-code-place';

const views: Array<{ id: CodeView; label: string }> = [
  { id: 'files', label: 'Files' },
  { id: 'changes', label: 'Changes' },
];

/** Files (a version's tree and text) or Changes (each turn's diff). */
export function ViewSwitch({ view, onChange }: { view: CodeView; onChange: (v: CodeView) => void }) {
  return (
    <div className="flex shrink-0 rounded-lg bg-zinc-100 p-0.5" role="group" aria-label="Code view">
      {views.map((v) => (
        <button
          key={v.id}
          type="button"
          aria-pressed={view === v.id}
          onClick={() => onChange(v.id)}
          className={cn('rounded-md px-3 py-1 text-sm', view === v.id ? 'bg-white font-medium text-zinc-900 shadow-sm' : 'text-zinc-600 hover:text-zinc-900')}
          data-testid={`code-view-${v.id}`}
        >
          {v.label}
        </button>
      ))}
    </div>
  );
}
