import { useState } from 'react';
import { Button } from '../components/button';
import { WorkspaceBudgetDialog } from './workspace-budget-dialog';

/** Opens the workspace's budget settings (admins: the sidebar's footer). */
export function WorkspaceBudgetButton({ workspaceId, className }: { workspaceId: string; className?: string }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button variant="ghost" onClick={() => setOpen(true)} className={className} data-testid="budgets-button">
        Budgets
      </Button>
      {open ? <WorkspaceBudgetDialog open={open} onOpenChange={setOpen} workspaceId={workspaceId} /> : null}
    </>
  );
}
