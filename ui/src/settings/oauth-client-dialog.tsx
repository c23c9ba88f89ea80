import { useOAuthClients } from '../api/queries';
import { Dialog } from '../components/dialog';
import { ErrorNotice } from '../components/error-notice';
import { Spinner } from '../components/spinner';
import { oauthClientErrors } from '../integrations/oauth-errors';
import { OAuthClientForm } from './oauth-client-form';

/** Registers (or changes) the workspace's OAuth client for one provider: what members need
 *  before they can connect their own accounts. Admins and owners only. */
export function OAuthClientDialog({
  open,
  onOpenChange,
  workspaceId,
  providerKey,
  onSaved,
}: {
  open: boolean;
  onOpenChange: (o: boolean) => void;
  workspaceId: string;
  providerKey: string;
  onSaved: () => Promise<unknown>;
}) {
  const { data, error, mutate } = useOAuthClients(workspaceId, open);
  const existing = data?.providers.find((p) => p.providerKey === providerKey);
  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      title={`${existing ? 'Change' : 'Register'} the ${providerKey} OAuth client`}
      description="From the provider’s developer settings. Every app of this workspace that uses this provider connects through it."
    >
      {error ? <ErrorNotice error={error} wording={oauthClientErrors} /> : null}
      {!data && !error ? <Spinner label="Loading the OAuth client" /> : null}
      {data ? (
        <OAuthClientForm
          workspaceId={workspaceId}
          providerKey={providerKey}
          existing={existing}
          onCancel={() => onOpenChange(false)}
          onSaved={async () => {
            onOpenChange(false);
            await Promise.all([mutate(), onSaved()]);
          }}
        />
      ) : null}
    </Dialog>
  );
}
