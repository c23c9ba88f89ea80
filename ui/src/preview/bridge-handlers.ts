// What the platform page does for each message of an app (docs/app-runtime.md, "postMessage
// protocol"): every call goes to the API as the signed-in person, who the server authorizes
// again; the app only ever gets the answer. Pure of the DOM: the hook wires it to a frame.
// The messages are the app SDK's own protocol types (./bridge-messages.ts).
import { ApiError, api } from '../api/client';
import { keys, mutations, send, type DataDocReply, type DataPageReply, type DataRemoveReply, type DataScope, type DataWriteBody } from '../api/endpoints';
import type { AgentRunSummary, AgentsView } from '../api/types';
import type { IncomingOf, IncomingRequest, PageMessage, PageMessages, PageMessageType } from './bridge-messages';

export type Scope = DataScope;
export type Post = (message: PageMessage) => void;

export interface BridgeContext {
  workspaceId: string;
  appId: string;
  scope: Scope;
  post: Post;
  /** Runs this frame triggered, followed until they end. */
  follow: (runId: string, agentId: string) => void;
  /** Takes the person to the app's integration setup; null where that page is not theirs
   *  (the published page: its viewers do not edit the app). */
  openIntegrations: (() => void) | null;
}

type DataRequest = IncomingOf<'platform:data:insert' | 'platform:data:update' | 'platform:data:remove' | 'platform:data:list' | 'platform:data:get'>;
const str = (v: unknown) => (typeof v === 'string' ? v : '');
const errorText = (e: unknown) => (e instanceof Error ? e.message : 'The platform could not do this.');

async function data(ctx: BridgeContext, m: DataRequest): Promise<DataDocReply | DataPageReply | DataRemoveReply> {
  const { workspaceId: ws, appId: app, scope } = ctx;
  const write = (body: DataWriteBody) => send(mutations.writeData(ws, app, body));
  switch (m.type) {
    case 'platform:data:insert':
      return write({ scope, collection: m.collection, op: 'insert', data: m.data });
    case 'platform:data:update':
      return write({ scope, collection: m.collection, op: 'update', docId: m.docId, data: m.data, ...(m.expectedVersion !== undefined ? { expectedVersion: m.expectedVersion } : {}) });
    case 'platform:data:remove':
      return write({ scope, collection: m.collection, op: 'remove', docId: m.docId });
    case 'platform:data:list': {
      const page = { ...(typeof m.limit === 'number' ? { limit: m.limit } : {}), ...(typeof m.cursor === 'string' ? { cursor: m.cursor } : {}) };
      return api<DataPageReply>(keys.dataList(ws, app, scope, str(m.collection), page));
    }
    default:
      return api<DataDocReply>(keys.dataDoc(ws, app, scope, str(m.collection), str(m.docId)));
  }
}

export async function agentUpdateOf(ctx: BridgeContext, runId: string): Promise<Extract<PageMessage, { type: 'platform:agent:update' }>> {
  const run = await api<AgentRunSummary>(keys.agentRun(ctx.workspaceId, ctx.appId, runId), { noStore: true });
  return {
    type: 'platform:agent:update',
    agentId: run.agentId,
    runId: run.id,
    status: run.status,
    ...(run.result !== null && run.result !== undefined ? { result: run.result } : {}),
    ...(run.error ? { error: run.error } : {}),
  };
}

async function trigger(ctx: BridgeContext, m: IncomingOf<'platform:agent:trigger'>) {
  const agentId = str(m.agentId);
  try {
    // Spec "App agent trigger flow": create (pending), then start without a browser stream.
    const run = await send(mutations.createAgentRun(ctx.workspaceId, ctx.appId, { agentId, prompt: str(m.prompt), draft: ctx.scope === 'draft' }));
    ctx.post({ type: 'platform:agent:update', requestId: m.requestId, agentId, runId: run.id, status: 'pending' });
    ctx.follow(run.id, agentId);
    await send(mutations.startAgentRun(ctx.workspaceId, ctx.appId, run.id));
    ctx.post({ type: 'platform:agent:update', agentId, runId: run.id, status: 'running' });
  } catch (e) {
    ctx.post({ type: 'platform:agent:update', requestId: m.requestId, agentId, runId: '', status: 'failed', error: errorText(e) });
  }
}

/** Answers one request of the frame; a type the protocol does not have is ignored. */
export async function handleAppMessage(ctx: BridgeContext, m: IncomingRequest): Promise<void> {
  const reply = <K extends PageMessageType>(type: K, body: PageMessages[K]) => ctx.post({ ...body, type, requestId: m.requestId } as PageMessage);
  switch (m.type) {
    case 'platform:agent:trigger':
      return trigger(ctx, m);
    case 'platform:agents:list-request':
      try {
        const view = await api<AgentsView>(keys.agents(ctx.workspaceId, ctx.appId));
        return reply('platform:agents:list-response', { agents: view.agents });
      } catch (e) {
        return reply('platform:agents:list-response', { agents: [], error: errorText(e) });
      }
    case 'platform:integration:execute':
      try {
        const result = await send(mutations.executeAppTool(ctx.workspaceId, ctx.appId, str(m.toolName), { input: m.input ?? {}, draft: ctx.scope === 'draft' }));
        return reply('platform:integration:execute-response', result);
      } catch (e) {
        return reply('platform:integration:execute-response', { success: false, error: errorText(e), errorCode: e instanceof ApiError ? e.code : 'PLATFORM_ERROR' });
      }
    case 'platform:integration:report-failure':
      try {
        const r = await send(
          mutations.reportAppToolFailure(ctx.workspaceId, ctx.appId, str(m.toolName), {
            input: m.input ?? {},
            result: m.result ?? {},
            description: str(m.description),
            ...(m.attemptedTask ? { attemptedTask: str(m.attemptedTask) } : {}),
          }),
        );
        return reply('platform:integration:report-failure-response', r);
      } catch (e) {
        return reply('platform:integration:report-failure-response', { ok: false, error: errorText(e) });
      }
    case 'platform:integration:open-setup':
      if (!ctx.openIntegrations) {
        return reply('platform:integration:open-setup-response', { ok: false, error: "Integrations are set up on the app's builder page: ask an editor of this app." });
      }
      ctx.openIntegrations();
      return reply('platform:integration:open-setup-response', { ok: true });
    case 'platform:data:insert':
    case 'platform:data:update':
    case 'platform:data:remove':
    case 'platform:data:list':
    case 'platform:data:get':
      try {
        return reply('platform:data:response', { ok: true, ...(await data(ctx, m)) });
      } catch (e) {
        return reply('platform:data:response', { ok: false, error: errorText(e), code: e instanceof ApiError ? e.code : 'platform_error' });
      }
    default:
      return;
  }
}
