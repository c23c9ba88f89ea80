// The page's few routes, read from location.pathname. No router library: a path is parsed
// into a Route and navigation is pushState plus a notification.
import { useSyncExternalStore } from 'react';

export type Route =
  | { page: 'home' }
  | { page: 'workspace'; workspaceId: string }
  | { page: 'app'; workspaceId: string; appId: string; runId?: string; tab: AppTab }
  | { page: 'published'; workspaceId: string; appId: string }
  | { page: 'onboarding' }
  | { page: 'not-found' };

export type AppTab = 'chat' | 'agents' | 'integrations' | 'runs' | 'code';

const subscribers = new Set<() => void>();
function notify() {
  for (const s of subscribers) s();
}
window.addEventListener('popstate', notify);

function subscribe(cb: () => void) {
  subscribers.add(cb);
  return () => subscribers.delete(cb);
}

export function navigate(path: string, options: { replace?: boolean } = {}) {
  if (path === location.pathname + location.search) return;
  if (options.replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  notify();
}

const seg = (s: string | undefined) => (s === undefined ? undefined : decodeURIComponent(s));

export function parseRoute(pathname: string): Route {
  const parts = pathname.split('/').filter(Boolean);
  if (parts.length === 0) return { page: 'home' };
  // Local mode's provider setup (the server answers 404 for it in external mode).
  if (parts[0] === 'onboarding') return parts.length === 2 && parts[1] === 'provider' ? { page: 'onboarding' } : { page: 'not-found' };
  if (parts[0] !== 'w' || !parts[1]) return { page: 'not-found' };
  const workspaceId = seg(parts[1])!;
  if (parts.length === 2) return { page: 'workspace', workspaceId };
  if (parts[2] !== 'apps' || !parts[3]) return { page: 'not-found' };
  const appId = seg(parts[3])!;
  if (parts.length === 4) return { page: 'app', workspaceId, appId, tab: 'chat' };
  if (parts[4] === 'live' && parts.length === 5) return { page: 'published', workspaceId, appId };
  if (parts[4] === 'runs' && parts[5] && parts.length === 6) return { page: 'app', workspaceId, appId, runId: seg(parts[5]), tab: 'chat' };
  const tab = parts[4] as AppTab;
  if (parts.length === 5 && (tab === 'agents' || tab === 'integrations' || tab === 'runs' || tab === 'code')) return { page: 'app', workspaceId, appId, tab };
  return { page: 'not-found' };
}

export const paths = {
  workspace: (ws: string) => `/w/${encodeURIComponent(ws)}`,
  app: (ws: string, app: string) => `/w/${encodeURIComponent(ws)}/apps/${encodeURIComponent(app)}`,
  run: (ws: string, app: string, run: string) => `${paths.app(ws, app)}/runs/${encodeURIComponent(run)}`,
  appTab: (ws: string, app: string, tab: Exclude<AppTab, 'chat'>) => `${paths.app(ws, app)}/${tab}`,
};

export function usePathname(): string {
  return useSyncExternalStore(subscribe, () => location.pathname);
}

/** The query string (a tab's place within it, such as the Code tab's version and file). */
export function useSearch(): string {
  return useSyncExternalStore(subscribe, () => location.search);
}

export function useRoute(): Route {
  return parseRoute(usePathname());
}
