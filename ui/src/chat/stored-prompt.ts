// A new app's first prompt waits in sessionStorage until its run page has checked (no-store)
// that the run is still pending with no messages (spec client rule 3). It is taken out before
// it is sent, so a reload can never send it twice.
const key = (runId: string) => `platform:prompt:${runId}`;

export function storePrompt(runId: string, prompt: string) {
  sessionStorage.setItem(key(runId), prompt);
}

export function takePrompt(runId: string): string | null {
  const p = sessionStorage.getItem(key(runId));
  if (p !== null) sessionStorage.removeItem(key(runId));
  return p;
}
