import type { Member } from '../api/types';
import { Badge } from '../components/badge';
import { ErrorNotice } from '../components/error-notice';
import { memberErrors } from './member-errors';
import { RemoveMemberButton } from './remove-member-button';
import { RoleSelect } from './role-select';
import { useSetRole } from './use-set-role';

/** One member; admins and owners change anyone's role but the owner's, and remove anyone but
 *  the owner. */
export function MemberRow({ workspaceId, member: m, canManage, isMe }: { workspaceId: string; member: Member; canManage: boolean; isMe: boolean }) {
  const { setRole, busy, error } = useSetRole(workspaceId);
  return (
    <li className="space-y-1 px-3 py-2" data-testid={`member-${m.userId}`} data-role={m.role}>
      <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
        <div className="min-w-0 flex-1">
          <div className="truncate text-sm font-medium">
            {m.name || m.email || m.userId}
            {isMe ? <span className="ml-1 text-xs font-normal text-zinc-500">(you)</span> : null}
          </div>
          <div className="truncate text-xs text-zinc-500">{m.email ? `${m.email} · ${m.userId}` : `${m.userId} · has not signed in yet`}</div>
        </div>
        {canManage && m.role !== 'owner' ? (
          <RoleSelect label={`Role of ${m.name || m.userId}`} value={m.role} disabled={busy} onChange={(r) => void setRole(m.userId, r)} testId={`member-role-${m.userId}`} />
        ) : (
          <Badge tone={m.role === 'owner' ? 'violet' : 'neutral'}>{m.role}</Badge>
        )}
        {canManage && m.role !== 'owner' ? <RemoveMemberButton workspaceId={workspaceId} member={m} isMe={isMe} /> : null}
      </div>
      <ErrorNotice error={error} wording={memberErrors} />
    </li>
  );
}
