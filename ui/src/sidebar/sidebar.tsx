import { mutate } from 'swr';
import { useApps, useMe, useWorkspaces } from '../api/queries';
import { keys } from '../api/endpoints';
import { cn } from '../components/cn';
import { Icon } from '../components/icon';
import { useAppDeleted } from '../events/use-app-deleted';
import { useWorkspaceEvents } from '../events/use-workspace-events';
import { navigate, paths } from '../routing/location';
import { WorkspaceBudgetButton } from '../budgets/workspace-budget-button';
import { isAdmin } from '../members/roles';
import { useDrawer } from './drawer';
import { RepairBadge, isRepairing } from './repair-badge';

export function Sidebar({ workspaceId, appId }: { workspaceId: string; appId?: string }) {
  const { data: ws } = useWorkspaces();
  const { data } = useApps(workspaceId);
  const { data: me } = useMe();
  const role = ws?.workspaces.find((w) => w.id === workspaceId)?.role;
  const drawer = useDrawer();
  // Below md the sidebar is a drawer: going somewhere from it closes it (also when the place is
  // the page already shown).
  const go = (path: string) => {
    drawer?.hide();
    navigate(path);
  };
  // The list shows each app's latest run: any run event of the workspace may change it.
  useWorkspaceEvents(workspaceId, { kind: 'builder' }, () => void mutate(keys.apps(workspaceId)));
  useAppDeleted(workspaceId, () => void mutate(keys.apps(workspaceId)));
  return (
    <nav className="flex h-full w-72 shrink-0 flex-col border-r border-zinc-200 bg-white md:w-64" aria-label="Apps">
      <div className="flex items-center gap-2 border-b border-zinc-200 px-3 py-3">
        <img src="/favicon.svg" alt="" className="size-6" />
        <select
          aria-label="Workspace"
          className="min-w-0 flex-1 truncate rounded-md border-0 bg-transparent text-sm font-semibold focus:outline-none"
          value={workspaceId}
          onChange={(e) => go(paths.workspace(e.target.value))}
        >
          {(ws?.workspaces ?? [{ id: workspaceId, name: workspaceId, role: 'viewer' as const }]).map((w) => (
            <option key={w.id} value={w.id}>
              {w.name}
            </option>
          ))}
        </select>
        {drawer ? (
          <button type="button" aria-label="Close menu" onClick={drawer.hide} data-drawer-focus className="shrink-0 rounded-md p-1 text-zinc-500 hover:bg-zinc-100 md:hidden" data-testid="menu-close">
            <Icon name="cross" className="size-5" />
          </button>
        ) : null}
      </div>
      <div className="px-3 pt-3">
        <button
          type="button"
          onClick={() => go(paths.workspace(workspaceId))}
          className="w-full rounded-md border border-dashed border-zinc-300 px-3 py-1.5 text-left text-sm text-zinc-600 hover:border-accent hover:text-accent"
        >
          + New app
        </button>
      </div>
      <ul className="mt-2 min-h-0 flex-1 overflow-y-auto px-2 pb-3" data-testid="app-list">
        {(data?.apps ?? []).map((a) => {
          // A run a person or a budget stopped is grey, not a red failure.
          const status = a.latestRun?.status === 'failed' && (a.latestRun.stopReason === 'user' || a.latestRun.stopReason === 'budget') ? 'stopped' : a.latestRun?.status;
          return (
            <li key={a.id}>
              <a
                href={paths.app(workspaceId, a.id)}
                onClick={(e) => {
                  if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
                  e.preventDefault();
                  go(paths.app(workspaceId, a.id));
                }}
                className={cn('block rounded-md px-2.5 py-2 text-sm hover:bg-zinc-100 md:py-1.5', a.id === appId && 'bg-accent-soft text-accent')}
                aria-current={a.id === appId ? 'page' : undefined}
              >
                <span className="flex items-center gap-2">
                  <span
                    aria-hidden
                    className={cn(
                      'size-1.5 shrink-0 rounded-full',
                      status === 'streaming' ? 'animate-pulse bg-sky-500' : status === 'failed' ? 'bg-red-500' : status === 'completed' ? 'bg-emerald-500' : 'bg-zinc-300',
                    )}
                  />
                  <span className="truncate">{a.name}</span>
                </span>
                {isRepairing(a.latestRun) ? <RepairBadge /> : null}
              </a>
            </li>
          );
        })}
        {data && data.apps.length === 0 ? <li className="px-2.5 py-2 text-xs text-zinc-500">No apps yet.</li> : null}
      </ul>
      <div className="flex items-center border-t border-zinc-200 empty:hidden">
        {me?.defaultWorkspaceId ? (
          // Local mode only: the provider setup screen does not exist in external deployments.
          <a
            href="/onboarding/provider"
            onClick={(e) => {
              e.preventDefault();
              go('/onboarding/provider');
            }}
            className="flex-1 px-4 py-2.5 text-xs text-zinc-600 hover:text-accent"
          >
            Model providers
          </a>
        ) : null}
        {isAdmin(role) ? <WorkspaceBudgetButton workspaceId={workspaceId} className="ml-auto px-4 py-2.5 text-xs font-normal text-zinc-600 hover:bg-transparent hover:text-accent" /> : null}
      </div>
    </nav>
  );
}
