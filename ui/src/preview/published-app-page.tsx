import { useAgentsView, useApp } from '../api/queries';
import { ErrorNotice } from '../components/error-notice';
import { Spinner } from '../components/spinner';
import { canEdit } from '../members/roles';
import { useRole } from '../members/use-role';
import { useMemberLabel } from '../members/use-member-label';
import { when } from '../settings/when';
import { PreviewFrame } from './preview-frame';

/** A published app on a page of its own: the published build, the published data scope and
 *  published agents (spec "Agent config approval": what was approved when it was published). */
export function PublishedAppPage({ workspaceId, appId }: { workspaceId: string; appId: string }) {
  const { data: app, error } = useApp(workspaceId, appId);
  // A publish before the builder's first successful build publishes no build: the page says so
  // instead of "not published" (the agents view knows the publication).
  const { data: view, error: viewError } = useAgentsView(workspaceId, appId);
  const label = useMemberLabel(workspaceId);
  const role = useRole(workspaceId);
  if (error) return <ErrorNotice error={error} className="m-6" />;
  if (!app) return <div className="p-6"><Spinner label="Loading app" /></div>;
  const published = app.publishedPreview ?? null;
  // Editors build the draft even before its first build (when it has no preview yet).
  const readsDraft = (app.preview !== null && app.preview !== undefined) || canEdit(role);
  return (
    <div className="flex h-full flex-col bg-zinc-100">
      <header className="flex items-center gap-3 border-b border-zinc-200 bg-white px-4 py-2">
        <h1 className="min-w-0 truncate text-sm font-semibold">{app.name}</h1>
        {published || view?.published ? <span className="rounded-full bg-emerald-50 px-2 py-0.5 text-xs text-emerald-700">Published</span> : null}
        <span className="flex-1" />
        {readsDraft ? (
          <a href={`/w/${encodeURIComponent(workspaceId)}/apps/${encodeURIComponent(appId)}`} className="shrink-0 text-xs text-zinc-600 hover:text-accent" data-testid="open-in-builder">
            Open in the builder
          </a>
        ) : null}
      </header>
      {published ? (
        <PreviewFrame key={published.digest} preview={published} scope="published" workspaceId={workspaceId} appId={appId} title={app.name} className="flex-1 bg-white" />
      ) : !view && !viewError ? (
        <div className="p-6"><Spinner label="Loading" /></div>
      ) : (
        <p className="m-6 text-sm text-zinc-600" data-testid="not-published" data-published={view?.published ? 'true' : 'false'}>
          {view?.published
            ? `This app was published by ${label(view.published.publishedBy)} on ${when(view.published.publishedAt)}, but it has no build yet: publish it again once the builder has built it.`
            : 'This app has no published build yet: an admin or owner publishes it once the builder has built it.'}
        </p>
      )}
    </div>
  );
}
