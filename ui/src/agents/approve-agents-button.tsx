import { useState } from 'react';
import { mutate } from 'swr';
import { api } from '../api/client';
import { keys } from '../api/queries';
import type { AgentsView } from '../api/types';
import { Button } from '../components/button';
import { ErrorNotice } from '../components/error-notice';
import { explainError } from '../settings/explain-error';

const approvalErrors = {
  draft_changed: 'agents.json changed since this page loaded. The page now shows the current draft: check it, then approve again.',
  invalid_config: 'agents.json is invalid and cannot be approved. Fix the problems listed below (or ask the builder to), then approve.',
  no_draft: 'This app has no agents.json to approve yet. Ask the builder to create its agents first.',
};

/** Approves exactly the draft this page shows: its hash goes with the request, so a draft that
 *  changed in between is refused instead of approved unseen. */
export function ApproveAgentsButton({ workspaceId, appId, draftHash }: { workspaceId: string; appId: string; draftHash: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const key = keys.agents(workspaceId, appId);
  const approve = async () => {
    setBusy(true);
    setError(null);
    try {
      const view = await api<AgentsView>(`${key}/approval`, { method: 'POST', body: { approvalHash: draftHash } });
      await mutate(key, view, { revalidate: false });
    } catch (e) {
      setError(e);
      void mutate(key);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="space-y-2">
      <Button variant="primary" disabled={busy} onClick={() => void approve()} data-testid="approve-agents">
        {busy ? 'Approving…' : 'Approve agents'}
      </Button>
      <ErrorNotice error={explainError(error, approvalErrors)} />
    </div>
  );
}
