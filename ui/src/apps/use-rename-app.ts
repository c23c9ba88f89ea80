import { mutate } from 'swr';
import { keys, mutations, send } from '../api/endpoints';
import type { App } from '../api/types';
import { useAction } from '../settings/use-action';

/** PATCH .../apps/{app} {name}: the header and the sidebar show the new name at once. */
export function useRenameApp(app: App) {
  const { run, busy, error } = useAction();
  const rename = (name: string) =>
    run(async () => {
      await send(mutations.renameApp(app.workspaceId, app.id, { name }));
      // The reply has no preview links: the page's copy keeps its own and takes the name.
      await mutate<App>(keys.app(app.workspaceId, app.id), (current) => (current ? { ...current, name } : current), { revalidate: false });
      void mutate(keys.apps(app.workspaceId));
    });
  return { rename, busy, error };
}
