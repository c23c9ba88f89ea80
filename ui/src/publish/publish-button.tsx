import { useState } from 'react';
import type { App, Role } from '../api/types';
import { Button } from '../components/button';
import { PublishDialog } from './publish-dialog';

export function PublishButton({ app, role }: { app: App; role: Role | undefined }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button variant="primary" onClick={() => setOpen(true)} data-testid="publish-button">
        Publish
      </Button>
      <PublishDialog open={open} onOpenChange={setOpen} app={app} role={role} />
    </>
  );
}
