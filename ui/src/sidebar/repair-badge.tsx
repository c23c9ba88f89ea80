import type { RunSummary } from '../api/types';

/** "Call failed - builder fixing it": the app's latest builder run is a repair run for an app
 *  tool failure that has not ended yet (spec "Workspace events"). */
export function isRepairing(run: RunSummary | null | undefined): boolean {
  return !!run && run.runReason === 'app_tool_failure' && (run.status === 'pending' || run.status === 'streaming');
}

export function RepairBadge() {
  return (
    <span className="mt-0.5 block truncate text-[11px] font-medium text-amber-700" data-testid="repair-badge">
      Call failed - builder fixing it
    </span>
  );
}
