import type { AppRelease } from '../api/types';
import { Badge } from '../components/badge';
import { useMemberLabel } from '../members/use-member-label';
import { when } from '../settings/when';
import { AskRollBackButton } from './ask-roll-back-button';
import { RollBackButton } from './roll-back-button';

const how = { publish: 'Published', review: 'Published through a review', rollback: 'Rolled back' } as const;

/** One release: which version went live, the turn's words, its agents, who published it and
 *  when. On a release that is not the live one an admin or owner rolls back (`rollBack`:
 *  'now') and another editor asks for it ('ask'; `pending`: a review waits already). */
export function ReleaseRow({ workspaceId, appId, release: r, rollBack, pending }: { workspaceId: string; appId: string; release: AppRelease; rollBack: 'now' | 'ask' | 'no'; pending: boolean }) {
  const label = useMemberLabel(workspaceId);
  return (
    <li className="space-y-1.5 px-3 py-2 text-sm" data-testid={`release-${r.number}`} data-live={r.live ? 'true' : 'false'}>
      <div className="flex flex-wrap items-center gap-2">
        <span className="font-medium">Release {r.number}</span>
        <span className="text-zinc-500">version {r.version}</span>
        {r.live ? <Badge tone="green">live</Badge> : null}
        {r.via === 'rollback' && r.rolledBackFrom ? <Badge tone="violet">again: release {r.rolledBackFrom}</Badge> : null}
      </div>
      {r.request ? <p className="line-clamp-2 text-zinc-700">“{r.request}”</p> : null}
      <p className="text-xs text-zinc-500">
        {how[r.via]} by {label(r.publishedBy)} on {when(r.publishedAt)}
        {r.approval ? ` · agents: ${r.approval.agents.join(', ') || 'none'}` : ' · no agents'}
      </p>
      {rollBack === 'now' && !r.live ? <RollBackButton workspaceId={workspaceId} appId={appId} release={r} /> : null}
      {rollBack === 'ask' && !r.live ? <AskRollBackButton workspaceId={workspaceId} appId={appId} release={r.number} pending={pending} /> : null}
    </li>
  );
}
