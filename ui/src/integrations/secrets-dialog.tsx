import { useState } from 'react';
import useSWR from 'swr';
import { api } from '../api/client';
import { keys } from '../api/queries';
import { Badge } from '../components/badge';
import { Button } from '../components/button';
import { Dialog } from '../components/dialog';
import { ErrorNotice } from '../components/error-notice';
import { Spinner } from '../components/spinner';
import type { IntegrationsView } from './types';

/** Write-only secrets: a saved value is sent once and never shown again (the input is
 *  cleared and unmounted; the API answers names and `configured`, never values). */
export function SecretsDialog({ open, onOpenChange, workspaceId, appId }: { open: boolean; onOpenChange: (o: boolean) => void; workspaceId: string; appId: string }) {
  const key = keys.integrations(workspaceId, appId);
  const { data, error, mutate } = useSWR<IntegrationsView>(open ? key : null, (p: string) => api<IntegrationsView>(p), { revalidateOnFocus: false });
  return (
    <Dialog open={open} onOpenChange={onOpenChange} title="Set up integrations" description="Secrets are stored encrypted for this app. Saved values are never shown again." wide>
      {error ? <ErrorNotice error={error} /> : !data ? <Spinner label="Loading integrations" /> : null}
      {data?.integrations.length === 0 ? <p className="text-sm text-zinc-600">This app needs no integrations yet.</p> : null}
      <div className="space-y-4">
        {data?.integrations.map((i) => (
          <div key={`${i.domain}/${i.keySlug}`} className="rounded-lg border border-zinc-200 p-3">
            <div className="flex items-center gap-2">
              <span className="font-medium">{i.name ?? i.domain}</span>
              <span className="text-xs text-zinc-500">{i.domain}</span>
            </div>
            <div className="mt-2 space-y-2">
              {i.secrets.map((s) => (
                <SecretRow key={s.name} workspaceId={workspaceId} appId={appId} domain={i.domain} keySlug={i.keySlug} secret={s} onSaved={() => void mutate()} />
              ))}
            </div>
          </div>
        ))}
      </div>
      <div className="mt-4 flex justify-end">
        <Button onClick={() => onOpenChange(false)}>Done</Button>
      </div>
    </Dialog>
  );
}

function SecretRow({
  workspaceId,
  appId,
  domain,
  keySlug,
  secret,
  onSaved,
}: {
  workspaceId: string;
  appId: string;
  domain: string;
  keySlug: string;
  secret: { name: string; label?: string; configured: boolean };
  onSaved: () => void;
}) {
  const [value, setValue] = useState('');
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const save = async () => {
    setSaving(true);
    setError(null);
    try {
      await api(`${keys.integrations(workspaceId, appId)}/secrets`, { method: 'PUT', body: { domain, keySlug, name: secret.name, value } });
      setValue('');
      onSaved();
    } catch (e) {
      setError(e);
    } finally {
      setSaving(false);
    }
  };
  return (
    <form
      className="flex flex-wrap items-center gap-2"
      onSubmit={(e) => {
        e.preventDefault();
        if (value) void save();
      }}
    >
      <label className="w-44 shrink-0 font-mono text-xs" htmlFor={`secret-${domain}-${secret.name}`}>
        {secret.label ?? secret.name}
      </label>
      <input
        id={`secret-${domain}-${secret.name}`}
        type="password"
        autoComplete="off"
        value={value}
        onChange={(e) => setValue(e.target.value)}
        placeholder={secret.configured ? 'Saved — enter a new value to replace it' : 'Value'}
        className="min-w-0 flex-1 rounded-md border border-zinc-300 px-2 py-1 text-sm focus:border-accent focus:outline-none"
      />
      <Button type="submit" variant="primary" disabled={!value || saving}>
        Save
      </Button>
      {secret.configured ? <Badge tone="green">Configured</Badge> : <Badge tone="amber">Not set</Badge>}
      <ErrorNotice error={error} className="w-full" />
    </form>
  );
}
