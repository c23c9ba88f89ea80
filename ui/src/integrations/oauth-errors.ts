// What went wrong with an OAuth connect, in words that say who can do what next. The codes are
// the closed set the server sends a browser back with (`?oauthError=`, docs/app-runtime.md
// "Integrations"); `p` is the provider's key, or "the provider" when the server could not say.
const failedHere = (p: string) => `Connecting ${p} failed on the platform’s side. Try again in a moment.`;

const connectFailures: Readonly<Record<string, (p: string) => string>> = {
  invalid_state: (p) => `That ${p} connect attempt expired or was already used. Click Connect to start again.`,
  forbidden: (p) => `That ${p} connect attempt belongs to another person signed in on this browser. Sign in as yourself and click Connect again.`,
  oauth_denied: (p) => `Access was not granted at ${p}, so nothing was connected. Click Connect and allow access to use its tools.`,
  oauth_provider_error: (p) =>
    `${p} answered with an error instead of granting access. Try Connect again; if it keeps failing, a workspace admin should check this app’s OAuth client and scopes at ${p}.`,
  not_found: (p) => `No OAuth client is registered for ${p} in this workspace yet. A workspace admin or owner can register it here.`,
  oauth_token_refused: (p) =>
    `${p} refused this workspace’s OAuth client while finishing the connection. A workspace admin or owner should check its client ID and secret.`,
  oauth_token_failed: (p) =>
    `${p}’s token endpoint could not be reached or gave no usable answer. Try again later, or ask a workspace admin to check its token URL.`,
  unauthenticated: () => 'You were signed out before connecting finished. Sign in, then click Connect again.',
  connect_failed: failedHere,
};

/** The sentence for a code (one this page does not know reads as the platform's failure). */
export const connectFailure = (code: string, p: string) => (connectFailures[code] ?? failedHere)(p);

/** Registering an OAuth client: the server's refusals in the dialog's words. */
export const oauthClientErrors = {
  forbidden: 'Only a workspace admin or owner can register an OAuth client.',
  invalid_body: 'Enter the client ID and its secret, and full http(s) addresses for the authorization and token endpoints.',
};
