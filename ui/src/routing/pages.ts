// The pages behind the first screen, each fetched when a route first shows it (issue 34): the
// workspace home (sidebar and new-app form) is in the entry chunk, so an uncached load paints
// it without the app page's chat, the AI SDK or the markdown renderer.
import { lazy } from 'react';
import { loadMarkdownRenderer } from '../parts/markdown-renderer';
import type { AppTab, Route } from './location';

const loadAppPage = () => import('../apps/app-page');
const loadOnboarding = () => import('../onboarding/onboarding-page');
const loadPublished = () => import('../preview/published-app-page');
const loadChat = () => import('../chat/chat-pane');
const loadRuns = () => import('../runs/runs-panel');
const loadAgents = () => import('../agents/agents-page');
const loadIntegrations = () => import('../settings/integrations-page');
const loadCode = () => import('../code/code-page');
const loadTab: Record<AppTab, () => Promise<unknown>> = { chat: loadChat, runs: loadRuns, agents: loadAgents, integrations: loadIntegrations, code: loadCode };

export const AppPage = lazy(() => loadAppPage().then((m) => ({ default: m.AppPage })));
export const OnboardingPage = lazy(() => loadOnboarding().then((m) => ({ default: m.OnboardingPage })));
export const PublishedAppPage = lazy(() => loadPublished().then((m) => ({ default: m.PublishedAppPage })));
export const ChatPane = lazy(() => loadChat().then((m) => ({ default: m.ChatPane })));
export const RunsPanel = lazy(() => loadRuns().then((m) => ({ default: m.RunsPanel })));
export const AgentsPage = lazy(() => loadAgents().then((m) => ({ default: m.AgentsPage })));
export const IntegrationsPage = lazy(() => loadIntegrations().then((m) => ({ default: m.IntegrationsPage })));
export const CodePage = lazy(() => loadCode().then((m) => ({ default: m.CodePage })));

/**
 * Starts fetching every chunk `route` shows at once. React asks for a lazy page only when it
 * renders it, so an app page's tab (inside the app page's chunk) would wait for the app page,
 * and the run's markdown renderer for the chat: one round trip after another. The browser keeps
 * each module once, so asking again (every render of the shell) costs nothing. A failed fetch
 * is left to the lazy page that needs it, which shows it.
 */
export function preloadRoute(route: Route) {
  const wanted: Array<() => Promise<unknown>> = [];
  if (route.page === 'app') {
    wanted.push(loadAppPage, loadTab[route.tab]);
    // A run page shows its messages as soon as they are read: markdown without a plain-text
    // moment first.
    if (route.tab === 'chat') wanted.push(loadMarkdownRenderer);
  } else if (route.page === 'onboarding') {
    wanted.push(loadOnboarding);
  } else if (route.page === 'published') {
    wanted.push(loadPublished);
  }
  for (const load of wanted) load().catch(() => undefined);
}
