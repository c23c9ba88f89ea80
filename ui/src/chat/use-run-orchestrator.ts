// The one owner of resuming a builder run's stream (spec "Client resume behavior" 1–4).
// useChat never resumes by itself; this hook decides, from no-store reads of the persisted run
// and from the run's workspace events, when to load messages, when to attach to the live
// stream and when a new page may send its stored prompt.
import { useCallback, useEffect, useRef } from 'react';
import type { Chat } from '@ai-sdk/react';
import type { ChatStatus, UIMessage } from 'ai';
import { mutate } from 'swr';
import { fetchRunNoStore } from '../api/queries';
import { keys } from '../api/endpoints';
import type { Run, WorkspaceEvent } from '../api/types';
import { useWorkspaceEvents } from '../events/use-workspace-events';
import type { RunChatKey } from './chat-registry';
import { takePrompt } from './stored-prompt';

const busy = (s: ChatStatus) => s === 'submitted' || s === 'streaming';
const liveSyncMs = 2000;
const maxAttachAttempts = 8;

export function useRunOrchestrator(chat: Chat<UIMessage>, key: RunChatKey, status: ChatStatus) {
  const { workspaceId, appId, runId } = key;
  const alive = useRef(true);
  const attaching = useRef(false);
  const liveSync = useRef<ReturnType<typeof setInterval> | null>(null);

  const stopLiveSync = useCallback(() => {
    if (liveSync.current) clearInterval(liveSync.current);
    liveSync.current = null;
  }, []);

  /** Reads the persisted run (no-store) and shows its messages unless this tab is streaming. */
  const sync = useCallback(async (): Promise<Run | undefined> => {
    let run: Run;
    try {
      run = await fetchRunNoStore(workspaceId, appId, runId);
    } catch {
      return undefined;
    }
    await mutate(keys.run(workspaceId, appId, runId), run, { revalidate: false });
    if (!busy(chat.status) && !attaching.current) chat.messages = run.messages;
    if (run.status !== 'streaming') {
      stopLiveSync();
      void mutate(keys.runs(workspaceId, appId));
      void mutate(keys.apps(workspaceId));
      // A turn that built moved the app's preview to its new build.
      void mutate(keys.app(workspaceId, appId));
    }
    return run;
  }, [chat, workspaceId, appId, runId, stopLiveSync]);

  /** resumeStream until the turn is over: a 204 while the run still streams means "not
   *  attachable yet" (resume rule 6), so the attach is retried with backoff. */
  const attach = useCallback(async () => {
    if (attaching.current) return;
    attaching.current = true;
    try {
      for (let attempt = 0; attempt < maxAttachAttempts && alive.current; attempt++) {
        if (busy(chat.status)) return;
        stopLiveSync();
        await chat.resumeStream();
        attaching.current = false;
        const run = await sync();
        attaching.current = true;
        if (!run || run.status !== 'streaming') return;
        await new Promise((r) => setTimeout(r, Math.min(4000, 250 * 2 ** attempt)));
      }
    } finally {
      attaching.current = false;
    }
  }, [chat, sync, stopLiveSync]);

  // First load of this run in this page.
  useEffect(() => {
    alive.current = true;
    if (!busy(chat.status)) {
      void (async () => {
        const run = await sync();
        if (!run || !alive.current) return;
        if (run.status === 'streaming' && run.messageCount > 0) void attach();
        else if (run.status === 'pending' && run.messageCount === 0) {
          const prompt = takePrompt(runId);
          if (prompt) void chat.sendMessage({ text: prompt });
        }
      })();
    }
    return () => {
      alive.current = false;
      stopLiveSync();
    };
  }, [chat, runId, sync, attach, stopLiveSync]);

  // This tab's own turn ended: the persisted run now says how (completed, failed, usage).
  const previous = useRef(status);
  useEffect(() => {
    if (busy(previous.current) && !busy(status)) void sync();
    previous.current = status;
  }, [status, sync]);

  // Back/forward restore from the page cache: the world moved on while the page was frozen.
  useEffect(() => {
    const onShow = (e: PageTransitionEvent) => {
      if (!e.persisted) return;
      void sync().then((run) => {
        if (run?.status === 'streaming') void attach();
      });
    };
    window.addEventListener('pageshow', onShow);
    return () => window.removeEventListener('pageshow', onShow);
  }, [sync, attach]);

  useWorkspaceEvents(workspaceId, { appId, runId, kind: 'builder' }, (e: WorkspaceEvent) => {
    // A tab ignores event-driven updates while its own chat is submitted or streaming.
    if (busy(chat.status) || attaching.current) return;
    switch (e.type) {
      case 'run.starting':
        void sync();
        stopLiveSync();
        liveSync.current = setInterval(() => {
          void sync().then((run) => {
            if (run?.status === 'streaming' && run.activeStreamId) void attach();
          });
        }, liveSyncMs);
        break;
      case 'run.stream_ready':
        void sync().then(() => attach());
        break;
      case 'run.completed':
      case 'run.failed':
        void sync();
        break;
    }
  });

  return { sync };
}
