export function Spinner({ label }: { label?: string }) {
  return (
    <span className="inline-flex items-center gap-2 text-sm text-zinc-500" role="status">
      <span className="size-3.5 animate-spin rounded-full border-2 border-zinc-300 border-t-accent" aria-hidden />
      {label}
    </span>
  );
}
