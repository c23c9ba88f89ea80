import { useIntegrations } from '../api/queries';
import { Button } from '../components/button';
import { Dialog } from '../components/dialog';
import { ErrorNotice } from '../components/error-notice';
import { Spinner } from '../components/spinner';
import { isAdmin } from '../members/roles';
import { useRole } from '../members/use-role';
import { IntegrationCard } from './integration-card';
import { integrationErrors } from './integration-errors';

/** The setup card's dialog: the app's grants with their write-only secrets (inputs only for
 *  those who may set them; the app's creator sees what is missing). */
export function SecretsDialog({ open, onOpenChange, workspaceId, appId }: { open: boolean; onOpenChange: (o: boolean) => void; workspaceId: string; appId: string }) {
  const { data, error, mutate } = useIntegrations(workspaceId, appId, open);
  const canManage = isAdmin(useRole(workspaceId));
  return (
    <Dialog open={open} onOpenChange={onOpenChange} title="Set up integrations" description="Secrets are stored encrypted for this app. Saved values are never shown again." wide>
      {error ? <ErrorNotice error={error} wording={integrationErrors} /> : !data ? <Spinner label="Loading integrations" /> : null}
      {data && !canManage ? <p className="mb-3 text-sm text-zinc-600">{integrationErrors.forbidden}</p> : null}
      {data?.integrations.length === 0 ? <p className="text-sm text-zinc-600">This app needs no integrations yet.</p> : null}
      <div className="space-y-4">
        {data?.integrations.map((i) => (
          <IntegrationCard key={`${i.domain}/${i.keySlug}`} workspaceId={workspaceId} appId={appId} integration={i} canManage={canManage} onChanged={() => mutate()} />
        ))}
      </div>
      <div className="mt-4 flex justify-end">
        <Button onClick={() => onOpenChange(false)}>Done</Button>
      </div>
    </Dialog>
  );
}
