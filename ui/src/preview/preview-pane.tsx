import { useState } from 'react';
import { useApp } from '../api/queries';
import { cn } from '../components/cn';
import { Icon } from '../components/icon';
import { PreviewFrame } from './preview-frame';

/** The live preview: the build the app's latest successful done_building made. Always shown
 *  from lg up (beside the chat); below lg only when `shown` (the Builder tab's Preview). */
export function PreviewPane({ workspaceId, appId, shown, id }: { workspaceId: string; appId: string; shown: boolean; id?: string }) {
  const { data: app } = useApp(workspaceId, appId);
  const [reloads, setReloads] = useState(0);
  const preview = app?.preview ?? null;
  return (
    <section id={id} className={cn('min-w-0 flex-1 flex-col bg-zinc-100 lg:flex', shown ? 'flex' : 'hidden')} aria-label="Preview">
      <div className="flex items-center gap-2 border-b border-zinc-200 bg-white px-4 py-2 text-xs text-zinc-500">
        <span className={`size-2 rounded-full ${preview ? 'bg-emerald-500' : 'bg-zinc-300'}`} aria-hidden />
        <span>Preview</span>
        {preview ? (
          <>
            {/* The build in words: when, and by the turn that answered which request (its
                digest only on hover). */}
            <span className="min-w-0 flex-1 truncate text-zinc-400" title={preview.digest} data-testid="preview-built">
              Built {builtWhen(preview.updatedAt)}
              {preview.builtBy?.request ? <> by the turn “{preview.builtBy.request}”</> : null}
            </span>
            <button type="button" className="rounded px-1.5 py-0.5 hover:bg-zinc-100" onClick={() => setReloads((n) => n + 1)}>
              Reload
            </button>
            {app?.publishedPreview ? (
              <a
                href={`/w/${encodeURIComponent(workspaceId)}/apps/${encodeURIComponent(appId)}/live`}
                target="_blank"
                rel="noopener"
                className="rounded px-1.5 py-0.5 hover:bg-zinc-100"
              >
                Published app
              </a>
            ) : null}
          </>
        ) : null}
      </div>
      {preview ? (
        <PreviewFrame
          key={`${preview.digest}:${reloads}`}
          preview={preview}
          scope="draft"
          workspaceId={workspaceId}
          appId={appId}
          title={`${app?.name ?? 'App'} preview`}
          className="m-3 flex-1 rounded-lg border border-zinc-200 bg-white shadow-sm"
        />
      ) : (
        <div className="m-4 flex flex-1 flex-col items-center justify-center gap-2 rounded-xl border border-dashed border-zinc-300 bg-white px-6 text-center text-sm text-zinc-400">
          <Icon name="file" className="size-6" />
          The app appears here after its first successful build.
        </div>
      )}
    </section>
  );
}

/** "today at 10:42", or the date and time for an older build. */
function builtWhen(at: number): string {
  const d = new Date(at);
  const time = d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  return d.toDateString() === new Date().toDateString() ? `today at ${time}` : `${d.toLocaleDateString()} at ${time}`;
}
