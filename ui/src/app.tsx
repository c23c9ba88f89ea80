import { Suspense, useEffect } from 'react';
import { useMe } from './api/queries';
import { NewAppForm } from './apps/new-app-form';
import { DemoBanner } from './components/demo-banner';
import { ErrorNotice } from './components/error-notice';
import { Spinner } from './components/spinner';
import { ConnectOutcomeNotice } from './integrations/connect-outcome-notice';
import { navigate, paths, usePathname, useRoute } from './routing/location';
import { PageBoundary } from './routing/page-boundary';
import { AppPage, OnboardingPage, PublishedAppPage, preloadRoute } from './routing/pages';
import { DrawerContext } from './sidebar/drawer';
import { Sidebar } from './sidebar/sidebar';
import { SidebarDrawer } from './sidebar/sidebar-drawer';
import { TopBar } from './sidebar/top-bar';
import { useDrawerState } from './sidebar/use-drawer-state';

export function App() {
  const route = useRoute();
  const pathname = usePathname();
  const { data: me, error } = useMe();
  const drawer = useDrawerState();
  preloadRoute(route);

  useEffect(() => {
    if (route.page === 'home' && me?.defaultWorkspaceId) navigate(paths.workspace(me.defaultWorkspaceId), { replace: true });
  }, [route.page, me?.defaultWorkspaceId]);

  // The same spinner a page shows while it reads its data: a page whose code is still coming
  // looks no different from one that waits for the server.
  const loading = (label: string) => <div className="p-6"><Spinner label={label} /></div>;

  if (error) return <ErrorNotice error={error} className="m-6" />;
  if (route.page === 'not-found') return <p className="m-6 text-sm">No such page. <a className="text-accent underline" href="/">Go to your apps</a></p>;
  if (route.page === 'onboarding' || route.page === 'published') {
    return (
      <PageBoundary resetKey={pathname}>
        <Suspense fallback={loading('Loading')}>
          {route.page === 'onboarding' ? <OnboardingPage /> : <PublishedAppPage workspaceId={route.workspaceId} appId={route.appId} />}
        </Suspense>
      </PageBoundary>
    );
  }
  if (route.page === 'home') return <><ConnectOutcomeNotice />{loading('Loading')}</>;

  return (
    <DrawerContext.Provider value={drawer}>
      <div className="flex h-full flex-col">
        {/* While the drawer is open (below md only), the page behind it takes no focus or clicks. */}
        <div inert={drawer.open}>
          <DemoBanner />
          <ConnectOutcomeNotice />
        </div>
        <div className="flex min-h-0 flex-1">
          <SidebarDrawer>
            <Sidebar workspaceId={route.workspaceId} {...(route.page === 'app' ? { appId: route.appId } : {})} />
          </SidebarDrawer>
          <main className="flex min-w-0 flex-1 flex-col" inert={drawer.open}>
            {route.page === 'workspace' ? (
              <>
                <TopBar workspaceId={route.workspaceId} />
                <div className="min-h-0 flex-1 overflow-y-auto px-4 py-6 md:px-6 md:py-10">
                  <NewAppForm workspaceId={route.workspaceId} />
                </div>
              </>
            ) : (
              <PageBoundary resetKey={pathname}>
                <Suspense fallback={loading('Loading app')}>
                  <AppPage workspaceId={route.workspaceId} appId={route.appId} tab={route.tab} {...(route.runId ? { runId: route.runId } : {})} />
                </Suspense>
              </PageBoundary>
            )}
          </main>
        </div>
      </div>
    </DrawerContext.Provider>
  );
}
