import type { ReactNode } from 'react';
import { cn } from '../components/cn';
import { Icon } from '../components/icon';

/** A side column from md up; below md (stacked above the content) a row that opens and closes
 *  it, saying what it holds while closed. */
export function CollapsiblePanel({ title, open, onOpenChange, children, testId }: { title: ReactNode; open: boolean; onOpenChange: (open: boolean) => void; children: ReactNode; testId?: string }) {
  return (
    <>
      <button
        type="button"
        onClick={() => onOpenChange(!open)}
        aria-expanded={open}
        className="flex w-full min-w-0 items-center gap-2 px-4 py-2.5 text-left text-sm text-zinc-700 md:hidden"
        data-testid={testId ? `${testId}-toggle` : undefined}
      >
        <Icon name="chevron" className={cn('size-4 shrink-0 text-zinc-400 transition-transform', open && 'rotate-90')} />
        <span className="min-w-0 flex-1 truncate">{title}</span>
      </button>
      <div className={cn('px-2 pb-2 md:block md:pt-2', open ? 'block' : 'hidden')} data-testid={testId}>
        {children}
      </div>
    </>
  );
}
