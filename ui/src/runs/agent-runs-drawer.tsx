import * as RadixDialog from '@radix-ui/react-dialog';
import { useEffect, useState } from 'react';
import { mutate } from 'swr';
import { useAgentRun, useMe } from '../api/queries';
import { keys } from '../api/endpoints';
import { ErrorNotice } from '../components/error-notice';
import { Spinner } from '../components/spinner';
import { useWorkspaceEvents } from '../events/use-workspace-events';
import { canEdit } from '../members/roles';
import { useRole } from '../members/use-role';
import { AgentRunSummary } from './agent-run-summary';
import { AgentRunViewer } from './agent-run-viewer';
import { StopAgentRunButton } from './stop-agent-run-button';

/** The Agent Runs drawer: a right-side sheet with one run's summary and its transcript. It is
 *  mounted only while a run is open, so closing it unmounts the viewer (which aborts its fetch). */
export function AgentRunsDrawer({ workspaceId, appId, runId, onClose }: { workspaceId: string; appId: string; runId: string; onClose: () => void }) {
  const { data: run, error } = useAgentRun(workspaceId, appId, runId);
  const { data: me } = useMe();
  const role = useRole(workspaceId);
  const refresh = () => {
    void mutate(keys.agentRun(workspaceId, appId, runId));
    void mutate(keys.agentRuns(workspaceId, appId));
  };
  useWorkspaceEvents(workspaceId, { appId, runId, kind: 'agent' }, refresh);
  // The viewer picks stream or stored transcript from the status once: from a summary read now,
  // not one cached when the drawer was last open.
  const [fresh, setFresh] = useState(false);
  useEffect(() => {
    void mutate(keys.agentRun(workspaceId, appId, runId)).finally(() => setFresh(true));
  }, [workspaceId, appId, runId]);
  const running = run !== undefined && run.status !== 'completed' && run.status !== 'failed';
  const mayStop = run !== undefined && (canEdit(role) || run.triggeredByUserId === me?.id);

  return (
    <RadixDialog.Root open onOpenChange={(open) => !open && onClose()}>
      <RadixDialog.Portal>
        <RadixDialog.Overlay className="fixed inset-0 z-40 bg-zinc-900/30" />
        <RadixDialog.Content className="fixed inset-y-0 right-0 z-50 flex w-[min(44rem,100vw)] flex-col bg-white shadow-xl focus:outline-none" data-testid="agent-run-drawer">
          <header className="flex items-start gap-3 border-b border-zinc-200 px-4 py-3">
            <div className="min-w-0 flex-1">
              <RadixDialog.Title className="truncate text-base font-semibold">{run ? run.agentName || run.agentId : 'Agent run'}</RadixDialog.Title>
              <RadixDialog.Description className="font-mono text-xs text-zinc-500">{runId}</RadixDialog.Description>
            </div>
            {running && mayStop ? <StopAgentRunButton workspaceId={workspaceId} appId={appId} runId={runId} onStopped={refresh} /> : null}
            <RadixDialog.Close className="rounded-md px-2 py-1 text-sm text-zinc-600 hover:bg-zinc-100" data-testid="agent-run-drawer-close">
              Close
            </RadixDialog.Close>
          </header>
          <div className="min-h-0 flex-1 space-y-4 overflow-y-auto px-4 py-4">
            <ErrorNotice error={error} />
            {run ? (
              <>
                <AgentRunSummary run={run} />
                {fresh ? <AgentRunViewer workspaceId={workspaceId} appId={appId} run={run} /> : null}
              </>
            ) : !error ? (
              <Spinner label="Loading the run" />
            ) : null}
          </div>
        </RadixDialog.Content>
      </RadixDialog.Portal>
    </RadixDialog.Root>
  );
}
