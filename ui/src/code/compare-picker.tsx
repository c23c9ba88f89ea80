import type { VersionSummary } from '../api/types';

/** What the version's changes are shown against: the version before it (the default), or any
 *  other version the list has read. */
export function ComparePicker({ versions, version, from, onChange }: { versions: VersionSummary[]; version: number; from: number | null; onChange: (from: number | null) => void }) {
  const others = versions.filter((v) => v.number !== version);
  if (others.length === 0) return null;
  return (
    <label className="flex items-center gap-2 text-xs text-zinc-600">
      Compare with
      <select
        value={from ?? ''}
        onChange={(e) => onChange(e.target.value === '' ? null : Number(e.target.value))}
        className="rounded-md border border-zinc-300 bg-white py-0.5 pr-7 pl-2 text-xs text-zinc-800"
        data-testid="compare-picker"
      >
        <option value="">the version before</option>
        {others.map((v) => (
          <option key={v.number} value={v.number}>
            version {v.number}
          </option>
        ))}
      </select>
    </label>
  );
}
