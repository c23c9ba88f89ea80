// App actions (custom HTTP tools the platform runs for the app; no AI). Every answer is an
// Integration tool result: render `error` plus `resolution` on failure; credential and
// permission failures point to integration setup; `canRequestBuilderRepair` offers "Ask builder
// to fix" (reportIntegrationToolFailure).
import { useCallback, useState } from 'react';
import { request } from './bridge.ts';
import type { IntegrationToolResult, ReportFailureResponse } from './protocol.ts';

function toResult(m: Record<string, unknown>): IntegrationToolResult {
  const { type: _t, requestId: _r, ...rest } = m;
  return rest as unknown as IntegrationToolResult;
}

export async function callIntegrationTool(toolName: string, input: unknown = {}): Promise<IntegrationToolResult> {
  return toResult(await request('platform:integration:execute', { toolName, input }));
}

/** Draft preview only: asks the builder to fix a repairable failure (a builder repair run). */
export async function reportIntegrationToolFailure(
  toolName: string,
  input: unknown,
  result: IntegrationToolResult,
  description: string,
  attemptedTask?: string,
): Promise<ReportFailureResponse> {
  const m = await request('platform:integration:report-failure', { toolName, input, result, description, ...(attemptedTask ? { attemptedTask } : {}) });
  const { type: _t, requestId: _r, ...rest } = m;
  return rest as unknown as ReportFailureResponse;
}

export interface UseIntegrationTool {
  call: (input?: unknown) => Promise<IntegrationToolResult>;
  result: IntegrationToolResult | null;
  loading: boolean;
  error: string | null;
  /** Set only when the last failure can be repaired by the builder. */
  reportFailure: ((description: string) => Promise<ReportFailureResponse>) | null;
}

export function useIntegrationTool(toolName: string): UseIntegrationTool {
  const [state, setState] = useState<{ result: IntegrationToolResult | null; input: unknown; loading: boolean; error: string | null }>({
    result: null,
    input: undefined,
    loading: false,
    error: null,
  });
  const call = useCallback(
    async (input: unknown = {}) => {
      setState((s) => ({ ...s, loading: true, error: null }));
      try {
        const result = await callIntegrationTool(toolName, input);
        setState({ result, input, loading: false, error: result.success ? null : (result.error ?? 'The action failed.') });
        return result;
      } catch (e) {
        setState((s) => ({ ...s, loading: false, error: (e as Error).message }));
        throw e;
      }
    },
    [toolName],
  );
  const { result, input } = state;
  const reportFailure =
    result && !result.success && result.canRequestBuilderRepair ? (description: string) => reportIntegrationToolFailure(toolName, input, result, description) : null;
  return { call, result, loading: state.loading, error: state.error, reportFailure };
}
