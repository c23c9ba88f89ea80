import { useApp, useRuns, useWorkspaces } from '../api/queries';
import { ChatPane } from '../chat/chat-pane';
import { cn } from '../components/cn';
import { ErrorNotice } from '../components/error-notice';
import { Spinner } from '../components/spinner';
import { navigate, paths, type AppTab } from '../routing/location';
import { RunsPanel } from '../runs/runs-panel';
import { PreviewPlaceholder } from './preview-placeholder';
import { StartRun } from './start-run';

const tabs: Array<{ id: AppTab; label: string }> = [
  { id: 'chat', label: 'Builder' },
  { id: 'runs', label: 'Runs' },
];

export function AppPage({ workspaceId, appId, runId, tab }: { workspaceId: string; appId: string; runId?: string; tab: AppTab }) {
  const { data: app, error } = useApp(workspaceId, appId);
  const { data: runs } = useRuns(workspaceId, appId);
  const { data: ws } = useWorkspaces();
  const role = ws?.workspaces.find((w) => w.id === workspaceId)?.role;
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
            >
              {t.label}
            </button>
          ))}
        </nav>
      </header>
      <div className="flex min-h-0 flex-1">
        <section className="flex min-h-0 w-full max-w-[46rem] min-w-[22rem] flex-col border-r border-zinc-200 bg-zinc-50">
          {tab === 'runs' ? (
            <RunsPanel app={app} />
          ) : currentRun ? (
            <ChatPane key={currentRun} app={app} runId={currentRun} role={role} />
          ) : runs ? (
            <StartRun app={app} />
          ) : (
            <div className="p-6"><Spinner label="Loading runs" /></div>
          )}
        </section>
        <PreviewPlaceholder />
      </div>
    </div>
  );
}
