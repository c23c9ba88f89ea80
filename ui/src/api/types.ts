// The shapes platform-web answers (docs/http-api.md). Only what the page reads. Every time
// is an integer of milliseconds since the epoch.
import type { UIMessage } from 'ai';

export type Role = 'owner' | 'admin' | 'collaborator' | 'viewer';

export interface Me {
  id: string;
  email: string;
  name: string;
  defaultWorkspaceId?: string;
}

export interface Workspace {
  id: string;
  name: string;
  role: Role;
}

export type RunStatus = 'pending' | 'streaming' | 'completed' | 'failed';

export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
  costUsd: number;
}

export interface RunUsage {
  totalCostUsd: number;
  totalInputTokens: number;
  totalOutputTokens: number;
  totalCacheReadTokens: number;
  totalCacheCreationTokens: number;
  byModel?: Record<string, ModelUsage>;
}

/** A builder run without its messages (list routes, latestRun). */
export interface RunSummary {
  id: string;
  workspaceId: string;
  appId: string;
  status: RunStatus;
  activeStreamId: string | null;
  messageCount: number;
  usage: RunUsage | null;
  runReason?: string;
  /** Why its last turn was stopped: 'user' when a person stopped it, 'runtime_not_ready' when the
   *  worker refused the runtime for what it lacks (the run is still 'failed'). */
  stopReason?: 'user' | 'runtime_not_ready' | 'budget' | null;
  /** That reason as a sentence, when it has one (what the runtime lacks, the budget reached). */
  stopMessage?: string;
  /** Milliseconds since the epoch, as every time the server sends. */
  createdAt: number;
  updatedAt: number;
}

export interface Run extends RunSummary {
  messages: UIMessage[];
}

export type RuntimeParams = Record<string, string>;

export interface App {
  id: string;
  workspaceId: string;
  name: string;
  createdBy: string;
  runtimeId: string;
  runtimeModel: string;
  runtimeParams: RuntimeParams;
  createdAt: number;
  latestRun?: RunSummary | null;
  /** GET app only: the live preview's signed URL (on the app's own origin), or null. */
  preview?: AppPreview | null;
  /** GET app only: the published page's build, or null before the first publish with a build. */
  publishedPreview?: AppPreview | null;
}

