// Whether a run waits at an approval stop, derived from its persisted messages alone (spec
// "Approval stops"): the last message is the assistant's and its last platform card is a
// plan or a valid agents card. Every tab and every reload derives the same answer.
import type { DynamicToolUIPart, UIMessage } from 'ai';
import { asRecord, unwrapToolOutput } from '../parts/tool-output';

export type PendingApproval =
  | { kind: 'plan'; toolCallId: string; card: Record<string, unknown> }
  | { kind: 'agents'; toolCallId: string; card: Record<string, unknown> };

const stopTools: Record<string, PendingApproval['kind']> = {
  mcp__platform__present_plan: 'plan',
  mcp__platform__present_agents: 'agents',
};

export function pendingApproval(messages: readonly UIMessage[]): PendingApproval | null {
  const last = messages[messages.length - 1];
  if (!last || last.role !== 'assistant') return null;
  for (let i = last.parts.length - 1; i >= 0; i--) {
    const part = last.parts[i];
    if (part?.type !== 'dynamic-tool') continue;
    const kind = stopTools[(part as DynamicToolUIPart).toolName];
    if (!kind) continue;
    if (part.state !== 'output-available') return null;
    const card = asRecord(unwrapToolOutput(part.output));
    if (card.status !== 'awaiting_approval') return null;
    return { kind, toolCallId: part.toolCallId, card };
  }
  return null;
}
