import { useState } from 'react';
import { Button } from '../components/button';
import { ErrorNotice } from '../components/error-notice';
import { useRestoreVersion } from './use-restore-version';

/** On the latest version: "Undo this turn" (brings back the version before it); on an older
 *  one: "Restore this version". Either asks first, and says that nothing is lost. */
export function RestoreVersionButton({ workspaceId, appId, version, latest, onRestored }: { workspaceId: string; appId: string; version: number; latest: number; onRestored: (n: number) => void }) {
  const [asking, setAsking] = useState(false);
  const { restore, busy, error } = useRestoreVersion(workspaceId, appId);
  const target = version === latest ? version - 1 : version;
  if (target < 1) return null;
  const undo = version === latest;
  return (
    <div className="flex flex-col gap-2" data-testid="restore-version">
      {!asking ? (
        <Button variant="secondary" className="self-start text-xs" onClick={() => setAsking(true)} data-testid={undo ? 'undo-turn' : 'restore-this-version'}>
          {undo ? 'Undo this turn' : 'Restore this version'}
        </Button>
      ) : (
        <div className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900" role="alertdialog" aria-label={`Restore version ${target}`}>
          <p>
            {undo ? `Undo this turn by bringing back version ${target}?` : `Bring back version ${target}?`} The app’s files, its agents.json and its
            preview become version {target}’s again, as a new version {latest + 1}; every version stays in the history, so this can be undone too.
          </p>
          <div className="mt-2 flex flex-wrap gap-2">
            <Button
              variant="primary"
              disabled={busy}
              data-testid="restore-confirm"
              onClick={() =>
                void restore(target).then((made) => {
                  if (!made) return;
                  setAsking(false);
                  onRestored(made.number);
                })
              }
            >
              {busy ? 'Restoring…' : `Restore version ${target}`}
            </Button>
            <Button variant="secondary" disabled={busy} onClick={() => setAsking(false)}>
              Cancel
            </Button>
          </div>
        </div>
      )}
      <ErrorNotice error={error} />
    </div>
  );
}
