import { createContext, useContext } from 'react';
import type { Role } from '../api/types';
import type { PendingApproval } from './approval';

/** What the cards of a run may do: answer its approval stop, as the current member. */
export interface ChatActions {
  workspaceId: string;
  appId: string;
  role: Role | undefined;
  /** The run's approval stop, derived from the persisted messages. */
  pending: PendingApproval | null;
  /** Sends a user message into the run (approval follow-ups, requested changes). */
  send: (text: string) => Promise<void>;
  busy: boolean;
}

export const ChatActionsContext = createContext<ChatActions | null>(null);

export function useChatActions(): ChatActions {
  const v = useContext(ChatActionsContext);
  if (!v) throw new Error('useChatActions outside a chat');
  return v;
}

// Approving agents.json is an admin's or owner's (spec "Authentication" 2).
export { isAdmin as canApproveAgents } from '../members/roles';
