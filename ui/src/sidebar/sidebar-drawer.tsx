import { useEffect, useRef, type ReactNode } from 'react';
import { cn } from '../components/cn';
import { drawerId, useDrawer } from './drawer';

/** The sidebar's place: in the page at md and up; below md a drawer over the page from the
 *  left, hidden (and out of the tab order) until the menu button opens it. A tap outside it
 *  closes it. */
export function SidebarDrawer({ children }: { children: ReactNode }) {
  const drawer = useDrawer();
  const open = drawer?.open ?? false;
  const panel = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (open) panel.current?.querySelector<HTMLElement>('[data-drawer-focus]')?.focus();
  }, [open]);
  return (
    <>
      {open ? <div className="fixed inset-0 z-30 bg-zinc-900/40 md:hidden" aria-hidden onClick={drawer?.hide} data-testid="drawer-backdrop" /> : null}
      <div
        id={drawerId}
        ref={panel}
        role={open ? 'dialog' : undefined}
        aria-modal={open ? true : undefined}
        aria-label={open ? 'Menu' : undefined}
        className={cn(
          'flex shrink-0 max-md:fixed max-md:inset-y-0 max-md:left-0 max-md:z-40 max-md:shadow-xl max-md:transition-[translate] max-md:duration-200',
          !open && 'max-md:invisible max-md:-translate-x-full',
        )}
        data-testid="sidebar-drawer"
        data-open={open}
      >
        {children}
      </div>
    </>
  );
}
