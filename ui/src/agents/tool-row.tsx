import type { AgentsJsonTool } from '../api/types';
import { Badge } from '../components/badge';
import { cn } from '../components/cn';
import { endpointHost } from './endpoint-host';

/** One tool of an agent or one app action: what it calls and whether it is switched on. */
export function ToolRow({ tool, editable, saving, onToggle }: { tool: AgentsJsonTool; editable: boolean; saving: boolean; onToggle: (enabled: boolean) => void }) {
  // A tool without `enabled` runs: only an explicit false switches it off.
  const enabled = tool.enabled !== false;
  const method = tool.endpoint?.method?.toUpperCase();
  const host = endpointHost(tool.endpoint?.url);
  return (
    <li className="flex items-start gap-3 px-3 py-2" data-testid={`tool-${tool.name}`} data-enabled={enabled}>
      <div className="min-w-0 flex-1">
        <div className="flex flex-wrap items-center gap-1.5 text-sm">
          <span className={cn('font-medium', !enabled && 'text-zinc-400 line-through')}>{tool.displayName ?? tool.name}</span>
          {tool.displayName ? <code className="font-mono text-xs text-zinc-400">{tool.name}</code> : null}
          {tool.recommended ? <Badge tone="violet">Highly Recommended</Badge> : null}
          {tool.type === 'builtin' ? <Badge>Built-in</Badge> : null}
        </div>
        <div className="mt-0.5 flex flex-wrap items-center gap-x-2 text-xs text-zinc-500">
          {tool.integration?.name ? <span>{tool.integration.name}</span> : null}
          {method || host ? (
            <code className="font-mono" data-testid={`tool-endpoint-${tool.name}`}>
              {method} {host}
            </code>
          ) : null}
        </div>
        {tool.description ? <p className="mt-0.5 text-xs text-zinc-600">{tool.description}</p> : null}
      </div>
      <div className="flex shrink-0 items-center gap-2 text-xs text-zinc-600">
        {enabled ? 'Enabled' : 'Disabled'}
        <button
          type="button"
          role="switch"
          aria-checked={enabled}
          aria-label={`${tool.displayName ?? tool.name} enabled`}
          data-testid={`tool-toggle-${tool.name}`}
          disabled={!editable || saving}
          title={editable ? undefined : 'Only a workspace admin or owner, or the app’s creator, can switch tools'}
          onClick={() => onToggle(!enabled)}
          className={cn(
            'relative h-5 w-9 rounded-full transition-colors focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent disabled:cursor-not-allowed disabled:opacity-60',
            enabled ? 'bg-accent' : 'bg-zinc-300',
          )}
        >
          <span aria-hidden className={cn('absolute top-0.5 left-0.5 size-4 rounded-full bg-white shadow transition-transform', enabled && 'translate-x-4')} />
        </button>
      </div>
    </li>
  );
}
