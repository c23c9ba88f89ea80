import { useState } from 'react';
import type { Role } from '../api/types';
import { Button } from '../components/button';
import { MembersDialog } from './members-dialog';

export function MembersButton({ workspaceId, role }: { workspaceId: string; role: Role | undefined }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button variant="ghost" onClick={() => setOpen(true)} data-testid="members-button">
        Members
      </Button>
      <MembersDialog open={open} onOpenChange={setOpen} workspaceId={workspaceId} role={role} />
    </>
  );
}
