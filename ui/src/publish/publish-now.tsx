import { useState } from 'react';
import { api } from '../api/client';
import { keys } from '../api/queries';
import { Button } from '../components/button';
import { ErrorNotice } from '../components/error-notice';
import { publishErrors } from './publish-errors';
import { usePublishAction } from './use-publish-action';

/** An admin's or owner's direct publish of the current draft with its approved agents. */
export function PublishNow({ workspaceId, appId }: { workspaceId: string; appId: string }) {
  const { run, busy, error } = usePublishAction(workspaceId, appId);
  const [done, setDone] = useState(false);
  const publish = async () => {
    setDone(false);
    setDone(await run(() => api(`${keys.app(workspaceId, appId)}/publish`, { method: 'POST' })));
  };
  return (
    <div className="space-y-2">
      <div className="flex items-center gap-3">
        <Button variant="primary" disabled={busy} onClick={() => void publish()} data-testid="publish-now">
          {busy ? 'Publishing…' : 'Publish now'}
        </Button>
        {done ? <span className="text-sm text-emerald-700" data-testid="publish-done">Published. Viewers now use this version.</span> : null}
      </div>
      <ErrorNotice error={error} wording={publishErrors} />
    </div>
  );
}
