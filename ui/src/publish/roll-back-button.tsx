import { useState } from 'react';
import type { AppRelease } from '../api/types';
import { Button } from '../components/button';
import { ErrorNotice } from '../components/error-notice';
import { rollBackErrors } from './publish-errors';
import { useRollBack } from './use-roll-back';

/** "Roll back to this release", after a confirmation that says what changes (the published
 *  source, build and agents) and what does not (the draft, its approval, the published data). */
export function RollBackButton({ workspaceId, appId, release: r }: { workspaceId: string; appId: string; release: AppRelease }) {
  const [asking, setAsking] = useState(false);
  const { rollBack, busy, error } = useRollBack(workspaceId, appId);
  return (
    <div className="flex flex-col gap-2">
      {!asking ? (
        <Button variant="secondary" className="self-start text-xs" onClick={() => setAsking(true)} data-testid={`roll-back-${r.number}`}>
          Roll back to this release
        </Button>
      ) : (
        <div className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900" role="alertdialog" aria-label={`Roll back to release ${r.number}`}>
          <p>
            Publish release {r.number} again? Viewers get version {r.version}’s source and build
            {r.approval ? `, with the agents approved for it (${r.approval.agents.join(', ') || 'none'})` : ''}. The draft and its approval stay as
            they are, and so does the published data: a rollback changes the app’s code, not its data. It is recorded as a new release, so it can
            be undone too.
          </p>
          <div className="mt-2 flex flex-wrap gap-2">
            <Button
              variant="primary"
              disabled={busy}
              data-testid="roll-back-confirm"
              onClick={() =>
                void rollBack(r.number).then((made) => {
                  if (made) setAsking(false);
                })
              }
            >
              {busy ? 'Rolling back…' : `Roll back to release ${r.number}`}
            </Button>
            <Button variant="secondary" disabled={busy} onClick={() => setAsking(false)}>
              Cancel
            </Button>
          </div>
        </div>
      )}
      <ErrorNotice error={error} wording={rollBackErrors} />
    </div>
  );
}
