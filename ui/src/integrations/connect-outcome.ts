import { connectFailure } from './oauth-errors';

// How the last OAuth connect ended, from the query the server sent the browser back with
// (`?connected=<key>` or `?oauthError=<code>&provider=<key>`). Read once when the page loads and
// then taken out of the address, so a reload or a shared link does not say it again.
export interface ConnectOutcome {
  ok: boolean;
  provider?: string;
  sentence: string;
}

const id = /^[A-Za-z0-9_-]{1,128}$/;
const params = ['connected', 'oauthError', 'provider'];

function read(search: string): ConnectOutcome | null {
  const q = new URLSearchParams(search);
  const connected = q.get('connected');
  if (connected && id.test(connected)) return { ok: true, provider: connected, sentence: `Connected your ${connected} account. Its tools now act as you.` };
  const code = q.get('oauthError');
  if (!code) return null;
  const provider = q.get('provider');
  const known = provider && id.test(provider) ? provider : undefined;
  if (known) return { ok: false, provider: known, sentence: connectFailure(code, known) };
  const sentence = connectFailure(code, 'the provider');
  return { ok: false, sentence: sentence.charAt(0).toUpperCase() + sentence.slice(1) };
}

let pending = read(location.search);

/** The outcome the page loaded with, until it is dismissed. */
export const currentConnectOutcome = () => pending;

export function dismissConnectOutcome() {
  pending = null;
}

/** Takes the outcome's parameters out of the address bar (history entry replaced, nothing reloaded). */
export function clearConnectOutcomeFromAddress() {
  const q = new URLSearchParams(location.search);
  if (!params.some((p) => q.has(p))) return;
  for (const p of params) q.delete(p);
  const rest = q.toString();
  history.replaceState(history.state, '', location.pathname + (rest ? `?${rest}` : '') + location.hash);
}
