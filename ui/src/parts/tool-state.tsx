import type { DynamicToolUIPart } from 'ai';
import { Icon } from '../components/icon';

/** A small status mark every tool card shows: running, done or failed. */
export function ToolState({ part }: { part: DynamicToolUIPart }) {
  if (part.state === 'output-error') return <span className="text-xs font-medium text-red-600">failed</span>;
  if (part.state === 'output-available' && !part.preliminary) return (
      <span className="text-emerald-600" aria-label="done">
        <Icon name="check" className="size-3.5" />
      </span>
    );
  return <span className="size-2 animate-pulse rounded-full bg-amber-400" aria-label="running" />;
}

export const toolDone = (part: DynamicToolUIPart) => part.state === 'output-available' && !part.preliminary;

export function inputField(input: unknown, ...names: string[]): string | undefined {
  if (!input || typeof input !== 'object') return undefined;
  const o = input as Record<string, unknown>;
  for (const n of names) if (typeof o[n] === 'string') return o[n];
  return undefined;
}

/** Paths in cards are shown relative to the app workspace. */
export function shortPath(p: string | undefined): string {
  if (!p) return '';
  return p.replace(/^\/workspace\/app\//, '').replace(/^.*\/workspaces\/[^/]+\//, '');
}
