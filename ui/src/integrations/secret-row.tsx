import { useState } from 'react';
import { mutations, send } from '../api/endpoints';
import type { IntegrationSecret } from '../api/types';
import { Badge } from '../components/badge';
import { Button } from '../components/button';
import { ErrorNotice } from '../components/error-notice';
import { useAction } from '../settings/use-action';
import { integrationErrors } from './integration-errors';

/** One named secret of an app's grant, write-only: a value is sent once, then the input is
 *  cleared and unmounted; the server answers `configured`, never the value. */
export function SecretRow({
  workspaceId,
  appId,
  domain,
  keySlug,
  secret,
  canManage,
  onChanged,
}: {
  workspaceId: string;
  appId: string;
  domain: string;
  keySlug: string;
  secret: IntegrationSecret;
  canManage: boolean;
  onChanged: () => Promise<unknown>;
}) {
  const [editing, setEditing] = useState(false);
  const [value, setValue] = useState('');
  const [confirmDelete, setConfirmDelete] = useState(false);
  const { run, busy, error } = useAction();

  const save = () =>
    run(async () => {
      await send(mutations.saveSecret(workspaceId, appId, { domain, keySlug, name: secret.name, value }));
      setValue('');
      setEditing(false);
      await onChanged();
    });
  const remove = () =>
    run(async () => {
      await send(mutations.deleteSecret(workspaceId, appId, { domain, keySlug, name: secret.name }));
      setConfirmDelete(false);
      await onChanged();
    });

  const inputId = `secret-${domain}-${keySlug}-${secret.name}`;
  const showInput = canManage && (editing || !secret.configured);
  return (
    <div className="space-y-1" data-testid={`secret-${secret.name}`} data-configured={secret.configured}>
      <div className="flex flex-wrap items-center gap-2">
        <label className="w-full shrink-0 sm:w-44" htmlFor={showInput ? inputId : undefined}>
          <span className="block font-mono text-xs">{secret.label ?? secret.name}</span>
          {secret.description ? <span className="block text-xs text-zinc-500">{secret.description}</span> : null}
        </label>
        {showInput ? (
          <form
            className="flex min-w-0 flex-1 items-center gap-2"
            onSubmit={(e) => {
              e.preventDefault();
              if (value) void save();
            }}
          >
            <input
              id={inputId}
              type="password"
              autoComplete="off"
              value={value}
              onChange={(e) => setValue(e.target.value)}
              placeholder={secret.configured ? 'New value' : 'Value'}
              data-testid={`secret-input-${secret.name}`}
              className="min-w-0 flex-1 rounded-md border border-zinc-300 px-2 py-1 text-sm focus:border-accent focus:outline-none"
            />
            <Button type="submit" variant="primary" disabled={!value || busy} data-testid={`secret-save-${secret.name}`}>
              Save
            </Button>
            {editing ? (
              <Button variant="ghost" onClick={() => { setValue(''); setEditing(false); }}>
                Cancel
              </Button>
            ) : null}
          </form>
        ) : (
          <span className="flex-1" />
        )}
        {secret.configured ? <Badge tone="green">Configured</Badge> : <Badge tone={secret.required === false ? 'neutral' : 'amber'}>{secret.required === false ? 'Optional' : 'Not set'}</Badge>}
        {canManage && secret.configured && !editing ? (
          confirmDelete ? (
            <>
              <Button variant="danger" disabled={busy} onClick={() => void remove()} data-testid={`secret-delete-confirm-${secret.name}`}>
                Delete it
              </Button>
              <Button variant="ghost" onClick={() => setConfirmDelete(false)}>
                Keep
              </Button>
            </>
          ) : (
            <>
              <Button onClick={() => setEditing(true)} data-testid={`secret-replace-${secret.name}`}>
                Replace
              </Button>
              <Button variant="ghost" onClick={() => setConfirmDelete(true)} data-testid={`secret-delete-${secret.name}`}>
                Delete
              </Button>
            </>
          )
        ) : null}
      </div>
      <ErrorNotice error={error} wording={integrationErrors} />
    </div>
  );
}
