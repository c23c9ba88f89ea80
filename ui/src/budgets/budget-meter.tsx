import type { BudgetShare } from '../api/types';
import { cn } from '../components/cn';
import { formatDollars, formatTokens } from './money';

/** This month's spend against a monthly limit, with a bar that turns amber at 80 % and red
 *  when it is spent. Without a limit: the spend alone. */
export function BudgetMeter({ label, share, testId }: { label: string; share: BudgetShare; testId: string }) {
  const limited = share.usedFraction !== null;
  const tokensOnly = share.limit.usd === null && share.limit.tokens !== null;
  const spent = tokensOnly ? formatTokens(share.spent.tokens) : formatDollars(share.spent.usd);
  const pct = Math.min(100, Math.round((share.usedFraction ?? 0) * 100));
  return (
    <div className="space-y-1" data-testid={testId} data-warning={share.warning} data-exhausted={share.exhausted}>
      <div className="flex items-baseline gap-2 text-sm">
        <span className="font-medium text-zinc-800">{label}</span>
        <span className="flex-1" />
        <span className="text-zinc-600" data-testid={`${testId}-text`}>
          {limited ? `${spent} of ${share.limitText}` : `${spent} · no limit`}
        </span>
      </div>
      {limited ? (
        <div className="h-1.5 overflow-hidden rounded-full bg-zinc-200" role="meter" aria-label={label} aria-valuemin={0} aria-valuemax={100} aria-valuenow={pct}>
          <div className={cn('h-full rounded-full', share.exhausted ? 'bg-red-500' : share.warning ? 'bg-amber-500' : 'bg-emerald-500')} style={{ width: `${pct}%` }} />
        </div>
      ) : null}
    </div>
  );
}
