import { useState } from 'react';
import { mutate } from 'swr';
import { useDetection, useMe, useRuntimes } from '../api/queries';
import { keys } from '../api/endpoints';
import { api } from '../api/client';
import type { ProviderDetection, RuntimeDetection } from '../api/types';
import { Badge } from '../components/badge';
import { ErrorNotice } from '../components/error-notice';
import { Spinner } from '../components/spinner';
import { navigate, paths } from '../routing/location';
import { ProviderKeyForm } from './provider-key-form';

const names: Record<string, { title: string; cli: string; credential: string }> = {
  'runtime-a': { title: 'Claude Code', cli: 'claude', credential: 'ANTHROPIC_API_KEY' },
  'runtime-b': { title: 'Codex', cli: 'codex', credential: 'CODEX_API_KEY' },
  'runtime-c': { title: 'opencode', cli: 'opencode', credential: 'the provider of the chosen model' },
};

/** Local mode's provider setup (spec "Authentication" 6, 7): which runtime CLIs the worker
 *  found, whether each has credentials, and a key entry that makes runtime-a usable at once. */
export function OnboardingPage() {
  const { data, error, isValidating } = useDetection(true);
  const { data: runtimes } = useRuntimes();
  const { data: me } = useMe();
  // A saved key changes what is ready: the picker's marks come from the runtimes route.
  const refresh = () => {
    void mutate(keys.detect);
    void mutate(keys.runtimes);
  };
  // After a CLI login on the worker's machine: the worker probes again at once.
  // When the last Check again answered, so the click is seen to have done something even when
  // nothing changed (a moment of the page's own, not server state).
  const [checkedAt, setCheckedAt] = useState<number | null>(null);
  const checkAgain = () => {
    setCheckedAt(null);
    void mutate(keys.runtimes);
    void mutate(keys.detect, api<ProviderDetection>(keys.detectFresh, { noStore: true }), { revalidate: false }).then(
      () => setCheckedAt(Date.now()),
      () => setCheckedAt(null),
    );
  };
  // External deployments set their provider up before deployment (spec "Authentication" 6);
  // a page still open from elsewhere says so instead of offering a key form.
  if (me && !me.defaultWorkspaceId) {
    return (
      <div className="min-h-full bg-zinc-50 px-4 py-6 sm:px-6 sm:py-10">
        <p className="mx-auto max-w-2xl text-sm text-zinc-600">The model providers of this deployment are set up by its operator.</p>
      </div>
    );
  }
  // "Ready" is the worker's (credentials present for the runtime's default model, no model
  // call), as the runtime picker shows it; the detection only says the CLI is there.
  const readiness = (id: string) => runtimes?.runtimes.find((r) => r.id === id);
  const ready = (id: string, d: RuntimeDetection) => d.usable && readiness(id)?.ready !== false;

  return (
    <div className="min-h-full bg-zinc-50 px-4 py-6 sm:px-6 sm:py-10">
      <div className="mx-auto max-w-2xl">
        <h1 className="text-xl font-semibold">Set up a model provider</h1>
        <p className="mt-1 text-sm text-zinc-600">
          The builder runs one of three agent runtimes on the worker. Each needs its CLI and a way to reach its model provider. Keys entered here go to the worker, which keeps them for that runtime only; they are never shown again.
        </p>
        {runtimes?.demoProvider && data?.runtimes['runtime-a']?.demo !== false ? (
          <p className="mt-3 rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900" data-testid="demo-note">
            The platform runs on the <strong>demo provider</strong> now: scripted replies. Enter a key for Claude Code below, or log in with <code className="font-mono">claude</code> on the worker's machine, and the next turn uses a real model; no restart needed.
          </p>
        ) : null}
        <ErrorNotice error={error} className="mt-4" />
        {!data && !error ? <Spinner label="Asking the worker what it has (a few seconds)" /> : null}
        <div className="mt-6 space-y-3">
          {data
            ? Object.entries(data.runtimes).map(([id, d]) => {
                const n = names[id] ?? { title: id, cli: id, credential: '' };
                const ok = ready(id, d);
                return (
                  <section key={id} className="rounded-xl border border-zinc-200 bg-white p-4" data-testid={`runtime-${id}`}>
                    <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
                      <h2 className="font-medium">{n.title}</h2>
                      {/* Below sm on a line of its own, under the title and the badge. */}
                      <span className="text-xs text-zinc-500 max-sm:order-last max-sm:basis-full">
                        {id}
                        {d.version ? ` · ${n.cli} ${d.version}` : ''}
                      </span>
                      <span className="flex-1" />
                      {!d.installed ? <Badge tone="red">Not installed</Badge> : !d.usable ? <Badge tone="red">Not usable</Badge> : ok ? <Badge tone="green">Ready</Badge> : <Badge tone="amber">Needs credentials</Badge>}
                    </div>
                    {d.reason ? <p className="mt-1 text-sm text-zinc-600">{d.reason}</p> : null}
                    {d.usable && !ok && readiness(id)?.notReadyReason ? (
                      <p className="mt-1 text-sm text-zinc-600" data-testid={`not-ready-${id}`}>
                        {readiness(id)?.notReadyReason}
                      </p>
                    ) : null}
                    {id === 'runtime-a' && d.loggedIn && !data.auth.ANTHROPIC_API_KEY ? (
                      <p className="mt-2 text-sm text-zinc-600">Uses the Claude Code login on the worker's machine. A key entered here takes priority (API billing).</p>
                    ) : null}
                    {id === 'runtime-a' && d.installed && !ok ? (
                      <p className="mt-2 text-sm text-zinc-600">
                        Enter a key below, or log in with the CLI's own login on the worker's machine (<code className="font-mono">claude</code>, then <code className="font-mono">/login</code>) and check again.
                      </p>
                    ) : null}
                    {id === 'runtime-a' && d.installed ? <ProviderKeyForm name="ANTHROPIC_API_KEY" configured={!!data.auth.ANTHROPIC_API_KEY} onSaved={refresh} /> : null}
                    {id === 'runtime-b' && d.installed && !ok ? (
                      <p className="mt-2 text-sm text-zinc-600">
                        Enter an OpenAI API key below. A ChatGPT login (<code className="font-mono">codex login</code>) stays outside the sandbox every agent runs in, so it cannot serve turns.
                      </p>
                    ) : null}
                    {id === 'runtime-b' && d.installed ? <ProviderKeyForm name="CODEX_API_KEY" configured={!!data.auth.CODEX_API_KEY} onSaved={refresh} /> : null}
                    {id === 'runtime-c' && d.usable ? <p className="mt-2 text-sm text-zinc-600">Uses {n.credential}, from the operator's opencode configuration.</p> : null}
                  </section>
                );
              })
            : null}
        </div>
        <div className="mt-6 flex flex-wrap items-center gap-3">
          <button type="button" className="text-sm text-accent underline" onClick={() => navigate(paths.workspace(me?.defaultWorkspaceId ?? 'default'))}>
            Continue to your apps
          </button>
          <button type="button" className="text-sm text-zinc-600 underline" onClick={checkAgain} data-testid="check-again">
            Check again
          </button>
          {isValidating && data ? (
            <Spinner label="Checking again" />
          ) : checkedAt !== null ? (
            <span className="text-sm text-zinc-500" role="status" data-testid="checked-at">
              Checked again at {new Date(checkedAt).toLocaleTimeString()}.
            </span>
          ) : null}
        </div>
      </div>
    </div>
  );
}
