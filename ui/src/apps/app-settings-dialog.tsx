import type { App } from '../api/types';
import { Button } from '../components/button';
import { Dialog } from '../components/dialog';
import { RenameAppForm } from './rename-app-form';

/** The app's name and, for those who may, its deletion (which asks first, in its own dialog). */
export function AppSettingsDialog({ app, open, onOpenChange, canRename, canDelete, onDelete }: {
  app: App;
  open: boolean;
  onOpenChange: (o: boolean) => void;
  canRename: boolean;
  canDelete: boolean;
  onDelete: () => void;
}) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange} title="App settings">
      <div className="space-y-5" data-testid="app-settings-dialog">
        {canRename ? <RenameAppForm key={app.name} app={app} onDone={() => onOpenChange(false)} /> : null}
        {canDelete ? (
          <section className="space-y-2 rounded-lg border border-red-200 p-3">
            <h3 className="text-sm font-semibold">Delete this app</h3>
            <p className="text-sm text-zinc-600">Removes the app with its chats, runs, data and previews for everyone.</p>
            <Button variant="danger" onClick={onDelete} data-testid="delete-app-open">
              Delete app…
            </Button>
          </section>
        ) : null}
      </div>
    </Dialog>
  );
}
