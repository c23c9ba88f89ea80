import type { DynamicToolUIPart } from 'ai';
import { unwrapToolOutput } from '../tool-output';
import { ToolState } from '../tool-state';
import { useAppToolSpec } from '../use-app-tool-spec';
import { CardShell, JsonBlock } from './card-shell';

const titleCase = (s: string) => s.replace(/[_-]+/g, ' ').replace(/\b\w/g, (c) => c.toUpperCase());

function hostOf(url: string | undefined): string {
  if (!url) return '';
  try {
    return new URL(url.replace(/\{\{[^}]*\}\}/g, 'x')).host;
  } catch {
    return '';
  }
}

/** mcp__app_tools__*: integration, display name or title-cased name, method and host, with
 *  Input and Output on demand (spec rendering table). */
export function AppToolCard({ part, workspaceId, appId }: { part: DynamicToolUIPart; workspaceId: string; appId: string }) {
  const name = part.toolName.slice('mcp__app_tools__'.length);
  const spec = useAppToolSpec(workspaceId, appId, name);
  const method = spec?.endpoint?.method?.toUpperCase();
  const host = hostOf(spec?.endpoint?.url);
  return (
    <CardShell
      testId="app-tool"
      icon="plug"
      title={
        <span>
          {spec?.integration?.name ? <span className="mr-1.5 text-xs text-zinc-500" data-testid="app-tool-integration">{spec.integration.name}</span> : null}
          <span className="font-medium" data-testid="app-tool-name">{spec?.displayName ?? titleCase(name)}</span>
        </span>
      }
      meta={
        method || host ? (
          <span className="font-mono text-xs text-zinc-500" data-testid="app-tool-endpoint">
            {method} {host}
          </span>
        ) : undefined
      }
      state={<ToolState part={part} />}
    >
      <JsonBlock label="Input" value={part.input} />
      {part.state === 'output-available' ? <JsonBlock label="Output" value={unwrapToolOutput(part.output)} /> : null}
      {part.state === 'output-error' ? <JsonBlock label="Error" value={part.errorText} /> : null}
    </CardShell>
  );
}
