// The postMessage protocol between the page and the app it frames (docs/app-runtime.md,
// "postMessage protocol"), typed from the app SDK's own definition, which the app's side uses:
// templates/app-workspace/src/platform/protocol.ts. Imported, never copied: a request or an
// answer that changes there no longer type-checks here.
import type {
  AgentInfo,
  AgentUpdate,
  AppRequests,
  DataChange,
  IntegrationToolResult,
  ReportFailureResponse,
} from '../../../templates/app-workspace/src/platform/protocol';
import type { DataDocReply, DataPageReply, DataRemoveReply } from '../api/endpoints';

export type { DataChange };

export type AppRequestType = keyof AppRequests;

/** A request as it arrives from the frame: the protocol's type and field names, every value
 *  unchecked (only `type` was looked at), so the page checks each one it uses. */
export type IncomingRequest = {
  [K in AppRequestType]: { type: K; requestId?: unknown } & { [F in keyof AppRequests[K]]?: unknown };
}[AppRequestType];

export type IncomingOf<K extends AppRequestType> = Extract<IncomingRequest, { type: K }>;

/** What a data request is answered with: the data route's reply, or why it was refused. */
export type DataResponse =
  | ({ ok: true } & (DataDocReply | DataPageReply | DataRemoveReply))
  | { ok: false; error: string; code: string };

/** What the page sends the frame, by type (answers carry their request's requestId). */
export interface PageMessages {
  'platform:agent:update': AgentUpdate;
  'platform:agents:list-response': { agents: AgentInfo[]; error?: string };
  'platform:integration:execute-response': IntegrationToolResult;
  'platform:integration:report-failure-response': ReportFailureResponse;
  'platform:integration:open-setup-response': { ok: boolean; error?: string };
  'platform:data:response': DataResponse;
  'platform:data:change': DataChange;
  'platform:data:resync': Record<never, never>;
}

export type PageMessageType = keyof PageMessages;

export type PageMessage = {
  [K in PageMessageType]: { type: K; requestId?: unknown } & PageMessages[K];
}[PageMessageType];
