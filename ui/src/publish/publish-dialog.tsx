import { useEffect } from 'react';
import { mutate } from 'swr';
import { useAgentsView, useReviews } from '../api/queries';
import { keys } from '../api/endpoints';
import type { App, Role } from '../api/types';
import { Dialog } from '../components/dialog';
import { ErrorNotice } from '../components/error-notice';
import { Spinner } from '../components/spinner';
import { isAdmin } from '../members/roles';
import { PublishNow } from './publish-now';
import { PublishReadiness } from './publish-readiness';
import { ReleasesList } from './releases-list';
import { RequestReviewForm } from './request-review-form';
import { ReviewRow } from './review-row';

const recentDecided = 5;

/** Publishing: admins and owners publish directly and decide reviews; other editors ask for one.
 *  `app` is the page's GET of the app: its `preview` says whether the draft has a build, without
 *  which a publish is refused (409 no_build). */
export function PublishDialog({ open, onOpenChange, app, role }: { open: boolean; onOpenChange: (o: boolean) => void; app: App; role: Role | undefined }) {
  const { data: view, error: viewError, mutate: reloadView } = useAgentsView(app.workspaceId, app.id);
  const { data, error, mutate: reloadReviews } = useReviews(app.workspaceId, app.id, open);
  // Others ask for reviews, approve agents and build meanwhile: opening reads them again,
  // however recently they were read.
  useEffect(() => {
    if (!open) return;
    void reloadView();
    void reloadReviews();
    void mutate(keys.app(app.workspaceId, app.id));
  }, [open, reloadView, reloadReviews, app.workspaceId, app.id]);
  const admin = isAdmin(role);
  // Known from the server to have no build (undefined: not known, the server decides).
  const noBuild = app.preview === null;
  const reviews = data?.reviews ?? [];
  const pending = reviews.filter((r) => r.status === 'pending');
  const decided = reviews.filter((r) => r.status !== 'pending').slice(0, recentDecided);
  return (
    <Dialog open={open} onOpenChange={onOpenChange} title="Publish" description="Publishing copies the current draft, with its approved agents, to the app viewers use." wide>
      <div className="space-y-5" data-testid="publish-dialog">
        {view ? <PublishReadiness app={app} view={view} /> : viewError ? <ErrorNotice error={viewError} /> : <Spinner label="Loading" />}
        {admin ? <PublishNow workspaceId={app.workspaceId} appId={app.id} noBuild={noBuild} /> : <RequestReviewForm workspaceId={app.workspaceId} appId={app.id} pending={pending.length > 0} />}
        <section>
          <h3 className="text-sm font-semibold">Waiting for review</h3>
          <ErrorNotice error={error} />
          {data && pending.length === 0 ? <p className="mt-1 text-sm text-zinc-500">No review is waiting.</p> : null}
          {pending.length ? (
            <ul className="mt-2 divide-y divide-zinc-100 rounded-lg border border-zinc-200" data-testid="pending-reviews">
              {pending.map((r) => (
                <ReviewRow key={r.id} workspaceId={app.workspaceId} appId={app.id} review={r} canDecide={admin} noBuild={noBuild} />
              ))}
            </ul>
          ) : null}
        </section>
        <ReleasesList workspaceId={app.workspaceId} appId={app.id} open={open} rollBack={admin ? 'now' : 'ask'} pending={pending.length > 0} />
        {decided.length ? (
          <section>
            <h3 className="text-sm font-semibold">Recent decisions</h3>
            <ul className="mt-2 divide-y divide-zinc-100 rounded-lg border border-zinc-200">
              {decided.map((r) => (
                <ReviewRow key={r.id} workspaceId={app.workspaceId} appId={app.id} review={r} canDecide={false} />
              ))}
            </ul>
          </section>
        ) : null}
      </div>
    </Dialog>
  );
}
