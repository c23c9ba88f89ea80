import { useState } from 'react';
import type { Member } from '../api/types';
import { Button } from '../components/button';
import { ErrorNotice } from '../components/error-notice';
import { memberErrors } from './member-errors';
import { useRemoveMember } from './use-remove-member';

/** Remove, then a confirmation in the row that says what removing does. */
export function RemoveMemberButton({ workspaceId, member: m, isMe }: { workspaceId: string; member: Member; isMe: boolean }) {
  const [asking, setAsking] = useState(false);
  const { remove, busy, error } = useRemoveMember(workspaceId);
  const who = m.name || m.email || m.userId;
  if (!asking) {
    return (
      <Button variant="ghost" className="px-2 text-xs text-red-700" onClick={() => setAsking(true)} data-testid={`member-remove-${m.userId}`}>
        Remove
      </Button>
    );
  }
  return (
    <div className="basis-full space-y-2 rounded-md bg-red-50 px-3 py-2 text-sm text-red-900" role="alertdialog" aria-label={`Remove ${who}`}>
      <p>
        {isMe ? 'Leave this workspace?' : `Remove ${who} from this workspace?`} {isMe ? 'You' : 'They'} lose access to its apps at once, and the accounts{' '}
        {isMe ? 'you' : 'they'} connected to its apps are disconnected. Adding {isMe ? 'you' : 'them'} again later gives access back, but not those accounts.
      </p>
      <div className="flex flex-wrap gap-2">
        <Button variant="danger" disabled={busy} onClick={() => void remove(m.userId).then((ok) => ok && setAsking(false))} data-testid={`member-remove-confirm-${m.userId}`}>
          {busy ? 'Removing…' : isMe ? 'Leave' : 'Remove'}
        </Button>
        <Button variant="secondary" disabled={busy} onClick={() => setAsking(false)}>
          Cancel
        </Button>
      </div>
      <ErrorNotice error={error} wording={memberErrors} />
    </div>
  );
}
