// App agents (spec "App agent trigger flow"): trigger a governed agent and follow its run.
import { useCallback, useEffect, useRef, useState } from 'react';
import { listen, request } from './bridge.ts';
import type { AgentInfo, AgentStatus, AgentUpdate } from './protocol.ts';

export interface UseAgent {
  trigger: (prompt: string) => Promise<AgentUpdate>;
  status: AgentStatus | 'idle';
  isRunning: boolean;
  result: unknown;
  error: string | null;
  runId: string | null;
}

const running = (s: AgentStatus | 'idle') => s === 'pending' || s === 'running' || s === 'streaming';

/** Triggers agent `agentId` and follows its latest run: status, result and error update live. */
export function useAgent(agentId: string): UseAgent {
  const [update, setUpdate] = useState<AgentUpdate | null>(null);
  const [error, setError] = useState<string | null>(null);
  const runId = useRef<string | null>(null);

  useEffect(
    () =>
      listen((m) => {
        if (m.type !== 'platform:agent:update' || m.agentId !== agentId || m.runId !== runId.current) return;
        setUpdate(m as unknown as AgentUpdate);
        setError(typeof m.error === 'string' ? m.error : null);
      }),
    [agentId],
  );

  const trigger = useCallback(
    async (prompt: string) => {
      setError(null);
      const first = (await request('platform:agent:trigger', { agentId, prompt })) as unknown as AgentUpdate & { error?: string };
      if (!first.runId) {
        setError(first.error ?? 'The agent could not be started.');
        throw new Error(first.error ?? 'The agent could not be started.');
      }
      runId.current = first.runId;
      setUpdate(first);
      return first;
    },
    [agentId],
  );

  const status = update?.status ?? 'idle';
  return { trigger, status, isRunning: running(status), result: update?.result, error: error ?? update?.error ?? null, runId: update?.runId ?? null };
}

/** The app's agents (id, name, description), read once. */
export function useAgentList(): { agents: AgentInfo[]; loading: boolean; error: string | null } {
  const [state, setState] = useState<{ agents: AgentInfo[]; loading: boolean; error: string | null }>({ agents: [], loading: true, error: null });
  useEffect(() => {
    let alive = true;
    request('platform:agents:list-request', {}).then(
      (m) => alive && setState({ agents: (m.agents as AgentInfo[]) ?? [], loading: false, error: typeof m.error === 'string' ? m.error : null }),
      (e: Error) => alive && setState({ agents: [], loading: false, error: e.message }),
    );
    return () => {
      alive = false;
    };
  }, []);
  return state;
}
