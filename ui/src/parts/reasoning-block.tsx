import * as Collapsible from '@radix-ui/react-collapsible';
import { useState } from 'react';
import { Icon } from '../components/icon';

export function ReasoningBlock({ text, streaming }: { text: string; streaming: boolean }) {
  const [open, setOpen] = useState(false);
  return (
    <Collapsible.Root open={open} onOpenChange={setOpen} className="my-1" data-part="reasoning">
      <Collapsible.Trigger className="inline-flex items-center gap-1.5 text-xs font-medium text-zinc-500 hover:text-zinc-800">
        <Icon name="chevron" className={`size-3 transition-transform ${open ? 'rotate-90' : ''}`} />
        <span className={streaming ? 'animate-pulse' : ''}>{streaming ? 'Reasoning...' : 'Done reasoning'}</span>
      </Collapsible.Trigger>
      <Collapsible.Content className="mt-1 border-l-2 border-zinc-200 pl-3 text-xs whitespace-pre-wrap text-zinc-600">{text}</Collapsible.Content>
    </Collapsible.Root>
  );
}
