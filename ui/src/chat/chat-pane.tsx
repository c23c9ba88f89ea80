import { useChat } from '@ai-sdk/react';
import { useEffect, useMemo, useRef, useState } from 'react';
import useSWR from 'swr';
import { keys, mutations, send } from '../api/endpoints';
import type { App, Role, Run, RuntimeSettings } from '../api/types';
import { Button } from '../components/button';
import { streamError } from '../api/stream-error';
import { ErrorNotice } from '../components/error-notice';
import { MessageView } from '../parts/message-view';
import { RuntimeNotReady } from '../runtime/runtime-not-ready';
import { RuntimePicker } from '../runtime/runtime-picker';
import { RunStatusBadge } from '../runs/run-status-badge';
import { UsageLine } from '../runs/usage-line';
import { pendingApproval } from './approval';
import { ChatActionsContext, type ChatActions } from './chat-actions';
import { runChat, setNextRuntimeSettings } from './chat-registry';
import { Composer } from './composer';
import { useRunOrchestrator } from './use-run-orchestrator';

export function ChatPane({ app, runId, role }: { app: App; runId: string; role: Role | undefined }) {
  const key = useMemo(() => ({ workspaceId: app.workspaceId, appId: app.id, runId }), [app.workspaceId, app.id, runId]);
  const chat = useMemo(() => runChat(key), [key]);
  const { messages, status, error, sendMessage, clearError } = useChat({ chat, throttle: 50 });
  useRunOrchestrator(chat, key, status);
  // Filled by the orchestrator's no-store reads; never fetched on its own.
  const { data: run } = useSWR<Run>(keys.run(key.workspaceId, key.appId, runId), null);
  const [settings, setSettings] = useState<RuntimeSettings>({ runtimeId: app.runtimeId, runtimeModel: app.runtimeModel, runtimeParams: app.runtimeParams });
  useEffect(() => setNextRuntimeSettings(app.id, settings), [app.id, settings]);
  const [stopError, setStopError] = useState<unknown>(null);

  const localBusy = status === 'submitted' || status === 'streaming';
  const working = localBusy || run?.status === 'streaming';
  const pending = pendingApproval(run?.messages ?? []);
  const actions: ChatActions = {
    workspaceId: app.workspaceId,
    appId: app.id,
    role,
    pending: localBusy ? null : pending,
    busy: working,
    send: async (text) => {
      clearError();
      await sendMessage({ text });
    },
  };

  const stop = async () => {
    setStopError(null);
    try {
      await send(mutations.stopRun(key.workspaceId, key.appId, runId));
    } catch (e) {
      setStopError(e);
    }
    // The server ends the turn and its streams; aborting our reader ends this tab's wait.
    void chat.stop();
  };

  // While a turn works (the approval's own turn included), no card waits: the hint and the
  // waiting badge go with the approval, not when the run's messages are read again.
  const waiting = working ? null : pending;
  const blockedReason =
    role === 'viewer'
      ? 'Viewers cannot message the builder.'
      : waiting?.kind === 'plan'
        ? 'Approve the plan or request changes to continue.'
        : waiting?.kind === 'agents'
          ? 'The agents above wait for approval or requested changes.'
          : null;

  const scroller = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  useEffect(() => {
    const el = scroller.current;
    if (el && pinned.current) el.scrollTop = el.scrollHeight;
  }, [messages]);

  return (
    <ChatActionsContext.Provider value={actions}>
      <div className="flex h-full min-h-0 flex-col">
        <div className="flex items-center gap-2 border-b border-zinc-200 bg-white px-4 py-2">
          {run ? (
            <RunStatusBadge
              status={working && run.status !== 'streaming' ? 'streaming' : run.status}
              stoppedBy={run.stopReason}
              awaitingApproval={waiting !== null}
            />
          ) : null}
          <span className="flex-1" />
          <UsageLine usage={run?.usage} />
        </div>
        <div
          ref={scroller}
          onScroll={(e) => {
            const el = e.currentTarget;
            pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
          }}
          className="min-h-0 flex-1 space-y-4 overflow-y-auto px-4 py-4"
          data-testid="messages"
        >
          {messages.length === 0 && !working ? <p className="mt-8 text-center text-sm text-zinc-500">Describe the app you want. The builder plans it first, then builds it.</p> : null}
          {messages.map((m, i) => (
            <MessageView key={m.id} message={m} streaming={localBusy && i === messages.length - 1} />
          ))}
          {status === 'submitted' ? <p className="text-sm text-zinc-500">Starting the builder…</p> : null}
          {run?.status === 'failed' && !working && run.stopReason === 'user' ? (
            <p className="rounded-md bg-zinc-100 px-3 py-2 text-sm text-zinc-700" data-testid="run-stopped">
              You stopped this turn. What it wrote so far is kept; send a message to continue.
            </p>
          ) : run?.status === 'failed' && !working && run.stopReason === 'budget' ? (
            <p className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-800" data-testid="run-budget-stopped">
              {run.stopMessage || 'Stopped: a budget was reached.'} What it wrote so far is kept. The Runs tab shows the app's budget.
            </p>
          ) : run?.status === 'failed' && !working && run.stopReason === 'runtime_not_ready' && run.stopMessage ? (
            <RuntimeNotReady reason={run.stopMessage} failed testId="run-runtime-not-ready" />
          ) : run?.status === 'failed' && !working ? (
            <p className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-700" data-testid="run-failed">
              This turn did not finish. Send a message to continue, or ask the builder to try again.
            </p>
          ) : null}
          {/* A refused runtime's sentence is on the run already (above), with its link. */}
          {run?.stopReason === 'runtime_not_ready' && !working ? null : <ErrorNotice error={streamError(error)} />}
          <ErrorNotice error={stopError} />
        </div>
        <Composer onSend={(t) => void actions.send(t)} onStop={() => void stop()} streaming={working} blockedReason={blockedReason}>
          <RuntimePicker value={settings} onChange={setSettings} compact />
        </Composer>
      </div>
    </ChatActionsContext.Provider>
  );
}

export function NoRunYet({ onStart }: { onStart: () => void }) {
  return (
    <div className="p-6 text-sm text-zinc-600">
      This app has no builder conversation yet. <Button onClick={onStart}>Start one</Button>
    </div>
  );
}
