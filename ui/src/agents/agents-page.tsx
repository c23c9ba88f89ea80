import { useAgentsView, useMe } from '../api/queries';
import type { App, Role } from '../api/types';
import { ErrorNotice } from '../components/error-notice';
import { Spinner } from '../components/spinner';
import { isAdmin } from '../members/roles';
import { AgentSection } from './agent-section';
import { ApprovalState } from './approval-state';
import { ApproveAgentsButton } from './approve-agents-button';
import { ProblemsList } from './problems-list';
import { useAgentsPatch } from './use-agents-patch';
import { withToolEnabled, type ToolOwner } from './with-tool-enabled';
import { WorkerSyncNotice } from './worker-sync-notice';

const patchErrors = { forbidden: 'Only a workspace admin or owner, or the app’s creator, can switch tools.' };

/** The app's agents.json as the governing document: agents, their tools, approval. */
export function AgentsPage({ app, role }: { app: App; role: Role | undefined }) {
  const { data: view, error } = useAgentsView(app.workspaceId, app.id);
  const { data: me } = useMe();
  const { patch, saving, error: patchError, workerSync } = useAgentsPatch(app.workspaceId, app.id);
  if (error) return <ErrorNotice error={error} className="m-4" />;
  if (!view) return <div className="p-4"><Spinner label="Loading agents" /></div>;

  const doc = view.agentsJson;
  const draft = view.scope === 'draft';
  const editable = draft && doc !== null && (isAdmin(role) || (me !== undefined && me.id === app.createdBy));
  const toggle = (owner: ToolOwner) => (name: string, enabled: boolean) => {
    if (doc) void patch(withToolEnabled(doc, owner, name, enabled));
  };
  const mayApprove = draft && isAdmin(role) && view.valid && view.approvalStatus !== 'approved' && !!view.draftHash;

  return (
    <div className="min-h-0 flex-1 space-y-4 overflow-y-auto p-4" data-testid="agents-page">
      <div>
        <h2 className="text-sm font-semibold">Agents</h2>
        <p className="mt-0.5 text-xs text-zinc-500">
          agents.json says which agents this app has and which tools and data each may use. It takes effect only once a
          workspace admin or owner approves it.
          {editable ? ' Switching a tool changes it, so an admin must approve again.' : ''}
        </p>
      </div>
      <ApprovalState workspaceId={app.workspaceId} view={view} />
      {mayApprove ? <ApproveAgentsButton workspaceId={app.workspaceId} appId={app.id} draftHash={view.draftHash!} /> : null}
      {draft && !isAdmin(role) && view.approvalStatus !== 'approved' ? (
        <p className="text-xs text-zinc-500">Only a workspace admin or owner can approve agents.</p>
      ) : null}
      <WorkerSyncNotice sync={workerSync} />
      <ErrorNotice error={patchError} wording={patchErrors} />
      {/* With no agents.json there is nothing to fix, only nothing yet: the validator's note for the builder stays its own. */}
      {doc === null ? null : <ProblemsList problems={view.problems} />}
      {doc === null ? (
        <p className="text-sm text-zinc-600" data-testid="agents-empty">
          This app has no agents yet. Ask the builder for one; it proposes agents here for a workspace admin or owner to
          approve.
        </p>
      ) : null}
      {(doc?.agents ?? []).map((a) => (
        <AgentSection
          key={a.id}
          testId={`agent-${a.id}`}
          title={a.name ?? a.id}
          subtitle={a.id}
          {...(a.description ? { description: a.description } : {})}
          {...(a.dataCollections ? { collections: a.dataCollections } : {})}
          tools={a.tools ?? []}
          editable={editable}
          saving={saving}
          onToggle={toggle(a.id)}
        />
      ))}
      {doc?.appTools?.length ? (
        <AgentSection testId="app-actions" title="App actions" description="HTTP actions the app calls directly, without an agent." tools={doc.appTools} editable={editable} saving={saving} onToggle={toggle(null)} />
      ) : null}
      {!editable && draft && doc !== null ? <p className="text-xs text-zinc-500">Only a workspace admin or owner, or the app’s creator, can switch tools.</p> : null}
    </div>
  );
}
