import { ModelProvidersLink } from './model-providers-link';

/** Why a runtime cannot serve the chosen model (the worker's sentence), and where to fix it.
 *  `failed`: a turn was refused for it, so the person reads it as this turn's outcome. */
export function RuntimeNotReady({ reason, failed, testId }: { reason: string; failed?: boolean; testId: string }) {
  return (
    <p
      className={`rounded-md px-3 py-2 text-sm ${failed ? 'bg-red-50 text-red-800' : 'bg-amber-50 text-amber-900'}`}
      role={failed ? 'alert' : 'note'}
      data-testid={testId}
    >
      {failed ? 'This turn did not start. ' : ''}
      {reason} <ModelProvidersLink />
    </p>
  );
}
