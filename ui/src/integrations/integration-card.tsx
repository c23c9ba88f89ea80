import type { IntegrationGrant } from '../api/types';
import { Badge } from '../components/badge';
import { PermissionGroups } from './permission-groups';
import { SecretRow } from './secret-row';
import { SetupInstructions } from './setup-instructions';

/** One app-scoped grant ({domain, keySlug}) with what the builder required of it. */
export function IntegrationCard({
  workspaceId,
  appId,
  integration: i,
  canManage,
  onChanged,
}: {
  workspaceId: string;
  appId: string;
  integration: IntegrationGrant;
  canManage: boolean;
  onChanged: () => Promise<unknown>;
}) {
  return (
    <div className="rounded-lg border border-zinc-200 bg-white p-3" data-testid={`integration-${i.domain}-${i.keySlug}`}>
      <div className="flex flex-wrap items-center gap-2">
        <span className="font-medium">{i.name ?? i.domain}</span>
        <code className="font-mono text-xs text-zinc-500">
          {i.domain}
          {i.keySlug !== 'default' ? ` · ${i.keySlug}` : ''}
        </code>
        <span className="flex-1" />
        {i.required === false ? <Badge>Not required by the app now</Badge> : null}
        {i.configured ? <Badge tone="green">Ready</Badge> : <Badge tone="amber">Needs setup</Badge>}
      </div>
      {i.capabilityLabel || i.why ? (
        <p className="mt-1 text-sm text-zinc-600">
          {i.capabilityLabel ? <span className="font-medium">{i.capabilityLabel}. </span> : null}
          {i.why}
        </p>
      ) : null}
      {i.keyName ? <p className="mt-1 text-xs text-zinc-500">Key: <span className="text-zinc-700">{i.keyName}</span></p> : null}
      <PermissionGroups groups={i.permissionGroups} />
      <SetupInstructions instructions={i.setupInstructions} />
      <div className="mt-2 space-y-2">
        {i.secrets.map((s) => (
          <SecretRow key={s.name} workspaceId={workspaceId} appId={appId} domain={i.domain} keySlug={i.keySlug} secret={s} canManage={canManage} onChanged={onChanged} />
        ))}
        {i.secrets.length === 0 ? <p className="text-xs text-zinc-500">No secrets: this integration needs none.</p> : null}
      </div>
    </div>
  );
}
