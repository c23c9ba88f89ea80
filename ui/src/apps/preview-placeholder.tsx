/** The live preview's place in the layout (the preview itself comes with the app SDK). */
export function PreviewPlaceholder() {
  return (
    <section className="hidden min-w-0 flex-1 flex-col bg-zinc-100 lg:flex" aria-label="Preview">
      <div className="flex items-center gap-2 border-b border-zinc-200 bg-white px-4 py-2 text-xs text-zinc-500">
        <span className="size-2 rounded-full bg-zinc-300" aria-hidden /> Preview
      </div>
      <div className="m-4 flex flex-1 items-center justify-center rounded-xl border border-dashed border-zinc-300 bg-white text-sm text-zinc-400">
        The app appears here after its first successful build.
      </div>
    </section>
  );
}
