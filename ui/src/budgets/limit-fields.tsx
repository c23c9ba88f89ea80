import type { LimitDraft } from './limit-draft';

const input = 'w-full min-w-0 rounded-md border border-zinc-300 px-2 py-1 text-sm focus:border-accent focus:outline-none disabled:bg-zinc-50 disabled:text-zinc-400';

/** One limit's two units side by side: dollars, and tokens for runtimes without prices. */
export function LimitFields({ label, hint, value, onChange, disabled = false, testId }: {
  label: string;
  hint?: string;
  value: LimitDraft;
  onChange: (d: LimitDraft) => void;
  disabled?: boolean;
  testId: string;
}) {
  return (
    <fieldset className="space-y-1" data-testid={testId}>
      <legend className="text-xs font-medium text-zinc-700">{label}</legend>
      <div className="grid grid-cols-2 gap-2">
        <label className="flex items-center gap-1 text-sm">
          <span className="text-zinc-500">$</span>
          <input
            aria-label={`${label} in dollars`}
            inputMode="decimal"
            placeholder="No limit"
            value={value.usd}
            disabled={disabled}
            onChange={(e) => onChange({ ...value, usd: e.target.value })}
            className={input}
            data-testid={`${testId}-usd`}
          />
        </label>
        <label className="flex items-center gap-1 text-sm">
          <input
            aria-label={`${label} in tokens`}
            inputMode="numeric"
            placeholder="No limit"
            value={value.tokens}
            disabled={disabled}
            onChange={(e) => onChange({ ...value, tokens: e.target.value })}
            className={input}
            data-testid={`${testId}-tokens`}
          />
          <span className="text-zinc-500">tokens</span>
        </label>
      </div>
      {hint ? <p className="text-xs text-zinc-500">{hint}</p> : null}
    </fieldset>
  );
}
