// App actions (custom HTTP tools the platform runs for the app; no AI). Every answer is an
// Integration tool result: render `error` plus `resolution` on failure; configuration,
// credential and permission failures point to integration setup (openIntegrationSetup), which
// the builder can never fix; `canRequestBuilderRepair` offers "Ask builder to fix"
// (reportIntegrationToolFailure).
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

/** The failures only the integration's owner can fix, in the integration settings. */
export const needsIntegrationSetup = (r: IntegrationToolResult | null) =>
  !!r && !r.success && (r.errorCategory === 'configuration' || r.errorCategory === 'credentials' || r.errorCategory === 'permission');

/** Takes the person to the app's integration settings (the builder page). Rejects with the reason
 *  where that is not possible: on the published page, viewers do not edit the app. */
export async function openIntegrationSetup(toolName: string): Promise<void> {
  const m = await request('platform:integration:open-setup', { toolName });
  if (m.ok !== true) throw new Error(typeof m.error === 'string' ? m.error : 'The integration settings cannot be opened here.');
}

export interface UseIntegrationTool {
  call: (input?: unknown) => Promise<IntegrationToolResult>;
  result: IntegrationToolResult | null;
  loading: boolean;
  error: string | null;
  /** Set only when the last failure can be repaired by the builder. */
  reportFailure: ((description: string) => Promise<ReportFailureResponse>) | null;
  /** Set only when the last failure needs the integration's setup (a secret, a permission). */
  openSetup: (() => Promise<void>) | null;
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
  const openSetup = needsIntegrationSetup(result) ? () => openIntegrationSetup(toolName) : null;
  return { call, result, loading: state.loading, error: state.error, reportFailure, openSetup };
}
