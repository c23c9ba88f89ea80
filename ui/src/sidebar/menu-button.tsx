import { Icon } from '../components/icon';
import { drawerId, useDrawer } from './drawer';

/** Opens the sidebar drawer; shown below md only, where the sidebar is not in the page. */
export function MenuButton() {
  const drawer = useDrawer();
  if (!drawer) return null;
  return (
    <button
      type="button"
      aria-label="Open menu"
      aria-expanded={drawer.open}
      aria-controls={drawerId}
      onClick={(e) => drawer.show(e.currentTarget)}
      className="-ml-1.5 shrink-0 rounded-md p-1.5 text-zinc-700 hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-accent md:hidden"
      data-testid="menu-button"
    >
      <Icon name="menu" className="size-5" />
    </button>
  );
}
