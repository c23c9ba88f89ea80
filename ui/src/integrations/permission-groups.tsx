import type { IntegrationPermissionGroup } from '../api/types';

/** What the key must be allowed to do, as the builder asked: what to tick when creating it. */
export function PermissionGroups({ groups }: { groups: IntegrationPermissionGroup[] | undefined }) {
  if (!groups?.length) return null;
  return (
    <div className="mt-2 text-xs" data-testid="permission-groups">
      <p className="font-medium text-zinc-700">The key needs</p>
      <ul className="mt-0.5 space-y-0.5">
        {groups.map((g) => (
          <li key={g.name} className="text-zinc-600">
            <span className="font-medium text-zinc-800">{g.name}</span>
            {g.description ? <span> — {g.description}</span> : null}
            {g.permissions?.length ? (
              <span className="ml-1 inline-flex flex-wrap gap-1 align-middle">
                {g.permissions.map((perm) => (
                  <code key={perm} className="rounded bg-zinc-100 px-1 font-mono text-[11px] text-zinc-700">
                    {perm}
                  </code>
                ))}
              </span>
            ) : null}
          </li>
        ))}
      </ul>
    </div>
  );
}
