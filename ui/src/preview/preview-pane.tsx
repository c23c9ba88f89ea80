import { useRef, useState } from 'react';
import { useApp } from '../api/queries';
import { Icon } from '../components/icon';
import { useParentBridge } from './use-parent-bridge';

// The app runs on an origin of its own; allow-same-origin gives it that origin (its storage,
// its module scripts), which is safe only because it is not the builder's. Never top
// navigation: the app cannot take the builder page away.
const sandbox = 'allow-scripts allow-same-origin allow-forms allow-modals allow-popups allow-downloads';
const sandboxSameOrigin = 'allow-scripts allow-forms allow-modals allow-popups allow-downloads';

/** The live preview: the build the app's latest successful done_building made. */
export function PreviewPane({ workspaceId, appId }: { workspaceId: string; appId: string }) {
  const { data: app } = useApp(workspaceId, appId);
  const [reloads, setReloads] = useState(0);
  const preview = app?.preview ?? null;
  const foreign = preview ? new URL(preview.url).origin !== location.origin : false;
  const frame = useRef<HTMLIFrameElement>(null);
  // A frame on the builder's own origin would get no bridge: it could be anything of ours.
  useParentBridge(frame, foreign && preview ? new URL(preview.url).origin : null, workspaceId, appId, 'draft');
  return (
    <section className="hidden min-w-0 flex-1 flex-col bg-zinc-100 lg:flex" aria-label="Preview">
      <div className="flex items-center gap-2 border-b border-zinc-200 bg-white px-4 py-2 text-xs text-zinc-500">
        <span className={`size-2 rounded-full ${preview ? 'bg-emerald-500' : 'bg-zinc-300'}`} aria-hidden />
        <span>Preview</span>
        {preview ? (
          <>
            <code className="font-mono text-[11px] text-zinc-400" title={preview.digest} data-testid="preview-digest">
              {preview.digest.slice(7, 19)}
            </code>
            <span className="flex-1" />
            <button type="button" className="rounded px-1.5 py-0.5 hover:bg-zinc-100" onClick={() => setReloads((n) => n + 1)}>
              Reload
            </button>
            <a href={preview.url} target="_blank" rel="noopener noreferrer" className="rounded px-1.5 py-0.5 hover:bg-zinc-100">
              Open
            </a>
          </>
        ) : null}
      </div>
      {preview ? (
        <iframe
          key={`${preview.digest}:${reloads}`}
          title={`${app?.name ?? 'App'} preview`}
          ref={frame}
          // The app learns where its parent is from the fragment (never sent to a server).
          src={`${preview.url}#parent=${encodeURIComponent(location.origin)}`}
          sandbox={foreign ? sandbox : sandboxSameOrigin}
          referrerPolicy="no-referrer"
          className="m-3 flex-1 rounded-lg border border-zinc-200 bg-white shadow-sm"
          data-testid="preview-frame"
        />
      ) : (
        <div className="m-4 flex flex-1 flex-col items-center justify-center gap-2 rounded-xl border border-dashed border-zinc-300 bg-white text-sm text-zinc-400">
          <Icon name="file" className="size-6" />
          The app appears here after its first successful build.
        </div>
      )}
    </section>
  );
}
