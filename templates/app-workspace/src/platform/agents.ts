// App agents (spec "App agent trigger flow"): trigger a governed agent and follow its run.
import { useCallback, useEffect, useRef, useState } from 'react';
import { listen, request } from './bridge.ts';
import type { AgentInfo, AgentStatus, AgentUpdate } from './protocol.ts';

/** An agent run as an app sees it (the spec's statuses): `running` stands for the platform's
 *  pending, running and streaming alike. */
export type AgentRunStatus = 'idle' | 'running' | 'completed' | 'failed';

export interface UseAgent {
  /** Starts a new run; the hook follows it from then on. Nothing to handle: the returned promise
   *  never rejects (it resolves once the platform answered the start), and a run that could not
   *  start shows as `status` `failed` with `error`. */
  trigger: (prompt: string) => Promise<void>;
  status: AgentRunStatus;
  isRunning: boolean;
  /** Why the run failed or could not start, for the person; null otherwise. */
  error: string | null;
  runId: string | null;
  /** The agent's final answer once `status` is `completed`. */
  result: unknown;
  /** @deprecated Use `status`: the platform's own run status (`pending`, `running`, `streaming`,
   *  `completed`, `failed`, or `idle`), which `status` was before the SDK followed the spec. */
  detailedStatus: AgentStatus | 'idle';
}

interface Run {
  runId: string | null;
  status: AgentStatus | 'idle';
  result?: unknown;
  error: string | null;
}

const idle: Run = { runId: null, status: 'idle', error: null };
const ended = (s: AgentStatus | 'idle') => s === 'completed' || s === 'failed';
// Anything not ended is running, so a status the platform may add later still reads as one of the four.
const simple = (s: AgentStatus | 'idle'): AgentRunStatus => (s === 'idle' || ended(s) ? s : 'running');

/** Triggers agent `agentId` and follows its latest run: status, result and error update live. */
export function useAgent(agentId: string): UseAgent {
  const [run, setRun] = useState<Run>(idle);
  // The run this hook follows; updates of an earlier trigger's run are not its any more.
  const following = useRef<string | null>(null);
  const triggers = useRef(0);

  useEffect(
    () =>
      listen((m) => {
        if (m.type !== 'platform:agent:update' || m.agentId !== agentId || following.current === null || m.runId !== following.current) return;
        const u = m as unknown as AgentUpdate;
        // An ended run never changes again: a late "running" (the start's answer) is older news.
        setRun((r) => (r.runId === u.runId && ended(r.status) ? r : { runId: u.runId, status: u.status, result: u.result, error: typeof u.error === 'string' ? u.error : null }));
      }),
    [agentId],
  );

  const trigger = useCallback(
    async (prompt: string) => {
      const mine = ++triggers.current;
      following.current = null;
      setRun({ runId: null, status: 'pending', error: null });
      let first: AgentUpdate & { error?: string };
      try {
        first = (await request('platform:agent:trigger', { agentId, prompt })) as unknown as AgentUpdate & { error?: string };
      } catch (e) {
        if (mine === triggers.current) setRun({ runId: null, status: 'failed', error: (e as Error).message });
        return;
      }
      if (mine !== triggers.current) return;
      if (!first.runId) {
        setRun({ runId: null, status: 'failed', error: first.error ?? 'The agent could not be started.' });
        return;
      }
      following.current = first.runId;
      setRun({ runId: first.runId, status: first.status, result: first.result, error: first.error ?? null });
    },
    [agentId],
  );

  const status = simple(run.status);
  return { trigger, status, isRunning: status === 'running', error: run.error, runId: run.runId, result: run.result, detailedStatus: run.status };
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
