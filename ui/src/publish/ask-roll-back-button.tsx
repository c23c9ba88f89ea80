import { mutations, send } from '../api/endpoints';
import { Button } from '../components/button';
import { ErrorNotice } from '../components/error-notice';
import { publishErrors } from './publish-errors';
import { usePublishAction } from './use-publish-action';

/** An editor who does not publish asks an admin or owner to roll back to this release: a
 *  rollback review, decided in the list of reviews like any other. */
export function AskRollBackButton({ workspaceId, appId, release, pending }: { workspaceId: string; appId: string; release: number; pending: boolean }) {
  const { run, busy, error } = usePublishAction(workspaceId, appId);
  return (
    <div className="flex flex-col gap-2">
      <Button
        variant="secondary"
        className="self-start text-xs"
        disabled={busy || pending}
        title={pending ? 'A review is already waiting for an admin or owner' : undefined}
        onClick={() => void run(() => send(mutations.requestReview(workspaceId, appId, { rollbackTo: release })))}
        data-testid={`ask-roll-back-${release}`}
      >
        {busy ? 'Asking…' : 'Ask to roll back to this release'}
      </Button>
      <ErrorNotice error={error} wording={publishErrors} />
    </div>
  );
}
