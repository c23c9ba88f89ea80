// Every platform-web URL the page uses (docs/http-api.md), built in this one place; ids are
// encoded here and nowhere else.
//  - keys: the GET routes read as JSON. They are also the SWR keys (api/queries.ts), so a
//    mutation or an event revalidates one key instead of patching a local copy.
//  - streams: the server-sent-events and chat routes.
//  - links: what the browser opens itself (downloads, the OAuth connect, its callback).
//  - mutations: each write with its method, its body's type and its reply's type; `send` runs one.
import type { Doc, IntegrationToolResult, ReportFailureResponse } from '../../../templates/app-workspace/src/platform/protocol';
import { api } from './client';
import type {
  AgentRunSummary,
  AgentsPatchReply,
  AgentsView,
  App,
  AppBudgetOverrides,
  AppRelease,
  BudgetSettings,
  PublishReview,
  Role,
  RunSummary,
  RuntimeSettings,
  VersionSummary,
  WebhookSecret,
} from './types';

const enc = encodeURIComponent;
const workspaceBase = (ws: string) => `/api/workspaces/${enc(ws)}`;
const appBase = (ws: string, app: string) => `${workspaceBase(ws)}/apps/${enc(app)}`;

/** Where an app's data is read and written: its draft or its published copy. */
export type DataScope = 'draft' | 'published';

export const keys = {
  me: '/api/me',
  workspaces: '/api/workspaces',
  runtimes: '/api/runtimes',
  detect: '/api/setup/detect-provider',
  /** The detection probed again now rather than the worker's last answer. */
  detectFresh: '/api/setup/detect-provider?fresh=1',
  apps: (ws: string) => `${workspaceBase(ws)}/apps?limit=200`,
  app: (ws: string, app: string) => appBase(ws, app),
  runs: (ws: string, app: string) => `${appBase(ws, app)}/runs?limit=50`,
  /** The runs after `cursor` (keyset paging from a page's nextCursor). */
  runsAfter: (ws: string, app: string, cursor: string) => `${keys.runs(ws, app)}&cursor=${enc(cursor)}`,
  /** A builder run with its messages; the chat route (streams.runChat) on GET. */
  run: (ws: string, app: string, run: string) => `${appBase(ws, app)}/runs/${enc(run)}/chat`,
  agentRuns: (ws: string, app: string) => `${appBase(ws, app)}/agent-runs?limit=50`,
  agentRun: (ws: string, app: string, run: string) => `${appBase(ws, app)}/agent-runs/${enc(run)}`,
  agentRunMessages: (ws: string, app: string, run: string) => `${keys.agentRun(ws, app, run)}/messages`,
  agents: (ws: string, app: string) => `${appBase(ws, app)}/agents`,
  integrations: (ws: string, app: string) => `${appBase(ws, app)}/integrations`,
  oauthClients: (ws: string) => `${workspaceBase(ws)}/integrations/oauth-providers`,
  members: (ws: string) => `${workspaceBase(ws)}/members`,
  reviews: (ws: string, app: string) => `${appBase(ws, app)}/reviews`,
  releases: (ws: string, app: string) => `${appBase(ws, app)}/releases?limit=10`,
  workspaceBudget: (ws: string) => `${workspaceBase(ws)}/budget`,
  appBudget: (ws: string, app: string) => `${appBase(ws, app)}/budget`,
  routines: (ws: string, app: string) => `${appBase(ws, app)}/routines`,
  versions: (ws: string, app: string) => `${appBase(ws, app)}/versions?limit=50`,
  /** The versions after `cursor` (keyset paging from a page's nextCursor). */
  versionsAfter: (ws: string, app: string, cursor: string) => `${keys.versions(ws, app)}&cursor=${enc(cursor)}`,
  version: (ws: string, app: string, n: number) => `${appBase(ws, app)}/versions/${n}`,
  versionFile: (ws: string, app: string, n: number, path: string) => `${keys.version(ws, app, n)}/file?path=${enc(path)}`,
  versionDiff: (ws: string, app: string, n: number, from: number | null) => `${keys.version(ws, app, n)}/diff${from === null ? '' : `?from=${from}`}`,
  /** A page of an app's collection (the app's data, read for its frame). */
  dataList: (ws: string, app: string, scope: DataScope, collection: string, page: { limit?: number; cursor?: string } = {}) =>
    `${appBase(ws, app)}/data/${enc(collection)}?scope=${scope}${page.limit !== undefined ? `&limit=${page.limit}` : ''}${page.cursor !== undefined ? `&cursor=${enc(page.cursor)}` : ''}`,
  dataDoc: (ws: string, app: string, scope: DataScope, collection: string, docId: string) => `${appBase(ws, app)}/data/${enc(collection)}/${enc(docId)}?scope=${scope}`,
};

