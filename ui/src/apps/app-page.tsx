import { Suspense, useState } from 'react';
import { useAgentsFollowBuilder } from '../agents/use-agents-follow-builder';
import { useApp, useRuns } from '../api/queries';
import { cn } from '../components/cn';
import { ErrorNotice } from '../components/error-notice';
import { useAppDeleted } from '../events/use-app-deleted';
import { Spinner } from '../components/spinner';
import { MembersButton } from '../members/members-button';
import { canEdit, isAdmin } from '../members/roles';
import { useRole } from '../members/use-role';
import { PublishButton } from '../publish/publish-button';
import { ReleasesButton } from '../publish/releases-button';
import { navigate, paths, type AppTab } from '../routing/location';
import { AgentsPage, ChatPane, CodePage, IntegrationsPage, RunsPanel } from '../routing/pages';
import { PreviewPane } from '../preview/preview-pane';
import { MenuButton } from '../sidebar/menu-button';
import { AppSettingsButton } from './app-settings-button';
import { PaneSwitch, paneIds, type Pane } from './pane-switch';
import { StartRun } from './start-run';

const tabs: Array<{ id: AppTab; label: string }> = [
  { id: 'chat', label: 'Builder' },
  { id: 'code', label: 'Code' },
  { id: 'runs', label: 'Runs' },
  { id: 'agents', label: 'Agents' },
  { id: 'integrations', label: 'Integrations' },
];

export function AppPage({ workspaceId, appId, runId, tab }: { workspaceId: string; appId: string; runId?: string; tab: AppTab }) {
  const { data: app, error } = useApp(workspaceId, appId);
  const { data: runs } = useRuns(workspaceId, appId);
  const role = useRole(workspaceId);
  useAgentsFollowBuilder(workspaceId, appId);
  // Deleted in another tab (or by someone else): nothing of it is left to show.
  useAppDeleted(workspaceId, (deleted) => {
    if (deleted === appId) navigate(paths.workspace(workspaceId), { replace: true });
  });
  // Below lg only (side by side from there): which of chat and preview the Builder tab shows.
  const [pane, setPane] = useState<Pane>('chat');
  if (error) return <ErrorNotice error={error} className="m-6" />;
  if (!app) return <div className="p-6"><Spinner label="Loading app" /></div>;
  const currentRun = runId ?? runs?.runs[0]?.id;
  const previewShown = tab === 'chat' && pane === 'preview';

  return (
    <div className="flex h-full min-w-0 flex-1 flex-col">
      {/* Below lg: the name and buttons on one line, the sections under them. */}
      <header className="flex flex-wrap items-center gap-x-3 gap-y-2 border-b border-zinc-200 bg-white px-4 py-2.5 lg:flex-nowrap">
        <MenuButton />
        <div className="flex min-w-0 flex-1 items-center gap-1 lg:flex-initial">
          <h1 className="min-w-0 truncate text-base font-semibold" data-testid="app-name">{app.name}</h1>
          <AppSettingsButton app={app} role={role} />
        </div>
        <span className="hidden text-xs text-zinc-500 sm:inline">{app.runtimeId} · {app.runtimeModel}</span>
        <nav className="order-last -mx-1 flex w-full gap-1 overflow-x-auto px-1 lg:order-none lg:mx-0 lg:ml-4 lg:w-auto lg:overflow-visible lg:px-0" aria-label="App sections">
          {tabs.map((t) => (
            <button
              key={t.id}
              type="button"
              onClick={() => navigate(t.id === 'chat' ? (currentRun ? paths.run(workspaceId, appId, currentRun) : paths.app(workspaceId, appId)) : paths.appTab(workspaceId, appId, t.id as Exclude<AppTab, 'chat'>))}
              className={cn('shrink-0 rounded-md px-2 py-1 text-sm sm:px-2.5', tab === t.id ? 'bg-zinc-900 text-white' : 'text-zinc-600 hover:bg-zinc-100')}
              aria-current={tab === t.id ? 'page' : undefined}
              data-testid={`tab-${t.id}`}
            >
              {t.label}
            </button>
          ))}
        </nav>
        <span className="hidden flex-1 lg:block" />
        {isAdmin(role) ? <MembersButton workspaceId={workspaceId} role={role} /> : null}
        {canEdit(role) ? <PublishButton app={app} role={role} /> : role ? <ReleasesButton app={app} /> : null}
      </header>
      {tab === 'chat' ? <PaneSwitch pane={pane} onChange={setPane} hasPreview={!!app.preview} /> : null}
      <div className="flex min-h-0 flex-1">
        {/* Hidden, not unmounted, while the preview shows: the chat keeps following its run. */}
        <section
          id={paneIds.chat}
          className={cn(
            'flex min-h-0 w-full flex-col border-zinc-200 bg-zinc-50',
            // The Code tab takes the whole width: a file tree beside the code, no preview.
            tab !== 'code' && 'lg:max-w-[46rem] lg:min-w-[22rem] lg:border-r',
            previewShown && 'max-lg:hidden',
          )}
        >
          {/* Each tab's code comes when the tab is first shown (routing/pages.ts). */}
          <Suspense fallback={<div className="p-6"><Spinner label="Loading" /></div>}>
            {tab === 'runs' ? (
              <RunsPanel app={app} />
            ) : tab === 'code' ? (
              <CodePage app={app} role={role} />
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
          </Suspense>
        </section>
        {tab !== 'code' ? <PreviewPane workspaceId={workspaceId} appId={appId} shown={previewShown} id={paneIds.preview} /> : null}
      </div>
    </div>
  );
}
