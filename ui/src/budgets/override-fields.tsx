import { LimitFields } from './limit-fields';
import type { OverrideDraft } from './override-choice';

/** One of an app's limits: the workspace's default (named), none, or its own. */
export function OverrideFields({ label, defaultText, value, onChange, testId }: {
  label: string;
  defaultText: string;
  value: OverrideDraft;
  onChange: (d: OverrideDraft) => void;
  testId: string;
}) {
  return (
    <div className="space-y-1.5 rounded-lg border border-zinc-200 p-3">
      <label className="flex flex-wrap items-center gap-2 text-sm">
        <span className="flex-1 font-medium text-zinc-800">{label}</span>
        <select
          aria-label={`${label}: which limit`}
          value={value.mode}
          onChange={(e) => onChange({ ...value, mode: e.target.value as OverrideDraft['mode'] })}
          className="rounded-md border border-zinc-300 bg-white px-2 py-1 text-sm"
          data-testid={`${testId}-mode`}
        >
          <option value="default">Workspace default ({defaultText})</option>
          <option value="custom">This app's own</option>
          <option value="none">No limit</option>
        </select>
      </label>
      {value.mode === 'custom' ? <LimitFields label={`${label}, this app's`} value={value.custom} onChange={(custom) => onChange({ ...value, custom })} testId={testId} /> : null}
    </div>
  );
}
