import { useState } from 'react';
import { links, mutations, send } from '../api/endpoints';
import type { OAuthClientConfig } from '../api/types';
import { Button } from '../components/button';
import { ErrorNotice } from '../components/error-notice';
import { Field } from '../components/field';
import { oauthClientErrors } from '../integrations/oauth-errors';
import { useAction } from './use-action';

const httpUrl = (s: string) => {
  try {
    const u = new URL(s);
    return (u.protocol === 'https:' || u.protocol === 'http:') && !!u.host;
  } catch {
    return false;
  }
};

/** The four fields of an OAuth client registration. The client secret is write-only: the field
 *  starts empty even when one is stored, is sent once, and leaves the page with the form. */
export function OAuthClientForm({
  workspaceId,
  providerKey,
  existing,
  onSaved,
  onCancel,
}: {
  workspaceId: string;
  providerKey: string;
  existing: OAuthClientConfig | undefined;
  onSaved: () => Promise<unknown>;
  onCancel: () => void;
}) {
  const [clientId, setClientId] = useState(existing?.clientId ?? '');
  const [clientSecret, setClientSecret] = useState('');
  const [authorizationUrl, setAuthorizationUrl] = useState(existing?.authorizationUrl ?? '');
  const [tokenUrl, setTokenUrl] = useState(existing?.tokenUrl ?? '');
  const { run, busy, error } = useAction();

  const save = () =>
    run(async () => {
      // The same rules as the server's, said before the request and field by field.
      if (!clientId.trim()) throw new Error(`Enter the client ID ${providerKey} gave this platform.`);
      if (!clientSecret) throw new Error(existing ? 'Enter the client secret again: changing the client replaces it too.' : 'Enter the client secret that goes with the client ID.');
      if (!httpUrl(authorizationUrl.trim())) throw new Error('The authorization URL must be a full http(s) address, such as https://provider.example/oauth/authorize.');
      if (!httpUrl(tokenUrl.trim())) throw new Error('The token URL must be a full http(s) address, such as https://provider.example/oauth/token.');
      await send(mutations.saveOAuthClient(workspaceId, providerKey, { clientId: clientId.trim(), clientSecret, authorizationUrl: authorizationUrl.trim(), tokenUrl: tokenUrl.trim() }));
      setClientSecret('');
      await onSaved();
    });

  const field = 'w-full rounded-md border border-zinc-300 px-2 py-1.5 text-sm focus:border-accent focus:outline-none';
  const redirectUri = links.oauthCallback(location.origin);
  return (
    <form
      className="space-y-3"
      data-testid="oauth-client-form"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <div className="rounded-md bg-zinc-50 px-3 py-2 text-xs text-zinc-600">
        The redirect URI to register with {providerKey}:
        <code className="mt-0.5 block font-mono text-[11px] break-all text-zinc-800 select-all" data-testid="oauth-redirect-uri">
          {redirectUri}
        </code>
      </div>
      <Field label="Client ID">
        <input className={field} value={clientId} onChange={(e) => setClientId(e.target.value)} autoComplete="off" spellCheck={false} data-testid="oauth-client-id" />
      </Field>
      <Field label="Client secret" hint="Stored encrypted and never shown again, not even to admins.">
        <input
          className={field}
          type="password"
          value={clientSecret}
          onChange={(e) => setClientSecret(e.target.value)}
          autoComplete="new-password"
          spellCheck={false}
          placeholder={existing?.clientSecretConfigured ? 'Stored — enter it again to change the client' : ''}
          data-testid="oauth-client-secret"
        />
      </Field>
      <Field label="Authorization URL">
        <input className={field} value={authorizationUrl} onChange={(e) => setAuthorizationUrl(e.target.value)} placeholder="https://provider.example/oauth/authorize" spellCheck={false} data-testid="oauth-authorization-url" />
      </Field>
      <Field label="Token URL" hint="The client secret is sent only here, never to an address an app’s tools name.">
        <input className={field} value={tokenUrl} onChange={(e) => setTokenUrl(e.target.value)} placeholder="https://provider.example/oauth/token" spellCheck={false} data-testid="oauth-token-url" />
      </Field>
      <ErrorNotice error={error} wording={oauthClientErrors} />
      <div className="flex justify-end gap-2">
        <Button variant="ghost" onClick={onCancel}>
          Cancel
        </Button>
        <Button type="submit" variant="primary" disabled={busy} data-testid="oauth-client-save">
          {busy ? 'Saving…' : 'Save client'}
        </Button>
      </div>
    </form>
  );
}
