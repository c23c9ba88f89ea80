import type { App } from '../api/types';
import { Button } from '../components/button';
import { Dialog } from '../components/dialog';
import { ErrorNotice } from '../components/error-notice';
import { useDeleteApp } from './use-delete-app';

// What a delete removes (docs/http-api.md, DELETE .../apps/{appId}), in a person's words.
const removed = [
  'its builder chats and their runs, and its agent runs',
  'the data of its draft and of its published app',
  'its previews and builds, versions, approvals and reviews',
  'its integration secrets and connected accounts',
  'its activity log, and its workspace on the workers',
];

/** Asks before deleting: names the app and what goes with it. */
export function DeleteAppDialog({ app, open, onOpenChange }: { app: App; open: boolean; onOpenChange: (o: boolean) => void }) {
  const { remove, busy, error } = useDeleteApp(app);
  return (
    <Dialog open={open} onOpenChange={(o) => !busy && onOpenChange(o)} title={`Delete “${app.name}”?`} description="This deletes the app for everyone in the workspace, and it cannot be undone. With it go:">
      <div className="space-y-4" data-testid="delete-app-dialog">
        <ul className="list-disc space-y-0.5 pl-5 text-sm text-zinc-700">
          {removed.map((r) => (
            <li key={r}>{r}</li>
          ))}
        </ul>
        <ErrorNotice error={error} />
        <div className="flex flex-wrap justify-end gap-2">
          <Button onClick={() => onOpenChange(false)} disabled={busy} data-testid="delete-app-cancel">
            Cancel
          </Button>
          <Button variant="danger" onClick={() => void remove()} disabled={busy} data-testid="delete-app-confirm">
            {busy ? 'Deleting…' : 'Delete app'}
          </Button>
        </div>
      </div>
    </Dialog>
  );
}
