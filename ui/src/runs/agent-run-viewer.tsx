import { Chat, useChat } from '@ai-sdk/react';
import { DefaultChatTransport, type UIMessage } from 'ai';
import { useEffect, useMemo, useState } from 'react';
import { mutate } from 'swr';
import { useAgentRunMessages } from '../api/queries';
import { keys } from '../api/endpoints';
import type { AgentRunDetail } from '../api/types';
import { ChatActionsContext, type ChatActions } from '../chat/chat-actions';
import { Button } from '../components/button';
import { ErrorNotice } from '../components/error-notice';
import { Spinner } from '../components/spinner';
import { useRole } from '../members/use-role';
import { MessageView } from '../parts/message-view';
import { streamError } from '../api/stream-error';

const ended = (s: AgentRunDetail['status']) => s === 'completed' || s === 'failed';
const live = (s: AgentRunDetail['status']) => s === 'running' || s === 'streaming';

/** The transcript of one app agent run (spec "App agent trigger flow": viewing is separate from
 *  running). A run still going is followed through exactly one viewer stream of this drawer's
 *  own Chat; one that had ended when the drawer opened is read from its stored messages. Leaving
 *  aborts only this browser's fetch: the run goes on on the worker. */
export function AgentRunViewer({ workspaceId, appId, run }: { workspaceId: string; appId: string; run: AgentRunDetail }) {
  const runKey = keys.agentRun(workspaceId, appId, run.id);
  const [chat] = useState(() => {
    const stream = `${runKey}/stream`;
    return new Chat<UIMessage>({
      id: `agent-run-${run.id}`,
      transport: new DefaultChatTransport<UIMessage>({ api: stream, credentials: 'same-origin', prepareReconnectToStreamRequest: () => ({ api: stream }) }),
    });
  });
  const { messages, status, error } = useChat({ chat, throttle: 50 });
  const [mode] = useState<'stream' | 'stored'>(() => (ended(run.status) ? 'stored' : 'stream'));
  // `following` spans the whole resume: the fetch before any chunk (status still 'ready') too.
  const [resumed, setResumed] = useState(false);
  const [following, setFollowing] = useState(false);
  const isLive = live(run.status);
  const follow = () => {
    setFollowing(true);
    void chat
      .resumeStream()
      .catch(() => {})
      .finally(() => {
        setFollowing(false);
        // The stream ended: the summary now says how the run ended.
        void mutate(runKey);
      });
  };

  // Once, when the run is running (a pending run has no stream yet: 204). Deferred a tick so
  // StrictMode's mount, unmount and mount again opens one stream, not two.
  useEffect(() => {
    if (mode !== 'stream' || !isLive || resumed) return;
    const t = setTimeout(() => {
      setResumed(true);
      follow();
    }, 0);
    return () => clearTimeout(t);
    // `follow` reads only `chat` and `runKey`, which never change for this viewer.
  }, [chat, mode, isLive, resumed]);

  useEffect(() => () => void chat.stop(), [chat]);

  // A stream that broke off or brought nothing is replaced by the stored transcript once the run has ended.
  const useStored = mode === 'stored' || (ended(run.status) && !following && (messages.length === 0 || status === 'error'));
  const { data: stored, error: storedError } = useAgentRunMessages(workspaceId, appId, run.id, useStored);
  const shown = useStored ? (stored?.messages ?? []) : messages;

  const role = useRole(workspaceId);
  // Cards only render here: nothing in a viewer answers a builder's approval stop.
  const actions = useMemo<ChatActions>(() => ({ workspaceId, appId, role, pending: null, send: async () => {}, busy: true }), [workspaceId, appId, role]);

  return (
    <ChatActionsContext.Provider value={actions}>
      <div className="space-y-4" data-testid="agent-run-messages" data-mode={useStored ? 'stored' : 'stream'}>
        {shown.map((m, i) => (
          <MessageView key={m.id} message={m} streaming={!useStored && status === 'streaming' && i === shown.length - 1} />
        ))}
        {run.status === 'pending' ? <Spinner label="Waiting for the run to start" /> : null}
        {!useStored && following && shown.length === 0 ? <Spinner label="Connecting to the run" /> : null}
        {useStored && !stored && !storedError ? <Spinner label="Loading the transcript" /> : null}
        {!useStored && isLive && !following && resumed ? (
          <div className="flex items-center gap-2 text-sm text-zinc-600">
            {status === 'error' ? null : <span>The stream ended while the run goes on.</span>}
            <Button onClick={follow} data-testid="agent-run-follow">
              Follow again
            </Button>
          </div>
        ) : null}
        {useStored && stored && shown.length === 0 ? <p className="text-sm text-zinc-500">This run left no messages.</p> : null}
        {!useStored ? <ErrorNotice error={streamError(error)} /> : null}
        <ErrorNotice error={storedError} />
      </div>
    </ChatActionsContext.Provider>
  );
}
