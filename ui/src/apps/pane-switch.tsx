import { cn } from '../components/cn';

export type Pane = 'chat' | 'preview';

export const paneIds: Record<Pane, string> = { chat: 'app-chat-pane', preview: 'app-preview-pane' };

/** Below lg the chat and the preview do not fit side by side: they become two tabs. The dot
 *  says whether there is a build to look at. */
export function PaneSwitch({ pane, onChange, hasPreview }: { pane: Pane; onChange: (p: Pane) => void; hasPreview: boolean }) {
  const tab = (p: Pane, label: string, dot?: boolean) => (
    <button
      type="button"
      role="tab"
      aria-selected={pane === p}
      aria-controls={paneIds[p]}
      onClick={() => onChange(p)}
      className={cn(
        'flex flex-1 items-center justify-center gap-1.5 rounded-md px-3 py-1 text-sm',
        pane === p ? 'bg-zinc-100 font-medium text-zinc-900' : 'text-zinc-600 hover:bg-zinc-50',
      )}
      data-testid={`pane-${p}`}
    >
      {dot !== undefined ? <span aria-hidden className={cn('size-1.5 rounded-full', dot ? 'bg-emerald-500' : 'bg-zinc-300')} /> : null}
      {label}
    </button>
  );
  return (
    <div role="tablist" aria-label="Builder view" className="flex gap-1 border-b border-zinc-200 bg-white px-4 py-1.5 lg:hidden" data-testid="pane-switch">
      {tab('chat', 'Chat')}
      {tab('preview', 'Preview', hasPreview)}
    </div>
  );
}
