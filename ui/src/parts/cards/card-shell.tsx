import * as Collapsible from '@radix-ui/react-collapsible';
import { useState, type ReactNode } from 'react';
import { Icon, type IconName } from '../../components/icon';

/** The frame of an expandable tool card: a one-line header, details on demand. */
export function CardShell({
  icon,
  title,
  meta,
  state,
  children,
  defaultOpen = false,
  testId,
}: {
  icon: IconName;
  title: ReactNode;
  meta?: ReactNode;
  state: ReactNode;
  children?: ReactNode;
  defaultOpen?: boolean;
  testId: string;
}) {
  const [open, setOpen] = useState(defaultOpen);
  return (
    <Collapsible.Root open={open} onOpenChange={setOpen} className="my-1.5 rounded-lg border border-zinc-200 bg-white text-sm" data-card={testId}>
      <Collapsible.Trigger disabled={!children} className="flex w-full min-w-0 items-center gap-2 px-3 py-2 text-left disabled:cursor-default">
        <Icon name={icon} className="size-4 shrink-0 text-zinc-500" />
        <span className="min-w-0 flex-1 truncate">{title}</span>
        {meta}
        {state}
        {children ? (
          <Icon name="chevron" className={`size-3.5 text-zinc-400 transition-transform ${open ? 'rotate-90' : ''}`} />
        ) : null}
      </Collapsible.Trigger>
      {children ? <Collapsible.Content className="border-t border-zinc-100 px-3 py-2">{children}</Collapsible.Content> : null}
    </Collapsible.Root>
  );
}

export function JsonBlock({ label, value }: { label: string; value: unknown }) {
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  return (
    <div className="mt-1">
      <div className="text-xs font-medium text-zinc-500">{label}</div>
      <pre className="mt-0.5 max-h-72 overflow-auto rounded bg-zinc-50 p-2 font-mono text-xs whitespace-pre-wrap text-zinc-800">{text ?? ''}</pre>
    </div>
  );
}
