import { api } from '../api/client';
import { keys } from '../api/queries';
import type { OAuthProviderState } from '../api/types';
import { Badge } from '../components/badge';
import { Button } from '../components/button';
import { ErrorNotice } from '../components/error-notice';
import { useAction } from './use-action';

/** The caller's own account with one OAuth provider. Connecting is a top-level navigation: the
 *  server answers with a redirect to the provider, which must not happen inside a fetch. */
export function OAuthProviderRow({ workspaceId, appId, provider: p, onChanged }: { workspaceId: string; appId: string; provider: OAuthProviderState; onChanged: () => Promise<unknown> }) {
  const { run, busy, error } = useAction();
  const base = `${keys.integrations(workspaceId, appId)}/oauth/${encodeURIComponent(p.providerKey)}`;
  const granted = new Set(p.grantedScopes ?? []);
  const missing = (p.requiredScopes ?? []).filter((s) => !granted.has(s));

  const disconnect = () =>
    run(async () => {
      await api(base, { method: 'DELETE' });
      await onChanged();
    });

  return (
    <li className="space-y-1 px-3 py-2" data-testid={`oauth-${p.providerKey}`} data-connected={!!p.connected}>
      <div className="flex flex-wrap items-center gap-2">
        <span className="font-medium">{p.providerKey}</span>
        {p.connected ? <Badge tone="green">Connected</Badge> : <Badge tone="amber">Not connected</Badge>}
        <span className="flex-1" />
        {p.configured ? (
          <a
            href={`${base}/connect`}
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
      {!p.configured ? <p className="text-xs text-zinc-600">A workspace admin or owner must add this provider’s OAuth client before anyone can connect.</p> : null}
      {p.requiredScopes?.length ? <p className="text-xs text-zinc-500">Needs: {p.requiredScopes.join(' ')}</p> : null}
      {p.connected && missing.length ? <p className="text-xs text-amber-800">Your account lacks {missing.join(' ')}: reconnect to grant it.</p> : null}
      <ErrorNotice error={error} />
    </li>
  );
}
