import type { DynamicToolUIPart } from 'ai';
import { unwrapToolOutput } from '../tool-output';
import { ToolState } from '../tool-state';
import { CardShell, JsonBlock } from './card-shell';

/** Every other dynamic tool: its name, and input and output on demand. */
export function InlineCard({ part }: { part: DynamicToolUIPart }) {
  const name = part.toolName.replace(/^mcp__platform__/, '');
  return (
    <CardShell testId="inline" icon="gear" title={<span className="font-mono text-xs">{name}</span>} state={<ToolState part={part} />}>
      <JsonBlock label="Input" value={part.input} />
      {part.state === 'output-available' ? <JsonBlock label="Output" value={unwrapToolOutput(part.output)} /> : null}
      {part.state === 'output-error' ? <JsonBlock label="Error" value={part.errorText} /> : null}
    </CardShell>
  );
}
