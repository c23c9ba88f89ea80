// Streamdown and its markdown pipeline are half of the page's code: they come in a chunk of
// their own, fetched once, by the first message that needs them or by a run page as it opens
// (routing/pages.ts), never for the first screen.
let renderer: Promise<typeof import('streamdown')> | undefined;

export function loadMarkdownRenderer(): Promise<typeof import('streamdown')> {
  // Forgotten when it fails, so the next message tries again instead of failing for good.
  renderer ??= import('streamdown').catch((e: unknown) => {
    renderer = undefined;
    throw e;
  });
  return renderer;
}
