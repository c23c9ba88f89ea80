import type { DynamicToolUIPart } from 'ai';
import { useState } from 'react';
import { mutate } from 'swr';
import { keys, mutations, send as sendMutation } from '../../api/endpoints';
import { canApproveAgents, useChatActions } from '../../chat/chat-actions';
import { Badge } from '../../components/badge';
import { Button } from '../../components/button';
import { ErrorNotice } from '../../components/error-notice';
import { ProblemItems } from '../../agents/problems-list';
import { asRecord, unwrapToolOutput } from '../tool-output';
import { RequestChanges } from './request-changes';

export const agentsApprovedMessage = 'Agents approved. Continue building.';

interface CardTool {
  name: string;
  displayName?: string;
  type?: string;
  recommended?: boolean;
  enabled?: boolean;
  integration?: { name?: string };
  endpoint?: { method?: string; host?: string };
  auth?: string;
}

interface CardAgent {
  id: string;
  name?: string;
  description?: string;
  tools?: CardTool[];
}

export function AgentsCard({ part }: { part: DynamicToolUIPart }) {
  const { pending, send, busy, role, workspaceId, appId } = useChatActions();
  const [error, setError] = useState<unknown>(null);
  const [approving, setApproving] = useState(false);
  if (part.state !== 'output-available') return <div className="my-2 text-sm text-zinc-500">Checking agents.json…</div>;
  const card = asRecord(unwrapToolOutput(part.output));
  const waiting = pending?.toolCallId === part.toolCallId;
  const needsChanges = card.status === 'needs_changes';
  const agents = (Array.isArray(card.agents) ? card.agents : []) as CardAgent[];
  const appTools = (Array.isArray(card.appTools) ? card.appTools : []) as CardTool[];
  const problems = (Array.isArray(card.problems) ? card.problems : []) as Array<{ path?: string; message?: string }>;
  const mayApprove = canApproveAgents(role);

  const approve = async () => {
    setApproving(true);
    setError(null);
    try {
      // The governed approval is recorded first; only then does the builder hear about it.
      // The hash as the tool's output carries it: the server refuses one that is not the draft's.
      await sendMutation(mutations.approveAgents(workspaceId, appId, { approvalHash: card.approvalHash as string }));
      void mutate(keys.agents(workspaceId, appId));
      await send(agentsApprovedMessage);
    } catch (e) {
      setError(e);
    } finally {
      setApproving(false);
    }
  };

  return (
    <section className={`my-2 rounded-xl border bg-white shadow-sm ${needsChanges ? 'border-amber-300' : 'border-violet-200'}`} data-card="agents" data-status={String(card.status)}>
      <header className="flex items-center gap-2 border-b border-zinc-100 px-4 py-2.5">
        <span className="text-xs font-semibold tracking-wide text-violet-700 uppercase">Agents</span>
        <h3 className="flex-1 text-sm font-semibold">{needsChanges ? 'agents.json needs changes' : `${agents.length} agent${agents.length === 1 ? '' : 's'}, ${appTools.length} app action${appTools.length === 1 ? '' : 's'}`}</h3>
        {needsChanges ? <Badge tone="amber">Needs changes</Badge> : waiting ? <Badge tone="amber">Needs approval</Badge> : <Badge>Answered</Badge>}
      </header>
      {needsChanges ? (
        <ProblemItems problems={problems} className="space-y-1 px-4 py-3 text-sm" testId="agents-problems" />
      ) : (
        <div className="space-y-3 px-4 py-3 text-sm">
          {agents.map((a) => (
            <div key={a.id}>
              <div className="font-medium">{a.name ?? a.id}</div>
              {a.description ? <p className="text-zinc-600">{a.description}</p> : null}
              <ToolList tools={a.tools ?? []} />
            </div>
          ))}
          {appTools.length ? (
            <div>
              <div className="font-medium">App actions</div>
              <ToolList tools={appTools} />
            </div>
          ) : null}
        </div>
      )}
      {waiting && !needsChanges ? (
        <footer className="flex flex-wrap items-start gap-2 border-t border-zinc-100 px-4 py-3">
          <Button variant="primary" disabled={!mayApprove || busy || approving} onClick={() => void approve()} title={mayApprove ? undefined : 'Only a workspace admin or owner can approve agents'}>
            Approve agents
          </Button>
          <RequestChanges onSend={send} disabled={busy || approving} />
          {!mayApprove ? <p className="w-full text-xs text-zinc-500">Only a workspace admin or owner can approve agents. You can request changes.</p> : null}
          <ErrorNotice error={error} className="w-full" />
        </footer>
      ) : null}
    </section>
  );
}

function ToolList({ tools }: { tools: CardTool[] }) {
  if (!tools.length) return null;
  return (
    <ul className="mt-1 space-y-1">
      {tools.map((t) => (
        <li key={t.name} className="flex flex-wrap items-center gap-1.5 text-xs">
          <span className="font-medium text-zinc-800">{t.displayName ?? t.name}</span>
          {t.integration?.name ? <span className="text-zinc-500">{t.integration.name}</span> : null}
          {t.endpoint?.method ? (
            <code className="font-mono text-zinc-500">
              {t.endpoint.method} {t.endpoint.host}
            </code>
          ) : null}
          {t.recommended ? <Badge tone="violet">Highly Recommended</Badge> : null}
          {t.enabled === false ? <Badge>Off</Badge> : null}
        </li>
      ))}
    </ul>
  );
}
