// The app's side of the postMessage bridge. It talks only to the page that framed it, at the
// origin that page announced in the URL fragment (#parent=<origin>), and accepts messages only
// from that window at that origin. Nothing here can reach the network: the preview's CSP
// forbids it, so the parent page does every call, as the signed-in person, after checking it.
import { messagePrefix, type AppRequests } from './protocol.ts';

export class PlatformUnavailableError extends Error {
  constructor() {
    super('This app runs inside the platform: open it from the builder or its published page to use agents, actions and data.');
    this.name = 'PlatformUnavailableError';
  }
}

type Listener = (message: Record<string, unknown>) => void;

const timeoutMs = 60_000;
let counter = 0;
const pending = new Map<string, { resolve: (m: Record<string, unknown>) => void; reject: (e: Error) => void; timer: ReturnType<typeof setTimeout> }>();
const listeners = new Set<Listener>();

function parentOrigin(): string | null {
  if (typeof window === 'undefined' || window.parent === window) return null;
  const raw = new URLSearchParams(window.location.hash.slice(1)).get('parent');
  if (!raw) return null;
  try {
    const origin = new URL(raw).origin;
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

const origin = parentOrigin();

if (origin) {
  window.addEventListener('message', (e: MessageEvent) => {
    if (e.source !== window.parent || e.origin !== origin) return;
    const m = e.data as Record<string, unknown> | null;
    if (!m || typeof m !== 'object' || typeof m.type !== 'string' || !m.type.startsWith(messagePrefix)) return;
    const id = typeof m.requestId === 'string' ? m.requestId : undefined;
    const waiting = id ? pending.get(id) : undefined;
    if (waiting) {
      clearTimeout(waiting.timer);
      pending.delete(id!);
      waiting.resolve(m);
    }
    for (const l of [...listeners]) l(m);
  });
}

export const insidePlatform = () => origin !== null;

/** Sends a request and resolves with its answer (the message whose requestId matches). */
export function request<K extends keyof AppRequests>(type: K, payload: AppRequests[K], answerType?: string): Promise<Record<string, unknown>> {
  if (!origin) return Promise.reject(new PlatformUnavailableError());
  const requestId = `r${Date.now().toString(36)}${(counter++).toString(36)}`;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      pending.delete(requestId);
      reject(new Error(`The platform did not answer ${type} in time.`));
    }, timeoutMs);
    pending.set(requestId, {
      resolve: (m) => (answerType && m.type !== answerType ? reject(new Error(`Unexpected answer ${String(m.type)}`)) : resolve(m)),
      reject,
      timer,
    });
    window.parent.postMessage({ ...payload, type, requestId }, origin);
  });
}

/** Every message from the platform (agent updates, data changes). */
export function listen(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
