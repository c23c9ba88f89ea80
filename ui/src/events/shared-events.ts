// One workspace-events connection per browser, whatever the number of tabs (spec "Workspace
// events": the shared connection is reused across tabs). The tab holding the Web Lock for a
// workspace is the leader: it reads the SSE stream, dispatches each event to its own listeners
// and relays it on a BroadcastChannel to the other tabs. When the leader closes, the lock
// passes to a waiting tab, which connects; the server's catch-up events cover the gap.
import type { WorkspaceMessage } from '../api/types';
import { streams } from '../api/endpoints';
import { readSse, reconnectDelay } from '../api/sse';

type Listener = (event: WorkspaceMessage) => void;

interface Relay {
  kind: 'event';
  event: WorkspaceMessage;
}

class SharedWorkspaceEvents {
  private readonly listeners = new Set<Listener>();
  private readonly channel: BroadcastChannel;
  private stop: AbortController | null = null;

  constructor(private readonly workspaceId: string) {
    this.channel = new BroadcastChannel(`platform-events:${workspaceId}`);
    this.channel.onmessage = (e: MessageEvent<Relay>) => {
      if (e.data?.kind === 'event') this.dispatch(e.data.event);
    };
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    if (this.listeners.size === 1) this.start();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.halt();
    };
  }

  private dispatch(event: WorkspaceMessage) {
    if (event.workspaceId !== this.workspaceId) return;
    for (const l of [...this.listeners]) l(event);
  }

  private start() {
    const stop = new AbortController();
    this.stop = stop;
    const lead = () => this.lead(stop.signal);
    if (typeof navigator.locks?.request === 'function') {
      // Queued until the current leader (in any tab) lets go; aborting withdraws the request.
      navigator.locks.request(`platform-events-leader:${this.workspaceId}`, { signal: stop.signal }, lead).catch(() => {});
    } else {
      void lead();
    }
  }

  private halt() {
    this.stop?.abort();
    this.stop = null;
  }

  /** Holds the lock for as long as this tab needs events: reads, relays, reconnects. */
  private async lead(signal: AbortSignal) {
    let attempt = 0;
    while (!signal.aborted) {
      try {
        await readSse(
          streams.workspaceEvents(this.workspaceId),
          {
            onOpen: () => {
              attempt = 0;
            },
            onData: (data) => {
              let event: WorkspaceMessage;
              try {
                event = JSON.parse(data) as WorkspaceMessage;
              } catch {
                return;
              }
              this.dispatch(event);
              this.channel.postMessage({ kind: 'event', event } satisfies Relay);
            },
          },
          signal,
        );
      } catch {
        // Reconnect below; the server's catch-up events replace what was missed.
      }
      if (signal.aborted) return;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, reconnectDelay(attempt++));
        signal.addEventListener('abort', () => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }
}

const perWorkspace = new Map<string, SharedWorkspaceEvents>();

export function subscribeWorkspaceEvents(workspaceId: string, listener: Listener): () => void {
  let shared = perWorkspace.get(workspaceId);
  if (!shared) {
    shared = new SharedWorkspaceEvents(workspaceId);
    perWorkspace.set(workspaceId, shared);
  }
  return shared.subscribe(listener);
}
