import { useState } from 'react';
import { mutations, send } from '../api/endpoints';
import { Button } from '../components/button';
import { ErrorNotice } from '../components/error-notice';
import { useAction } from '../settings/use-action';

const stopErrors = {
  not_running: 'The run has ended already.',
  forbidden: 'Only the person who started this run, or a member who edits the app, can stop it.',
};

/** Stops the run itself (its runtime is killed on the worker). Closing the drawer never does. */
export function StopAgentRunButton({ workspaceId, appId, runId, onStopped }: { workspaceId: string; appId: string; runId: string; onStopped: () => void }) {
  const { run, busy, error } = useAction();
  const [asked, setAsked] = useState(false);
  // 202 "stopping": the worker kills the runtime and reports the run failed through the usual
  // callback and run.failed, which the drawer follows.
  const stop = async () => {
    if (!(await run(() => send(mutations.stopAgentRun(workspaceId, appId, runId))))) return;
    setAsked(true);
    onStopped();
  };
  return (
    <div className="space-y-1">
      <Button variant="danger" disabled={busy || asked} onClick={() => void stop()} data-testid="agent-run-stop">
        {busy || asked ? 'Stopping…' : 'Stop run'}
      </Button>
      <ErrorNotice error={error} wording={stopErrors} />
    </div>
  );
}
