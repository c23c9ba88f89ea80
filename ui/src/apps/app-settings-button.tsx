import { useState } from 'react';
import { useMe } from '../api/queries';
import type { App, Role } from '../api/types';
import { Icon } from '../components/icon';
import { canEdit, isAdmin } from '../members/roles';
import { AppSettingsDialog } from './app-settings-dialog';
import { DeleteAppDialog } from './delete-app-dialog';

/** The header's way to rename the app (editors) and delete it (admins, owners and its creator,
 *  as the server decides); nothing for those who may do neither. */
export function AppSettingsButton({ app, role }: { app: App; role: Role | undefined }) {
  const { data: me } = useMe();
  const [settings, setSettings] = useState(false);
  const [confirm, setConfirm] = useState(false);
  const canRename = canEdit(role);
  const canDelete = isAdmin(role) || (me !== undefined && me.id === app.createdBy);
  if (!canRename && !canDelete) return null;
  return (
    <>
      <button
        type="button"
        aria-label="App settings"
        title="App settings"
        onClick={() => setSettings(true)}
        className="shrink-0 rounded-md p-1.5 text-zinc-600 hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-accent"
        data-testid="app-settings-button"
      >
        <Icon name="gear" className="size-4" />
      </button>
      <AppSettingsDialog
        app={app}
        open={settings}
        onOpenChange={setSettings}
        canRename={canRename}
        canDelete={canDelete}
        onDelete={() => {
          setSettings(false);
          setConfirm(true);
        }}
      />
      {canDelete ? <DeleteAppDialog app={app} open={confirm} onOpenChange={setConfirm} /> : null}
    </>
  );
}
