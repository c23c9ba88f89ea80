import type { VersionSummary } from '../api/types';
import { versionLabel } from './version-label';

/** Which version the Files view shows, newest first. A version from the address that is not
 *  among the ones read (older than the first page) still has its own entry. */
export function VersionPicker({ versions, selected, onChange }: { versions: VersionSummary[]; selected: number; onChange: (n: number) => void }) {
  const latest = versions[0]?.number;
  // Its own row on a phone: the label is the version in words, and cut short it says little.
  return (
    <label className="flex min-w-0 basis-full items-center gap-2 sm:basis-auto">
      <span className="sr-only">Version</span>
      <select
        value={selected}
        onChange={(e) => onChange(Number(e.target.value))}
        className="w-full min-w-0 truncate rounded-md border border-zinc-300 bg-white py-1 pr-8 pl-2.5 text-sm text-zinc-800 sm:w-auto sm:max-w-[34rem]"
        data-testid="version-picker"
      >
        {versions.some((v) => v.number === selected) ? null : <option value={selected}>Version {selected}</option>}
        {versions.map((v) => (
          <option key={v.number} value={v.number}>
            {versionLabel(v)}
            {v.number === latest ? ' (latest)' : ''}
          </option>
        ))}
      </select>
    </label>
  );
}
