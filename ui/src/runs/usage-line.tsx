import type { RunUsage } from '../api/types';

const fmt = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });

/** Usage and cost of a run: tokens in and out, cache reads, dollars (spec "RunUsage"). */
export function UsageLine({ usage }: { usage: RunUsage | null | undefined }) {
  if (!usage) return null;
  return (
    <span className="text-xs text-zinc-500" data-testid="usage">
      {fmt.format(usage.totalInputTokens)} in · {fmt.format(usage.totalOutputTokens)} out
      {usage.totalCacheReadTokens ? ` · ${fmt.format(usage.totalCacheReadTokens)} cached` : ''} · ${usage.totalCostUsd.toFixed(usage.totalCostUsd < 1 ? 4 : 2)}
    </span>
  );
}
