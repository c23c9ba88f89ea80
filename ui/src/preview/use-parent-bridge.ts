// The parent bridge of a preview frame (issue 12): accepts a message only from that frame's
// window at the preview's origin (both checked), bounded in size, and answers only to that
// origin, never '*'. It forwards the app's live data changes and follows the agent runs the
// app triggered: workspace events first, a slow summary poll only as the fallback.
import { useEffect, useRef, type RefObject } from 'react';
import { streams } from '../api/endpoints';
import { readSse, reconnectDelay } from '../api/sse';
import { useWorkspaceEvents } from '../events/use-workspace-events';
import { navigate, paths } from '../routing/location';
import { agentUpdateOf, handleAppMessage, type BridgeContext, type Scope } from './bridge-handlers';
import type { DataChange, IncomingRequest } from './bridge-messages';

const maxMessageBytes = 256 * 1024;
const pollMs = 15_000;
const ended = (status: unknown) => status === 'completed' || status === 'failed';

function acceptable(data: unknown): data is Record<string, unknown> {
  if (!data || typeof data !== 'object' || Object.getPrototypeOf(data) !== Object.prototype) return false;
  const type = (data as { type?: unknown }).type;
  if (typeof type !== 'string' || !type.startsWith('platform:')) return false;
  try {
    return JSON.stringify(data).length <= maxMessageBytes;
  } catch {
    return false;
  }
}

export function useParentBridge(frame: RefObject<HTMLIFrameElement | null>, origin: string | null, workspaceId: string, appId: string, scope: Scope) {
  const followed = useRef(new Map<string, string>());
  const ctx = useRef<BridgeContext | null>(null);
  ctx.current = origin
    ? {
        workspaceId,
        appId,
        scope,
        post: (m) => frame.current?.contentWindow?.postMessage(m, origin),
        follow: (runId, agentId) => followed.current.set(runId, agentId),
        openIntegrations: scope === 'draft' ? () => navigate(paths.appTab(workspaceId, appId, 'integrations')) : null,
      }
    : null;

  const refresh = async (runId: string) => {
    const c = ctx.current;
    if (!c || !followed.current.has(runId)) return;
    try {
      const update = await agentUpdateOf(c, runId);
      if (ended(update.status)) followed.current.delete(runId);
      c.post(update);
    } catch {
      // The next event or poll tries again.
    }
  };

  useEffect(() => {
    if (!origin) return;
    const onMessage = (e: MessageEvent) => {
      if (e.origin !== origin || !frame.current || e.source !== frame.current.contentWindow) return;
      if (!acceptable(e.data) || !ctx.current) return;
      // Only its type is checked here: handleAppMessage checks each value it uses and ignores a
      // type the protocol does not have.
      void handleAppMessage(ctx.current, e.data as IncomingRequest);
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
  }, [origin, frame]);

  useWorkspaceEvents(workspaceId, { appId, kind: 'agent' }, (e) => void refresh(e.runId));

  useEffect(() => {
    const t = setInterval(() => {
      for (const runId of followed.current.keys()) void refresh(runId);
    }, pollMs);
    return () => clearInterval(t);
  }, []);

  // The app's live data: every change of its scope, as ids and versions.
  useEffect(() => {
    if (!origin) return;
    const stop = new AbortController();
    void (async () => {
      let attempt = 0;
      let connected = false;
      while (!stop.signal.aborted) {
        try {
          await readSse(
            streams.dataEvents(workspaceId, appId, scope),
            {
              onOpen: () => {
                if (connected) ctx.current?.post({ type: 'platform:data:resync' });
                connected = true;
                attempt = 0;
              },
              onData: (text) => {
                // The data-events stream's event (docs/app-runtime.md): a data.change is the
                // protocol's DataChange, passed on as the server sent it.
                let change: { type?: unknown } & DataChange;
                try {
                  change = JSON.parse(text) as { type?: unknown } & DataChange;
                } catch {
                  return;
                }
                if (change.type !== 'data.change') return;
                const { op, collection, docId, version } = change;
                ctx.current?.post({ type: 'platform:data:change', op, collection, docId, version });
              },
            },
            stop.signal,
          );
        } catch {
          // Reconnect below.
        }
        if (stop.signal.aborted) return;
        await new Promise((r) => setTimeout(r, reconnectDelay(attempt++)));
      }
    })();
    return () => stop.abort();
  }, [origin, workspaceId, appId, scope]);
}
