import type { DynamicToolUIPart } from 'ai';
import { useChatActions } from '../../chat/chat-actions';
import { Button } from '../../components/button';
import { Badge } from '../../components/badge';
import { asRecord, unwrapToolOutput } from '../tool-output';
import { RequestChanges } from './request-changes';

export const planApprovedMessage = 'Approved. Build it as planned.';

export function PlanCard({ part }: { part: DynamicToolUIPart }) {
  const { pending, send, busy } = useChatActions();
  const done = part.state === 'output-available';
  const card = done ? asRecord(unwrapToolOutput(part.output)) : asRecord(part.input);
  const steps = Array.isArray(card.steps) ? card.steps.filter((s): s is string => typeof s === 'string') : [];
  const waiting = pending?.toolCallId === part.toolCallId;
  return (
    <section className="my-2 rounded-xl border border-indigo-200 bg-white shadow-sm" data-card="plan">
      <header className="flex items-center gap-2 border-b border-indigo-100 bg-accent-soft/60 px-4 py-2.5">
        <span className="text-xs font-semibold tracking-wide text-accent uppercase">Plan</span>
        <h3 className="flex-1 truncate text-sm font-semibold">{typeof card.title === 'string' ? card.title : 'Plan'}</h3>
        {waiting ? <Badge tone="amber">Waiting for you</Badge> : done ? <Badge tone="neutral">Answered</Badge> : <Badge tone="blue">Drafting</Badge>}
      </header>
      <div className="px-4 py-3 text-sm">
        {typeof card.summary === 'string' ? <p className="mb-2 text-zinc-700">{card.summary}</p> : null}
        <ol className="list-decimal space-y-1 pl-5 text-zinc-800">
          {steps.map((s, i) => (
            <li key={i}>{s}</li>
          ))}
        </ol>
      </div>
      {waiting ? (
        <footer className="flex flex-wrap items-start gap-2 border-t border-zinc-100 px-4 py-3">
          <Button variant="primary" disabled={busy} onClick={() => void send(planApprovedMessage)}>
            Approve &amp; Build
          </Button>
          <RequestChanges onSend={send} disabled={busy} />
        </footer>
      ) : null}
    </section>
  );
}
