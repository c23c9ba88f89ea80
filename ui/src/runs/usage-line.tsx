import type { RunUsage } from '../api/types';

const fmt = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });
const exact = new Intl.NumberFormat('en');
const dollars = new Intl.NumberFormat('en', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 6 });

/** Usage and cost of a run: tokens in and out, cache reads, dollars (spec "RunUsage"); the
 *  exact counts, cache writes included, on hover. */
export function UsageLine({ usage }: { usage: RunUsage | null | undefined }) {
  if (!usage) return null;
  const title =
    `${exact.format(usage.totalInputTokens)} input · ${exact.format(usage.totalOutputTokens)} output · ` +
    `${exact.format(usage.totalCacheReadTokens)} cache read · ${exact.format(usage.totalCacheCreationTokens)} cache write tokens · ` +
    dollars.format(usage.totalCostUsd);
  return (
    <span className="text-xs text-zinc-500" data-testid="usage" title={title}>
      {fmt.format(usage.totalInputTokens)} in · {fmt.format(usage.totalOutputTokens)} out
      {usage.totalCacheReadTokens ? ` · ${fmt.format(usage.totalCacheReadTokens)} cached` : ''} · ${usage.totalCostUsd.toFixed(usage.totalCostUsd < 1 ? 4 : 2)}
    </span>
  );
}
