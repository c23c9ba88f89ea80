import { useState } from 'react';
import type { App } from '../api/types';
import { Button } from '../components/button';
import { Dialog } from '../components/dialog';
import { ReleasesList } from './releases-list';

/** A viewer's way to the app's history: the releases only (what was published, when, by whom);
 *  versions and the draft are for the app's makers. */
export function ReleasesButton({ app }: { app: App }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button variant="secondary" onClick={() => setOpen(true)} data-testid="releases-button">
        Releases
      </Button>
      <Dialog open={open} onOpenChange={setOpen} title="Releases" description="What was published, when and by whom. The newest is what you use." wide>
        <ReleasesList workspaceId={app.workspaceId} appId={app.id} open={open} rollBack="no" pending={false} />
      </Dialog>
    </>
  );
}
