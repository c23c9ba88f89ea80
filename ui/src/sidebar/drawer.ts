import { createContext, useContext } from 'react';

/** The sidebar as a drawer, below the md breakpoint: whether it is open, and opening and
 *  closing it. At md and up the sidebar is part of the page and nothing opens it. */
export interface Drawer {
  open: boolean;
  /** Opens the drawer; focus goes back to `opener` when it closes. */
  show: (opener: HTMLElement | null) => void;
  hide: () => void;
}

export const DrawerContext = createContext<Drawer | null>(null);

/** The page's drawer, or null outside the page frame (no menu to open). */
export function useDrawer(): Drawer | null {
  return useContext(DrawerContext);
}

/** The id of the element the menu button opens (aria-controls). */
export const drawerId = 'sidebar';
