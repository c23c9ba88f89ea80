// Each builder run's Chat lives here, outside React, keyed by run: unmounting a view never
// aborts its POST (spec client rule 4; useChat stops chats it owns on unmount), and coming
// back to a run finds the same Chat still streaming.
import { Chat } from '@ai-sdk/react';
import { DefaultChatTransport, type UIMessage } from 'ai';
import { streams } from '../api/endpoints';
import type { RuntimeSettings } from '../api/types';

export interface RunChatKey {
  workspaceId: string;
  appId: string;
  runId: string;
}

const chats = new Map<string, Chat<UIMessage>>();
const settings = new Map<string, RuntimeSettings>();

/** The runtime settings the next message of `appId` carries (the picker's choice). */
export function setNextRuntimeSettings(appId: string, s: RuntimeSettings) {
  settings.set(appId, s);
}

export function runChat({ workspaceId, appId, runId }: RunChatKey): Chat<UIMessage> {
  let chat = chats.get(runId);
  if (chat) return chat;
  chat = new Chat<UIMessage>({
    id: runId,
    transport: new DefaultChatTransport<UIMessage>({
      api: streams.runChat(workspaceId, appId, runId),
      credentials: 'same-origin',
      prepareSendMessagesRequest: ({ messages }) => ({
        body: { messages, ...(settings.get(appId) ?? {}) },
      }),
      // The resume endpoint replays the turn from its start; its start chunk carries the
      // turn's stable message id, so the replay rebuilds the message instead of adding one.
      prepareReconnectToStreamRequest: () => ({ api: streams.runChatResume(workspaceId, appId, runId) }),
    }),
  });
  chats.set(runId, chat);
  return chat;
}
