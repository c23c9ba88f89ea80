import { mutate } from 'swr';
import { keys, mutations, send } from '../api/endpoints';
import { Button } from '../components/button';
import { ErrorNotice } from '../components/error-notice';
import { useAction } from '../settings/use-action';

const approvalErrors = {
  draft_changed: 'agents.json changed since this page loaded. The page now shows the current draft: check it, then approve again.',
  invalid_config: 'agents.json is invalid and cannot be approved. Fix the problems listed below (or ask the builder to), then approve.',
  no_draft: 'This app has no agents.json to approve yet. Ask the builder to create its agents first.',
};

/** Approves exactly the draft this page shows: its hash goes with the request, so a draft that
 *  changed in between is refused instead of approved unseen. */
export function ApproveAgentsButton({ workspaceId, appId, draftHash }: { workspaceId: string; appId: string; draftHash: string }) {
  const { run, busy, error } = useAction();
  const key = keys.agents(workspaceId, appId);
  const approve = async () => {
    const ok = await run(async () => {
      const view = await send(mutations.approveAgents(workspaceId, appId, { approvalHash: draftHash }));
      await mutate(key, view, { revalidate: false });
    });
    // A refusal means the draft moved on (or is invalid): show what it is now.
    if (!ok) void mutate(key);
  };
  return (
    <div className="space-y-2">
      <Button variant="primary" disabled={busy} onClick={() => void approve()} data-testid="approve-agents">
        {busy ? 'Approving…' : 'Approve agents'}
      </Button>
      <ErrorNotice error={error} wording={approvalErrors} />
    </div>
  );
}
