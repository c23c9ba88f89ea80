import { useMe, useMembers } from '../api/queries';
import type { Role } from '../api/types';
import { Dialog } from '../components/dialog';
import { ErrorNotice } from '../components/error-notice';
import { Spinner } from '../components/spinner';
import { AddMemberForm } from './add-member-form';
import { MemberRow } from './member-row';
import { isAdmin } from './roles';

/** The workspace's members and their roles (in external sign-in mode these memberships are what
 *  the roles come from). */
export function MembersDialog({ open, onOpenChange, workspaceId, role }: { open: boolean; onOpenChange: (o: boolean) => void; workspaceId: string; role: Role | undefined }) {
  const { data, error } = useMembers(workspaceId, open);
  const { data: me } = useMe();
  const canManage = isAdmin(role);
  return (
    <Dialog open={open} onOpenChange={onOpenChange} title="Members" description="Viewers use the published apps; collaborators build; admins and the owner approve agents, publish and manage integrations." wide>
      <div className="space-y-4" data-testid="members-dialog">
        {error ? <ErrorNotice error={error} /> : !data ? <Spinner label="Loading members" /> : null}
        {data ? (
          <ul className="divide-y divide-zinc-100 rounded-lg border border-zinc-200">
            {data.members.map((m) => (
              <MemberRow key={m.userId} workspaceId={workspaceId} member={m} canManage={canManage} isMe={m.userId === me?.id} />
            ))}
          </ul>
        ) : null}
        {data?.members.some((m) => !m.email) ? (
          // What the row's "has not signed in yet" means (external mode: roles are given by id).
          <p className="text-xs text-zinc-500" data-testid="not-signed-in-note">
            “Has not signed in yet”: the identity provider has not yet shown this id here. The role is kept for the person with that id; their name and email appear after their first sign-in.
          </p>
        ) : null}
        {canManage ? <AddMemberForm workspaceId={workspaceId} /> : null}
      </div>
    </Dialog>
  );
}
