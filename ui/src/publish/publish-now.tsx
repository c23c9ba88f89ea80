import { useState } from 'react';
import { mutations, send } from '../api/endpoints';
import { Button } from '../components/button';
import { ErrorNotice } from '../components/error-notice';
import { publishErrors } from './publish-errors';
import { noBuildNoteId } from './publish-readiness';
import { usePublishAction } from './use-publish-action';

/** An admin's or owner's direct publish of the current draft with its approved agents.
 *  `noBuild`: the app is known to have no build, so a publish would be refused (the readiness
 *  note says why); the button waits for the build. */
export function PublishNow({ workspaceId, appId, noBuild }: { workspaceId: string; appId: string; noBuild: boolean }) {
  const { run, busy, error } = usePublishAction(workspaceId, appId);
  const [done, setDone] = useState(false);
  const publish = async () => {
    setDone(false);
    setDone(await run(() => send(mutations.publish(workspaceId, appId))));
  };
  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-center gap-3">
        <Button variant="primary" disabled={busy || noBuild} aria-describedby={noBuild ? noBuildNoteId : undefined} onClick={() => void publish()} data-testid="publish-now">
          {busy ? 'Publishing…' : 'Publish now'}
        </Button>
        {done ? <span className="text-sm text-emerald-700" data-testid="publish-done">Published. Viewers now use this version.</span> : null}
      </div>
      <ErrorNotice error={error} wording={publishErrors} />
    </div>
  );
}