/** Whether an SWR key is one of the workspace's budgets (its own, or any of its apps'). */
export const isBudgetKeyOf = (ws: string) => (key: unknown) => typeof key === 'string' && key.startsWith(`${workspaceBase(ws)}/`) && key.endsWith('/budget');

export const streams = {
  /** The workspace's compact run events (SSE). */
  workspaceEvents: (ws: string) => `${workspaceBase(ws)}/events`,
  /** The app's data changes in one scope (SSE). */
  dataEvents: (ws: string, app: string, scope: DataScope) => `${appBase(ws, app)}/data-events?scope=${scope}`,
  /** A builder run's chat transport: POST sends a message and streams the turn. */
  runChat: (ws: string, app: string, run: string) => keys.run(ws, app, run),
  /** The resume endpoint: replays the run's current turn from its start. */
  runChatResume: (ws: string, app: string, run: string) => `${keys.run(ws, app, run)}/stream`,
};

export const links = {
  versionZip: (ws: string, app: string, n: number) => `${keys.version(ws, app, n)}/zip`,
  historyBundle: (ws: string, app: string) => `${appBase(ws, app)}/history.bundle`,
  oauthConnect: (ws: string, app: string, providerKey: string) => `${keys.integrations(ws, app)}/oauth/${enc(providerKey)}/connect`,
  /** The redirect URI an OAuth client registers with its provider, on this page's origin. */
  oauthCallback: (origin: string) => `${origin}/api/integrations/oauth/callback`,
};

export type MutationMethod = 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One write: its route, its method and its body; `Reply` is what the server answers. */
export interface Mutation<Reply> {
  readonly path: string;
  readonly method: MutationMethod;
  readonly body?: unknown;
  /** Never set: carries the reply's type to `send`. */
  readonly reply?: Reply;
}

function mutation<Reply>(method: MutationMethod, path: string, body?: unknown): Mutation<Reply> {
  return body === undefined ? { method, path } : { method, path, body };
}

/** Runs a mutation through the one fetch wrapper (api/client.ts). */
export function send<Reply>(m: Mutation<Reply>): Promise<Reply> {
  return api<Reply>(m.path, m.body === undefined ? { method: m.method } : { method: m.method, body: m.body });
}

export type CreateAppBody = { name: string } & Partial<RuntimeSettings>;
/** The whole agents.json: PATCH replaces the file. */
export type AgentsDocument = NonNullable<AgentsView['agentsJson']>;
export type ReviewRequestBody = { note?: string } | { rollbackTo: number };
export interface SecretId {
  domain: string;
  keySlug: string;
  name: string;
}
export interface OAuthClientBody {
  clientId: string;
  clientSecret: string;
  authorizationUrl: string;
  tokenUrl: string;
}
export type DataWriteBody = { scope: DataScope; collection: unknown } & (
  | { op: 'insert'; data: unknown }
  | { op: 'update'; docId: unknown; data: unknown; expectedVersion?: unknown }
  | { op: 'remove'; docId: unknown }
);
export interface AgentRunCreateBody {
  agentId: string;
  prompt: string;
  draft: boolean;
}
export interface DataDocReply {
  document: Doc;
}
export interface DataPageReply {
  documents: Doc[];
  nextCursor: string | null;
}
export interface DataRemoveReply {
  removed: { id: string; version: number };
}
export interface AppToolExecuteBody {
  input: unknown;
  draft: boolean;
}
export interface AppToolFailureBody {
  input: unknown;
  result: unknown;
  description: string;
  attemptedTask?: string;
}

