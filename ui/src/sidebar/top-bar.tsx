import { useWorkspaces } from '../api/queries';
import { MenuButton } from './menu-button';

/** Below md, a page without a header of its own gets this one: the menu and where you are. */
export function TopBar({ workspaceId }: { workspaceId: string }) {
  const { data } = useWorkspaces();
  const name = data?.workspaces.find((w) => w.id === workspaceId)?.name ?? workspaceId;
  return (
    <div className="flex items-center gap-2 border-b border-zinc-200 bg-white px-4 py-2 md:hidden" data-testid="top-bar">
      <MenuButton />
      <img src="/favicon.svg" alt="" className="size-5" />
      <span className="truncate text-sm font-semibold">{name}</span>
    </div>
  );
}
