import type { DynamicToolUIPart } from 'ai';
import { toolOutputText } from '../tool-output';
import { ToolState, inputField } from '../tool-state';
import { CardShell } from './card-shell';

export function TerminalCard({ part }: { part: DynamicToolUIPart }) {
  const command = inputField(part.input, 'command', 'cmd') ?? '';
  const output = part.state === 'output-error' ? (part.errorText ?? '') : part.output === undefined ? '' : toolOutputText(part.output);
  return (
    <CardShell testId="terminal" icon="terminal" title={<code className="font-mono text-xs">{command || 'shell'}</code>} state={<ToolState part={part} />} defaultOpen={part.state !== 'output-available' || !!part.preliminary}>
      <pre className="max-h-80 overflow-auto rounded bg-zinc-900 p-2 font-mono text-xs whitespace-pre-wrap text-zinc-100" data-testid="terminal-output">
        <span className="text-emerald-400">$ </span>
        {command}
        {'\n'}
        {output}
      </pre>
    </CardShell>
  );
}