export const mutations = {
  saveProviderKey: (name: string, body: { value: string }) => mutation<void>('PUT', `/api/setup/provider-keys/${enc(name)}`, body),

  createApp: (ws: string, body: CreateAppBody) => mutation<App>('POST', `${workspaceBase(ws)}/apps`, body),
  renameApp: (ws: string, app: string, body: { name: string }) => mutation<App>('PATCH', keys.app(ws, app), body),
  deleteApp: (ws: string, app: string) => mutation<void>('DELETE', keys.app(ws, app)),

  startRun: (ws: string, app: string) => mutation<RunSummary>('POST', `${appBase(ws, app)}/runs`, {}),
  stopRun: (ws: string, app: string, run: string) => mutation<void>('POST', `${appBase(ws, app)}/runs/${enc(run)}/stop`, {}),

  patchAgents: (ws: string, app: string, body: AgentsDocument) => mutation<AgentsPatchReply>('PATCH', keys.agents(ws, app), body),
  approveAgents: (ws: string, app: string, body: { approvalHash: string }) => mutation<AgentsView>('POST', `${keys.agents(ws, app)}/approval`, body),

  /** Answers the published view. */
  publish: (ws: string, app: string) => mutation<AgentsView>('POST', `${appBase(ws, app)}/publish`),
  requestReview: (ws: string, app: string, body: ReviewRequestBody) => mutation<PublishReview>('POST', keys.reviews(ws, app), body),
  decideReview: (ws: string, app: string, review: string, decision: 'approve' | 'reject', body: { note?: string }) =>
    mutation<PublishReview>('POST', `${keys.reviews(ws, app)}/${enc(review)}/${decision}`, body),
  rollBack: (ws: string, app: string, release: number) => mutation<AppRelease>('POST', `${appBase(ws, app)}/releases/${release}/rollback`),
  restoreVersion: (ws: string, app: string, n: number) => mutation<VersionSummary>('POST', `${keys.version(ws, app, n)}/restore`),

  saveSecret: (ws: string, app: string, body: SecretId & { value: string }) => mutation<void>('PUT', `${keys.integrations(ws, app)}/secrets`, body),
  deleteSecret: (ws: string, app: string, id: SecretId) =>
    mutation<void>('DELETE', `${keys.integrations(ws, app)}/secrets?${new URLSearchParams({ domain: id.domain, keySlug: id.keySlug, name: id.name })}`),
  disconnectOAuth: (ws: string, app: string, providerKey: string) => mutation<void>('DELETE', `${keys.integrations(ws, app)}/oauth/${enc(providerKey)}`),
  saveOAuthClient: (ws: string, providerKey: string, body: OAuthClientBody) => mutation<void>('PUT', `${keys.oauthClients(ws)}/${enc(providerKey)}`, body),

  enableRoutine: (ws: string, app: string, routine: string, body: { enabled: boolean }) =>
    mutation<void>('POST', `${keys.routines(ws, app)}/${enc(routine)}/enable`, body),
  webhookSecret: (ws: string, app: string, routine: string) => mutation<WebhookSecret>('POST', `${keys.routines(ws, app)}/${enc(routine)}/webhook-secret`),
  rotateWebhookSecret: (ws: string, app: string, routine: string) => mutation<WebhookSecret>('POST', `${keys.routines(ws, app)}/${enc(routine)}/webhook-secret/rotate`),

  setMemberRole: (ws: string, body: { userId: string; role: Role }) => mutation<void>('POST', keys.members(ws), body),
  removeMember: (ws: string, userId: string) => mutation<void>('DELETE', `${keys.members(ws)}?userId=${enc(userId)}`),

  saveWorkspaceBudget: (ws: string, body: BudgetSettings) => mutation<void>('PUT', keys.workspaceBudget(ws), body),
  saveAppBudget: (ws: string, app: string, body: AppBudgetOverrides) => mutation<void>('PUT', keys.appBudget(ws, app), body),

  stopAgentRun: (ws: string, app: string, run: string) => mutation<void>('POST', `${keys.agentRun(ws, app, run)}/stop`),
  /** Spec "App agent trigger flow": create the run (pending), then start it. */
  createAgentRun: (ws: string, app: string, body: AgentRunCreateBody) => mutation<AgentRunSummary>('POST', `${appBase(ws, app)}/agent-runs`, body),
  /** Starts a created run without a browser stream. */
  startAgentRun: (ws: string, app: string, run: string) => mutation<void>('POST', `${keys.agentRun(ws, app, run)}/stream?startOnly=1`, {}),

  writeData: (ws: string, app: string, body: DataWriteBody) =>
    mutation<DataDocReply | DataRemoveReply>('POST', `${appBase(ws, app)}/data`, body),
  executeAppTool: (ws: string, app: string, toolName: string, body: AppToolExecuteBody) =>
    mutation<IntegrationToolResult>('POST', `${appBase(ws, app)}/app-tools/${enc(toolName)}/execute`, body),
  reportAppToolFailure: (ws: string, app: string, toolName: string, body: AppToolFailureBody) =>
    mutation<ReportFailureResponse>('POST', `${appBase(ws, app)}/app-tools/${enc(toolName)}/report-failure`, body),
};
