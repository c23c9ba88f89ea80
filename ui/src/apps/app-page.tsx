import { AgentsPage } from '../agents/agents-page';
import { useAgentsFollowBuilder } from '../agents/use-agents-follow-builder';
import { useApp, useRuns } from '../api/queries';
import { ChatPane } from '../chat/chat-pane';
import { cn } from '../components/cn';
import { ErrorNotice } from '../components/error-notice';
import { Spinner } from '../components/spinner';
import { MembersButton } from '../members/members-button';
import { canEdit, isAdmin } from '../members/roles';
import { useRole } from '../members/use-role';
import { PublishButton } from '../publish/publish-button';
import { navigate, paths, type AppTab } from '../routing/location';
import { PreviewPane } from '../preview/preview-pane';
import { RunsPanel } from '../runs/runs-panel';
import { IntegrationsPage } from '../settings/integrations-page';
import { StartRun } from './start-run';

const tabs: Array<{ id: AppTab; label: string }> = [
  { id: 'chat', label: 'Builder' },
  { id: 'runs', label: 'Runs' },
  { id: 'agents', label: 'Agents' },
  { id: 'integrations', label: 'Integrations' },
];

export function AppPage({ workspaceId, appId, runId, tab }: { workspaceId: string; appId: string; runId?: string; tab: AppTab }) {
  const { data: app, error } = useApp(workspaceId, appId);
  const { data: runs } = useRuns(workspaceId, appId);
  const role = useRole(workspaceId);
  useAgentsFollowBuilder(workspaceId, appId);
  if (error) return <ErrorNotice error={error} className="m-6" />;
  if (!app) return <div className="p-6"><Spinner label="Loading app" /></div>;
  const currentRun = runId ?? runs?.runs[0]?.id;

  return (
    <div className="flex h-full min-w-0 flex-1 flex-col">
      <header className="flex items-center gap-3 border-b border-zinc-200 bg-white px-4 py-2.5">
        <h1 className="truncate text-base font-semibold" data-testid="app-name">{app.name}</h1>
        <span className="text-xs text-zinc-500">{app.runtimeId} · {app.runtimeModel}</span>
        <nav className="ml-4 flex gap-1" aria-label="App sections">
          {tabs.map((t) => (
            <button
              key={t.id}
              type="button"
              onClick={() => navigate(t.id === 'chat' ? (currentRun ? paths.run(workspaceId, appId, currentRun) : paths.app(workspaceId, appId)) : paths.appTab(workspaceId, appId, t.id as Exclude<AppTab, 'chat'>))}
              className={cn('rounded-md px-2.5 py-1 text-sm', tab === t.id ? 'bg-zinc-900 text-white' : 'text-zinc-600 hover:bg-zinc-100')}
              aria-current={tab === t.id ? 'page' : undefined}
              data-testid={`tab-${t.id}`}
            >
              {t.label}
            </button>
          ))}
        </nav>
        <span className="flex-1" />
        {isAdmin(role) ? <MembersButton workspaceId={workspaceId} role={role} /> : null}
        {canEdit(role) ? <PublishButton app={app} role={role} /> : null}
      </header>
      <div className="flex min-h-0 flex-1">
        <section className="flex min-h-0 w-full max-w-[46rem] min-w-[22rem] flex-col border-r border-zinc-200 bg-zinc-50">
          {tab === 'runs' ? (
            <RunsPanel app={app} />
          ) : tab === 'agents' ? (
            <AgentsPage app={app} role={role} />
          ) : tab === 'integrations' ? (
            <IntegrationsPage app={app} role={role} />
          ) : currentRun ? (
            <ChatPane key={currentRun} app={app} runId={currentRun} role={role} />
          ) : runs ? (
            <StartRun app={app} />
          ) : (
            <div className="p-6"><Spinner label="Loading runs" /></div>
          )}
        </section>
        <PreviewPane workspaceId={workspaceId} appId={appId} />
      </div>
    </div>
  );
}