export interface AppPreview {
  digest: string;
  url: string;
  origin: string;
  expiresAt: number;
  updatedAt: number;
  /** The builder turn that made the build: its run and the request it answered (first line). */
  builtBy?: { runId: string; request: string } | null;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface RuntimeParamSpec {
  values: string[];
  default: string;
}

export interface RuntimeModel {
  id: string;
  displayName: string;
  description?: string;
  params: Record<string, RuntimeParamSpec>;
  /** Set when the worker holds no credentials for this model's provider: why, as a sentence. */
  notReadyReason?: string;
}

export interface RuntimeParamInfo {
  name: string;
  displayName: string;
  description: string;
  values: string[];
  default: string;
}

export interface Runtime {
  id: string;
  displayName: string;
  defaultModel: string;
  dynamicModels?: boolean;
  params: RuntimeParamInfo[];
  models: RuntimeModel[];
  /** The worker's "Ready": credentials present for the default model, without a model call.
   *  Absent when the worker did not answer. */
  ready?: boolean;
  notReadyReason?: string;
}

export interface RuntimeSettings {
  runtimeId: string;
  runtimeModel: string;
  runtimeParams: RuntimeParams;
}

export type WorkspaceEventType = 'run.starting' | 'run.stream_ready' | 'run.completed' | 'run.failed';

/** The design notes' compact workspace event: ids and status only. */
export interface WorkspaceEvent {
  type: WorkspaceEventType;
  workspaceId: string;
  appId: string;
  runId: string;
  kind: 'builder' | 'agent';
  status: string;
  runReason?: string;
}

/** An app of the workspace was deleted (no run fields): open pages drop it. */
export interface AppDeletedEvent {
  type: 'app.deleted';
  workspaceId: string;
  appId: string;
}

/** What the workspace's events stream carries. */
export type WorkspaceMessage = WorkspaceEvent | AppDeletedEvent;

export interface AgentRunSummary {
  id: string;
  runId: string;
  workspaceId: string;
  appId: string;
  agentId: string;
  agentName: string;
  status: 'pending' | 'running' | 'streaming' | 'completed' | 'failed';
  draft: boolean;
  result: unknown;
  error: string | null;
  /** 'user' or 'budget' when a stop ended it (then `error` is its sentence). */
  stopReason?: 'user' | 'budget' | null;
  /** A routine's run: the routine, and what started it. */
  routineId?: string | null;
  trigger?: 'schedule' | 'webhook' | null;
  activeStreamId: string | null;
  createdAt: number;
  updatedAt: number;
  startedAt?: number | null;
  finishedAt?: number | null;
}

export interface RuntimeDetection {
  installed: boolean;
  version: string | null;
  usable: boolean;
  reason?: string;
  /** runtime-b: codex's own login; runtime-a: the operator's Claude Code login. */
  loggedIn?: boolean;
  /** runtime-a: turns run on the demo provider now (neither a key nor a login). */
  demo?: boolean;
}

/** /api/setup/detect-provider: booleans only, never a credential's value. */
export interface ProviderDetection {
  runtimes: Record<string, RuntimeDetection>;
  auth: Record<string, boolean>;
}

export interface AgentsJsonTool {
  type?: string;
  name: string;
  displayName?: string;
  description?: string;
  enabled?: boolean;
  recommended?: boolean;
  integration?: { name?: string; domain?: string; keySlug?: string };
  endpoint?: { method?: string; url?: string };
}

export interface AgentsJsonAgent {
  id: string;
  name?: string;
  description?: string;
  dataCollections?: string[];
  tools?: AgentsJsonTool[];
}

/** GET .../agents (docs/app-runtime.md). */
export interface AgentsView {
  scope: 'draft' | 'published';
  agentsJson: { agents?: AgentsJsonAgent[]; appTools?: AgentsJsonTool[] } | null;
  valid: boolean;
  problems: Array<{ path?: string; code?: string; message: string }>;
  agents: Array<{ id: string; name: string; description: string }>;
  approvalStatus: 'none' | 'approved' | 'stale';
  hash: string | null;
  draftHash?: string | null;
  approvedHash: string | null;
  approvedBy: string | null;
  approvedAt: number | null;
  toolsAllowed: boolean;
  /** hash: null for an app published without agents.json. */
  published: { hash: string | null; publishedBy: string; publishedAt: number } | null;
}

/** PATCH .../agents answers the draft view plus whether the builder's workspace got the file. */
export interface AgentsPatchReply extends AgentsView {
  workerSynced: boolean;
  workerError?: string;
}

/** GET .../integrations: metadata only, never a secret's value. */
export interface IntegrationSecret {
  name: string;
  label?: string;
  description?: string;
  required?: boolean;
  configured: boolean;
}

export interface IntegrationGrant {
  name?: string;
  domain: string;
  keySlug: string;
  /** The builder's integration-setup.json asks for it (false: a grant nothing requires now). */
  required?: boolean;
  configured?: boolean;
  keyName?: string;
  capabilityLabel?: string;
  why?: string;
  permissionGroups?: IntegrationPermissionGroup[];
  setupInstructions?: IntegrationSetupInstructions;
  secrets: IntegrationSecret[];
}

/** What the key must be allowed to do, as the builder's integration-setup.json says. */
export interface IntegrationPermissionGroup {
  name: string;
  description?: string;
  permissions?: string[];
}

/** integration-setup.json's help for finding the credential, as the builder wrote it. */
export interface IntegrationSetupInstructions {
  overview?: string;
  steps?: Array<{ title?: string; description?: string; url?: string }>;
  links?: Array<{ label?: string; url?: string }>;
}

export interface OAuthProviderState {
  providerKey: string;
  /** The workspace has a client config for it (set by an admin). */
  configured: boolean;
  requiredScopes?: string[];
  /** The caller's own account. */
  connected?: boolean;
  grantedScopes?: string[];
}

/** GET /api/workspaces/{ws}/integrations/oauth-providers (admins and owners): a registered
 *  OAuth client, never its secret. */
export interface OAuthClientConfig {
  providerKey: string;
  clientId: string;
  authorizationUrl: string;
  tokenUrl: string;
  clientSecretConfigured: boolean;
}

export interface IntegrationsView {
  integrations: IntegrationGrant[];
  oauth: OAuthProviderState[];
}

/** A publish review (POST/GET .../reviews); times are milliseconds since the epoch. */
export interface PublishReview {
  id: string;
  status: 'pending' | 'approved' | 'rejected';
  requestedBy: string;
  note: string;
  draftVersion: number;
  decidedBy: string | null;
  decisionNote: string;
  createdAt: number;
  decidedAt: number | null;
  /** A rollback review: the release it asks to publish again (null: a review of the draft). */
  rollbackTo: number | null;
}

/** One publish, direct, through a review, or a rollback to an earlier release. */
export interface AppRelease {
  number: number;
  /** The app version whose source went live. */
  version: number;
  /** The words of the turn that made that version. */
  request: string;
  buildDigest: string;
  approval: { hash: string; approvedBy: string; approvedAt: number; agents: string[] } | null;
  publishedBy: string;
  publishedAt: number;
  via: 'publish' | 'review' | 'rollback';
  reviewId: string | null;
  rolledBackFrom: number | null;
  /** What viewers use now. */
  live: boolean;
}

export interface Member {
  userId: string;
  email: string;
  name: string;
  role: Role;
}

/** GET .../agent-runs/{runId}: the projected summary, with who triggered it and its totals. */
export interface AgentRunDetail extends AgentRunSummary {
  sourceVersion: 'draft' | 'published';
  triggeredByUserId: string;
  usage: Omit<RunUsage, 'byModel'> | null;
}

/** GET .../agent-runs/{runId}/messages: the UI messages stored when the run ended. */
export interface AgentRunMessages {
  id: string;
  status: AgentRunSummary['status'];
  messages: UIMessage[];
}

/** A version of an app's files: what one builder turn that wrote files left (newest first in
 *  the list route). `request` is the first line of the message the turn answered. */
export interface VersionSummary {
  number: number;
  createdAt: number;
  runId: string;
  request: string;
  runtimeId: string;
  askedBy: string;
  sourceDigest: string;
  buildDigest: string | null;
  fileCount: number;
  totalBytes: number;
  restoredFrom: number | null;
  changes: { added: number; removed: number; modified: number };
}

export interface VersionDetail extends VersionSummary {
  /** Sorted by path. */
  files: Array<{ path: string; bytes: number }>;
}

export interface VersionFile {
  path: string;
  content: string;
}

export type FileChangeStatus = 'added' | 'removed' | 'modified';

export interface FileChange {
  path: string;
  status: FileChangeStatus;
  additions: number;
  deletions: number;
  /** Unified-diff hunks without the ---/+++ lines; "" when `tooLarge`. */
  diff: string;
  tooLarge?: boolean;
}

export interface VersionDiff {
  from: number | null;
  to: number;
  files: FileChange[];
}

/** A spend limit (docs/budgets.md): reached when either unit is; both null, no limit. */
export interface SpendLimit {
  usd: number | null;
  tokens: number | null;
}

export interface Spend {
  usd: number;
  tokens: number;
}

/** A monthly budget against its month's spend (settled runs and runs in flight). */
export interface BudgetShare {
  limit: SpendLimit;
  limitText: string;
  spent: Spend;
  usedFraction: number | null;
  warning: boolean;
  exhausted: boolean;
}

export interface BudgetSettings {
  workspaceMonthly: SpendLimit;
  appMonthly: SpendLimit;
  builderTurn: SpendLimit;
  agentRun: SpendLimit;
}

export interface WorkspaceBudget {
  settings: BudgetSettings;
  month: { start: number; end: number };
  workspace: BudgetShare;
  canEdit: boolean;
}

/** An app's overrides: null is the workspace's default. */
export interface AppBudgetOverrides {
  appMonthly: SpendLimit | null;
  builderTurn: SpendLimit | null;
  agentRun: SpendLimit | null;
}

export interface AppBudget {
  overrides: AppBudgetOverrides;
  defaults: BudgetSettings;
  month: { start: number; end: number };
  app: BudgetShare;
  workspace: BudgetShare;
  builderTurn: { limit: SpendLimit; limitText: string };
  agentRun: { limit: SpendLimit; limitText: string };
  canEdit: boolean;
}

/** A published agent that runs on its schedule or its webhook (docs/routines.md). */
export interface Routine {
  id: string;
  agentId: string;
  schedule: { cron: string; timezone: string; prompt: string } | null;
  webhook: { prompt: string; url: string } | null;
  enabled: boolean;
  consecutiveFailures: number;
  failureLimit: number;
  nextFireAt: number | null;
  problem: string | null;
  runsAs: string;
  lastRunId: string | null;
  lastOutcome: 'started' | 'skipped' | 'webhook' | null;
  lastFiredAt: number | null;
}

export interface RoutinesView {
  routines: Routine[];
  /** The draft's triggers: shown, never fired until published. */
  draft: { agentId: string; schedule: { cron: string; timezone: string } | null; webhook: boolean }[];
  canEdit: boolean;
}

export interface WebhookSecret {
  url: string;
  secret: string;
  header: string;
}
