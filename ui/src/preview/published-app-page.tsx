import { useApp } from '../api/queries';
import { ErrorNotice } from '../components/error-notice';
import { Spinner } from '../components/spinner';
import { PreviewFrame } from './preview-frame';

/** A published app on a page of its own: the published build, the published data scope and
 *  published agents (spec "Agent config approval": what was approved when it was published). */
export function PublishedAppPage({ workspaceId, appId }: { workspaceId: string; appId: string }) {
  const { data: app, error } = useApp(workspaceId, appId);
  if (error) return <ErrorNotice error={error} className="m-6" />;
  if (!app) return <div className="p-6"><Spinner label="Loading app" /></div>;
  const published = app.publishedPreview ?? null;
  return (
    <div className="flex h-full flex-col bg-zinc-100">
      <header className="flex items-center gap-3 border-b border-zinc-200 bg-white px-4 py-2">
        <h1 className="text-sm font-semibold">{app.name}</h1>
        <span className="rounded-full bg-emerald-50 px-2 py-0.5 text-xs text-emerald-700">Published</span>
        <span className="flex-1" />
        {app.preview !== null && app.preview !== undefined ? (
          <a href={`/w/${encodeURIComponent(workspaceId)}/apps/${encodeURIComponent(appId)}`} className="text-xs text-zinc-600 hover:text-accent">
            Open in the builder
          </a>
        ) : null}
      </header>
      {published ? (
        <PreviewFrame preview={published} scope="published" workspaceId={workspaceId} appId={appId} title={app.name} className="flex-1 bg-white" />
      ) : (
        <p className="m-6 text-sm text-zinc-600" data-testid="not-published">
          This app has not been published yet.
        </p>
      )}
    </div>
  );
}
