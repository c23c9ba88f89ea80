import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { usePathname } from '../routing/location';
import type { Drawer } from './drawer';

// Tailwind's md breakpoint: from here on the sidebar is in the page, not a drawer.
const desktop = '(min-width: 48rem)';

/** The drawer's state for the page frame. It is open at one address only: any navigation
 *  (a link in it, Back, a page's own navigate) closes it. Escape closes it, and focus goes back
 *  to the button that opened it. */
export function useDrawerState(): Drawer {
  const pathname = usePathname();
  const [openAt, setOpenAt] = useState<string | null>(null);
  const opener = useRef<HTMLElement | null>(null);
  const open = openAt === pathname;

  const show = useCallback((from: HTMLElement | null) => {
    opener.current = from;
    setOpenAt(location.pathname);
  }, []);
  const hide = useCallback(() => setOpenAt(null), []);

  // Opened at an address left since: forgotten, so coming Back there does not reopen it.
  useEffect(() => {
    if (openAt !== null && openAt !== pathname) setOpenAt(null);
  }, [openAt, pathname]);

  const wasOpen = useRef(false);
  useEffect(() => {
    if (wasOpen.current && !open && opener.current?.isConnected) opener.current.focus();
    wasOpen.current = open;
  }, [open]);

  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') hide();
    };
    // Widened past md: the sidebar is back in the page, and nothing is left inert behind it.
    const wide = matchMedia(desktop);
    const onWide = () => {
      if (wide.matches) hide();
    };
    document.addEventListener('keydown', onKey);
    wide.addEventListener('change', onWide);
    return () => {
      document.removeEventListener('keydown', onKey);
      wide.removeEventListener('change', onWide);
    };
  }, [open, hide]);

  return useMemo(() => ({ open, show, hide }), [open, show, hide]);
}
