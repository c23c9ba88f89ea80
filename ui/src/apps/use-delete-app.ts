import { mutate } from 'swr';
import { keys, mutations, send } from '../api/endpoints';
import type { App } from '../api/types';
import { navigate, paths } from '../routing/location';
import { useAction } from '../settings/use-action';

/** DELETE .../apps/{app}, then the workspace's home; the sidebar drops the app at once (other
 *  tabs by the app.deleted event). */
export function useDeleteApp(app: App) {
  const { run, busy, error } = useAction();
  const remove = async () => {
    const done = await run(() => send(mutations.deleteApp(app.workspaceId, app.id)));
    if (!done) return;
    // Back to its address must not show the deleted app from the cache.
    void mutate(keys.app(app.workspaceId, app.id), undefined, { revalidate: false });
    void mutate<{ apps: App[]; nextCursor: string | null }>(
      keys.apps(app.workspaceId),
      (list) => (list ? { ...list, apps: list.apps.filter((a) => a.id !== app.id) } : list),
    );
    navigate(paths.workspace(app.workspaceId));
  };
  return { remove, busy, error };
}
