import { ApiError } from '../api/client';

// What a person can do about an API error (spec "Errors"): a sentence, not a JSON body.
const hints: Record<string, string> = {
  network: 'Check that platform-web is running, then try again.',
  unauthenticated: 'Your session ended. Sign in again.',
  forbidden: 'Your role in this workspace does not allow this. Ask a workspace admin.',
  worker_unreachable: 'The worker is not reachable. Check that platform-worker is running.',
  store_unavailable: 'The database is unavailable. Try again in a moment.',
  cache_unavailable: 'The cache store is unavailable. Try again in a moment.',
  body_too_large: 'That is too large to send.',
  not_found: 'It may have been removed, or you may not have access.',
};

function sentence(message: string): string {
  const text = message.trim();
  if (!text) return 'Something went wrong.';
  const upper = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(upper) ? upper : `${upper}.`;
}

/** `wording`: the screen's own sentence for some codes. The server's message is written for API
 *  callers; a person needs to know what to do next on this screen. */
export function describeError(e: unknown, wording?: Readonly<Record<string, string>>): { title: string; hint?: string } {
  if (e instanceof ApiError) {
    // The server writes its messages for API callers, in lower case; a person reads a sentence.
    const title = wording?.[e.code] ?? sentence(e.message);
    const hint = hints[e.code] ?? (e.code.startsWith('worker_http_') ? hints.worker_unreachable : undefined);
    return hint ? { title, hint } : { title };
  }
  if (e instanceof Error) return { title: e.message };
  return { title: 'Something went wrong.' };
}

export function ErrorNotice({ error, wording, className }: { error: unknown; wording?: Readonly<Record<string, string>>; className?: string }) {
  if (!error) return null;
  const { title, hint } = describeError(error, wording);
  return (
    <div role="alert" className={`rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800 ${className ?? ''}`}>
      <p className="font-medium">{title}</p>
      {hint ? <p className="mt-0.5 text-red-700">{hint}</p> : null}
    </div>
  );
}
