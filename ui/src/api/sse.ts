// A fetch-based server-sent-events reader: unlike EventSource it carries the same credentials
// and headers as every other call, and the caller decides when and how fast to reconnect.
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { errorFromBody } from './client';

export interface SseHandlers {
  onOpen?: () => void;
  onData: (data: string) => void;
}

/** Reads one SSE response to its end. Resolves when the server closes, rejects on errors. */
export async function readSse(url: string, handlers: SseHandlers, signal: AbortSignal): Promise<void> {
  const res = await fetch(url, { headers: { accept: 'text/event-stream' }, credentials: 'same-origin', cache: 'no-store', signal });
  if (!res.ok) {
    let body: unknown;
    try {
      body = await res.json();
    } catch {
      body = undefined;
    }
    throw errorFromBody(res.status, body);
  }
  if (!res.body) return;
  handlers.onOpen?.();
  const events = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  const reader = events.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    if (value.data && value.data !== '[DONE]') handlers.onData(value.data);
  }
}

/** Backoff for reconnects: 0.5 s doubling to 15 s, with jitter so tabs do not reconnect in step. */
export function reconnectDelay(attempt: number): number {
  const base = Math.min(15000, 500 * 2 ** Math.min(attempt, 5));
  return base / 2 + Math.random() * (base / 2);
}
