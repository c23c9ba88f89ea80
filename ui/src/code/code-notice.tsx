import { Icon } from '../components/icon';

/** The Code tab's sentence when it has nothing to show (no version yet, or a viewer). */
export function CodeNotice({ children }: { children: string }) {
  return (
    <div className="m-4 flex flex-1 flex-col items-center justify-center gap-2 rounded-xl border border-dashed border-zinc-300 bg-white px-6 py-12 text-center text-sm text-zinc-500" data-testid="code-empty">
      <Icon name="file" className="size-6 text-zinc-400" />
      <p className="max-w-sm">{children}</p>
    </div>
  );
}
