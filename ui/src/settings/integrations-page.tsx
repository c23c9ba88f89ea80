import { useIntegrations } from '../api/queries';
import type { App, Role } from '../api/types';
import { ErrorNotice } from '../components/error-notice';
import { Spinner } from '../components/spinner';
import { IntegrationCard } from '../integrations/integration-card';
import { integrationErrors } from '../integrations/integration-errors';
import { isAdmin } from '../members/roles';
import { OAuthProviderRow } from './oauth-provider-row';

/** The app's integration settings: its grants as the builder required them, their write-only
 *  secrets, and the caller's own OAuth accounts. */
export function IntegrationsPage({ app, role }: { app: App; role: Role | undefined }) {
  const { data, error, mutate } = useIntegrations(app.workspaceId, app.id, true);
  const canManage = isAdmin(role);
  const changed = () => mutate();
  return (
    <div className="min-h-0 flex-1 space-y-4 overflow-y-auto p-4" data-testid="integrations-page">
      <div>
        <h2 className="text-sm font-semibold">Integrations</h2>
        <p className="mt-0.5 text-xs text-zinc-500">
          Credentials belong to this app only: no other app can use them. Saved values are stored encrypted and never shown again.
        </p>
      </div>
      {error ? <ErrorNotice error={error} wording={integrationErrors} /> : !data ? <Spinner label="Loading integrations" /> : null}
      {data && !canManage ? <p className="text-sm text-zinc-600">{integrationErrors.forbidden}</p> : null}
      {data ? (
        <section className="space-y-3">
          <h3 className="text-xs font-semibold tracking-wide text-zinc-500 uppercase">Secrets</h3>
          {data.integrations.length === 0 ? <p className="text-sm text-zinc-600">This app needs no secrets yet.</p> : null}
          {data.integrations.map((i) => (
            <IntegrationCard key={`${i.domain}/${i.keySlug}`} workspaceId={app.workspaceId} appId={app.id} integration={i} canManage={canManage} onChanged={changed} />
          ))}
        </section>
      ) : null}
      {data ? (
        <section className="space-y-2">
          <h3 className="text-xs font-semibold tracking-wide text-zinc-500 uppercase">OAuth accounts</h3>
          <p className="text-xs text-zinc-500">OAuth tools act as the person who uses them: each member connects their own account.</p>
          {data.oauth.length === 0 ? (
            <p className="text-sm text-zinc-600">No tool of this app uses OAuth.</p>
          ) : (
            <ul className="divide-y divide-zinc-100 rounded-lg border border-zinc-200 bg-white">
              {data.oauth.map((p) => (
                <OAuthProviderRow key={p.providerKey} workspaceId={app.workspaceId} appId={app.id} provider={p} canManage={canManage} onChanged={changed} />
              ))}
            </ul>
          )}
        </section>
      ) : null}
    </div>
  );
}
