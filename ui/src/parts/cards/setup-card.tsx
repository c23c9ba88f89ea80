import type { DynamicToolUIPart } from 'ai';
import { useState } from 'react';
import { useChatActions } from '../../chat/chat-actions';
import { Badge } from '../../components/badge';
import { Button } from '../../components/button';
import { SecretsDialog } from '../../integrations/secrets-dialog';
import { asRecord, unwrapToolOutput } from '../tool-output';

interface SetupIntegration {
  name: string;
  domain: string;
  keySlug?: string;
  secrets?: string[];
}

export function SetupCard({ part }: { part: DynamicToolUIPart }) {
  const { workspaceId, appId } = useChatActions();
  const [open, setOpen] = useState(false);
  if (part.state !== 'output-available') return <div className="my-2 text-sm text-zinc-500">Preparing integration setup…</div>;
  const card = asRecord(unwrapToolOutput(part.output));
  const integrations = (Array.isArray(card.integrations) ? card.integrations : []) as SetupIntegration[];
  if (card.status === 'needs_changes')
    return (
      <section className="my-2 rounded-xl border border-amber-300 bg-white px-4 py-3 text-sm" data-card="setup">
        <div className="font-medium">integration-setup.json needs changes</div>
        <p className="text-zinc-600">The builder is fixing it.</p>
      </section>
    );
  return (
    <section className="my-2 rounded-xl border border-sky-200 bg-white shadow-sm" data-card="setup">
      <header className="flex items-center gap-2 border-b border-zinc-100 px-4 py-2.5">
        <span className="text-xs font-semibold tracking-wide text-sky-700 uppercase">Integrations</span>
        <h3 className="flex-1 text-sm font-semibold">
          {integrations.length} integration{integrations.length === 1 ? '' : 's'} to connect
        </h3>
        <Badge tone="blue">Setup</Badge>
      </header>
      <ul className="space-y-1 px-4 py-3 text-sm">
        {integrations.map((i) => (
          <li key={`${i.domain}/${i.keySlug ?? 'default'}`} className="flex flex-wrap items-center gap-2">
            <span className="font-medium">{i.name}</span>
            <span className="text-xs text-zinc-500">{i.domain}</span>
            {(i.secrets ?? []).map((s) => (
              <code key={s} className="rounded bg-zinc-100 px-1 font-mono text-xs">
                {s}
              </code>
            ))}
          </li>
        ))}
      </ul>
      <footer className="border-t border-zinc-100 px-4 py-3">
        <Button variant="primary" onClick={() => setOpen(true)}>
          Set up integrations
        </Button>
      </footer>
      <SecretsDialog open={open} onOpenChange={setOpen} workspaceId={workspaceId} appId={appId} />
    </section>
  );
}
