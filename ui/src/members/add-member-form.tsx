import { useState } from 'react';
import type { Role } from '../api/types';
import { Button } from '../components/button';
import { ErrorNotice } from '../components/error-notice';
import { memberErrors } from './member-errors';
import { RoleSelect } from './role-select';
import { useSetRole } from './use-set-role';

/** Adds a member by the user id the identity provider gives them (their name and email appear
 *  once they sign in). */
export function AddMemberForm({ workspaceId }: { workspaceId: string }) {
  const { setRole, busy, error } = useSetRole(workspaceId);
  const [userId, setUserId] = useState('');
  const [role, setRoleChoice] = useState<Exclude<Role, 'owner'>>('collaborator');
  return (
    <form
      className="space-y-2"
      onSubmit={(e) => {
        e.preventDefault();
        const id = userId.trim();
        if (id) void setRole(id, role).then((ok) => ok && setUserId(''));
      }}
    >
      <div className="flex flex-wrap items-center gap-2">
        <input
          aria-label="User id"
          value={userId}
          onChange={(e) => setUserId(e.target.value)}
          placeholder="User id"
          data-testid="add-member-user-id"
          className="min-w-0 flex-1 rounded-md border border-zinc-300 px-2 py-1 text-sm focus:border-accent focus:outline-none"
        />
        <RoleSelect label="Role" value={role} onChange={setRoleChoice} testId="add-member-role" />
        <Button type="submit" variant="primary" disabled={busy || !userId.trim()} data-testid="add-member">
          Add
        </Button>
      </div>
      <ErrorNotice error={error} wording={memberErrors} />
    </form>
  );
}
