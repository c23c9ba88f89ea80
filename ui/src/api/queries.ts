// Server state: every list and record the page shows comes from an SWR key of
// api/endpoints.ts, so a mutation or an event revalidates one key instead of patching a local copy.
import useSWR, { type SWRConfiguration } from 'swr';
import { api } from './client';
import { keys } from './endpoints';
import type {
  AppBudget,
  RoutinesView,
  WorkspaceBudget,
  AgentRunDetail,
  AgentRunMessages,
  AgentRunSummary,
  AgentsView,
  App,
  AppRelease,
  IntegrationsView,
  Me,
  Member,
  OAuthClientConfig,
  Page,
  ProviderDetection,
  PublishReview,
  Run,
  RunSummary,
  Runtime,
  Workspace,
} from './types';

const fetcher = <T>(path: string) => api<T>(path);

const quiet: SWRConfiguration = { revalidateOnFocus: false };

export const useMe = () => useSWR<Me>(keys.me, fetcher, quiet);
export const useWorkspaces = () => useSWR<{ workspaces: Workspace[] }>(keys.workspaces, fetcher, quiet);
export const useRuntimes = () => useSWR<{ runtimes: Runtime[]; demoProvider?: boolean }>(keys.runtimes, fetcher, quiet);
export const useApps = (ws: string) => useSWR<{ apps: App[]; nextCursor: string | null }>(keys.apps(ws), fetcher, quiet);
// The preview URL's token lasts two hours: read the app again well before it expires.
export const useApp = (ws: string, app: string) => useSWR<App>(keys.app(ws, app), fetcher, { ...quiet, refreshInterval: 30 * 60 * 1000 });
export const useRuns = (ws: string, app: string) => useSWR<{ runs: RunSummary[]; nextCursor: string | null }>(keys.runs(ws, app), fetcher, quiet);
export const useAgentRuns = (ws: string, app: string, active: boolean) =>
  useSWR<{ runs: AgentRunSummary[]; nextCursor: string | null }>(active ? keys.agentRuns(ws, app) : null, fetcher, quiet);
export const useAgentsView = (ws: string, app: string) => useSWR<AgentsView>(keys.agents(ws, app), fetcher, quiet);
export const useIntegrations = (ws: string, app: string, active: boolean) =>
  useSWR<IntegrationsView>(active ? keys.integrations(ws, app) : null, fetcher, quiet);
export const useOAuthClients = (ws: string, active: boolean) =>
  useSWR<{ providers: OAuthClientConfig[] }>(active ? keys.oauthClients(ws) : null, fetcher, quiet);
export const useReviews = (ws: string, app: string, active: boolean) =>
  useSWR<{ reviews: PublishReview[] }>(active ? keys.reviews(ws, app) : null, fetcher, quiet);
export const useReleases = (ws: string, app: string, active: boolean) =>
  useSWR<Page<AppRelease>>(active ? keys.releases(ws, app) : null, fetcher, quiet);
export const useWorkspaceBudget = (ws: string, active: boolean) => useSWR<WorkspaceBudget>(active ? keys.workspaceBudget(ws) : null, fetcher, quiet);
export const useAppBudget = (ws: string, app: string) => useSWR<AppBudget>(keys.appBudget(ws, app), fetcher, quiet);
export const useRoutines = (ws: string, app: string) => useSWR<RoutinesView>(keys.routines(ws, app), fetcher, quiet);
export const useMembers = (ws: string, active: boolean) => useSWR<{ members: Member[] }>(active ? keys.members(ws) : null, fetcher, quiet);
/** Polled only while pending: a run's start publishes no event (only its end does). */
export const useAgentRun = (ws: string, app: string, run: string) =>
  useSWR<AgentRunDetail>(keys.agentRun(ws, app, run), fetcher, { ...quiet, refreshInterval: (d) => (d?.status === 'pending' ? 2000 : 0) });
export const useAgentRunMessages = (ws: string, app: string, run: string, active: boolean) =>
  useSWR<AgentRunMessages>(active ? keys.agentRunMessages(ws, app, run) : null, fetcher, quiet);
export const useDetection = (active: boolean) => useSWR<ProviderDetection>(active ? keys.detect : null, fetcher, quiet);

/** The resume rules' "no-store check": the run as persisted right now. */
export const fetchRunNoStore = (ws: string, app: string, run: string, signal?: AbortSignal) =>
  api<Run>(keys.run(ws, app, run), signal ? { noStore: true, signal } : { noStore: true });
