import type { Role } from '../api/types';
import { assignableRoles } from './assignable-roles';

type Assignable = Exclude<Role, 'owner'>;

export function RoleSelect({ value, onChange, label, disabled, testId }: { value: Assignable; onChange: (r: Assignable) => void; label: string; disabled?: boolean; testId: string }) {
  return (
    <select
      aria-label={label}
      value={value}
      disabled={disabled}
      onChange={(e) => onChange(e.target.value as Assignable)}
      data-testid={testId}
      className="rounded-md border border-zinc-300 bg-white px-2 py-1 text-sm"
    >
      {assignableRoles.map((r) => (
        <option key={r} value={r}>
          {r}
        </option>
      ))}
    </select>
  );
}
