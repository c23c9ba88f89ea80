// The postMessage protocol between an app (in the preview iframe) and the platform page that
// frames it (docs/app-runtime.md, "postMessage protocol"). Every request carries a requestId;
// its answer carries the same id.

export interface IntegrationToolResult {
  success: boolean;
  data?: unknown;
  mock?: boolean;
  mockReason?: string;
  error?: string;
  statusCode?: number;
  errorCode?: string;
  errorCategory?: string;
  resolution?: string;
  retryable?: boolean;
  canRequestBuilderRepair?: boolean;
  details?: unknown;
}

/** A run's status on the wire (platform:agent:update); useAgent's `status` folds it into the spec's four. */
export type AgentStatus = 'pending' | 'running' | 'streaming' | 'completed' | 'failed';

export interface AgentUpdate {
  agentId: string;
  runId: string;
  status: AgentStatus;
  result?: unknown;
  error?: string;
}

export interface AgentInfo {
  id: string;
  name: string;
  description: string;
}

export interface Doc<T = Record<string, unknown>> {
  id: string;
  data: T;
  version: number;
  createdAt: number;
  updatedAt: number;
}

export interface DataChange {
  op: 'insert' | 'update' | 'remove';
  collection: string;
  docId: string;
  version: number;
}

export interface ReportFailureResponse {
  ok: boolean;
  status?: string;
  builderRunId?: string;
  error?: string;
}

/** Messages the app sends, each answered by `${type}-response` (agent:trigger by agent:update). */
export interface AppRequests {
  'platform:agent:trigger': { agentId: string; prompt: string };
  'platform:agents:list-request': Record<string, never>;
  'platform:integration:execute': { toolName: string; input: unknown };
  'platform:integration:open-setup': { toolName: string };
  'platform:integration:report-failure': { toolName: string; input: unknown; result: IntegrationToolResult; description: string; attemptedTask?: string };
  'platform:data:insert': { collection: string; data: Record<string, unknown> };
  'platform:data:update': { collection: string; docId: string; data: Record<string, unknown>; expectedVersion?: number };
  'platform:data:remove': { collection: string; docId: string; expectedVersion?: number };
  'platform:data:list': { collection: string; limit?: number; cursor?: string };
  'platform:data:get': { collection: string; docId: string };
}

export const messagePrefix = 'platform:';
