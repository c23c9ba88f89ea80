import { useState } from 'react';
import { links, mutations, send } from '../api/endpoints';
import type { OAuthProviderState } from '../api/types';
import { Badge } from '../components/badge';
import { Button } from '../components/button';
import { ErrorNotice } from '../components/error-notice';
import { OAuthClientDialog } from './oauth-client-dialog';
import { useAction } from './use-action';

/** The caller's own account with one OAuth provider, and (for admins and owners) the workspace's
 *  OAuth client for it. Connecting is a top-level navigation: the server answers with a
 *  redirect to the provider, which must not happen inside a fetch, and sends the browser back
 *  here with the outcome (ConnectOutcomeNotice). */
export function OAuthProviderRow({
  workspaceId,
  appId,
  provider: p,
  canManage,
  onChanged,
}: {
  workspaceId: string;
  appId: string;
  provider: OAuthProviderState;
  canManage: boolean;
  onChanged: () => Promise<unknown>;
}) {
  const { run, busy, error } = useAction();
  const [registering, setRegistering] = useState(false);
  const granted = new Set(p.grantedScopes ?? []);
  const missing = (p.requiredScopes ?? []).filter((s) => !granted.has(s));

  const disconnect = () =>
    run(async () => {
      await send(mutations.disconnectOAuth(workspaceId, appId, p.providerKey));
      await onChanged();
    });

  return (
    <li className="space-y-1 px-3 py-2" data-testid={`oauth-${p.providerKey}`} data-connected={!!p.connected} data-configured={p.configured}>
      <div className="flex flex-wrap items-center gap-2">
        <span className="font-medium">{p.providerKey}</span>
        {!p.configured ? <Badge>No OAuth client</Badge> : p.connected ? <Badge tone="green">Connected</Badge> : <Badge tone="amber">Not connected</Badge>}
        <span className="flex-1" />
        {canManage ? (
          <Button variant={p.configured ? 'ghost' : 'primary'} onClick={() => setRegistering(true)} data-testid={`oauth-client-${p.providerKey}`}>
            {p.configured ? 'Change client' : 'Register client'}
          </Button>
        ) : null}
        {p.configured ? (
          <a
            href={links.oauthConnect(workspaceId, appId, p.providerKey)}
            className="inline-flex items-center rounded-md border border-zinc-300 bg-white px-3 py-1.5 text-sm font-medium text-zinc-800 hover:bg-zinc-100"
            data-testid={`oauth-connect-${p.providerKey}`}
          >
            {p.connected ? 'Reconnect' : 'Connect'}
          </a>
        ) : null}
        {p.connected ? (
          <Button variant="ghost" disabled={busy} onClick={() => void disconnect()} data-testid={`oauth-disconnect-${p.providerKey}`}>
            Disconnect
          </Button>
        ) : null}
      </div>
      {!p.configured ? (
        <p className="text-xs text-zinc-600" data-testid={`oauth-why-${p.providerKey}`}>
          {canManage
            ? 'Register the OAuth client this workspace has at the provider; then each member can connect their own account.'
            : 'Nobody can connect yet: a workspace admin or owner must first register this provider’s OAuth client.'}
        </p>
      ) : null}
      {p.requiredScopes?.length ? <p className="text-xs text-zinc-500">Needs: {p.requiredScopes.join(' ')}</p> : null}
      {p.connected && p.grantedScopes?.length ? <p className="text-xs text-zinc-500">Granted: {p.grantedScopes.join(' ')}</p> : null}
      {p.connected && missing.length ? <p className="text-xs text-amber-800">Your account lacks {missing.join(' ')}: reconnect to grant it.</p> : null}
      <ErrorNotice error={error} />
      {canManage ? <OAuthClientDialog open={registering} onOpenChange={setRegistering} workspaceId={workspaceId} providerKey={p.providerKey} onSaved={onChanged} /> : null}
    </li>
  );
}
