import { useState } from 'react';
import { useWorkspaceBudget } from '../api/queries';
import type { WorkspaceBudget } from '../api/types';
import { Button } from '../components/button';
import { Dialog } from '../components/dialog';
import { ErrorNotice } from '../components/error-notice';
import { Spinner } from '../components/spinner';
import { BudgetBanner } from './budget-banner';
import { BudgetMeter } from './budget-meter';
import { draftOf, limitOf } from './limit-draft';
import { LimitFields } from './limit-fields';
import { useSaveBudget } from './use-save-budget';

/** The workspace's budget settings: its own monthly limit and this month's spend, and the
 *  defaults every app gets (an app may override them on its Runs tab). */
export function WorkspaceBudgetDialog({ open, onOpenChange, workspaceId }: { open: boolean; onOpenChange: (o: boolean) => void; workspaceId: string }) {
  const { data, error } = useWorkspaceBudget(workspaceId, open);
  return (
    <Dialog open={open} onOpenChange={onOpenChange} title="Budgets" description="Limits in dollars, or in tokens for models without prices. A run stops as soon as it reaches one." wide>
      <div className="space-y-4" data-testid="workspace-budget-dialog">
        {error ? <ErrorNotice error={error} /> : !data ? <Spinner label="Loading budgets" /> : <BudgetForm workspaceId={workspaceId} budget={data} onDone={() => onOpenChange(false)} />}
      </div>
    </Dialog>
  );
}

function BudgetForm({ workspaceId, budget, onDone }: { workspaceId: string; budget: WorkspaceBudget; onDone: () => void }) {
  const s = budget.settings;
  const [workspace, setWorkspace] = useState(() => draftOf(s.workspaceMonthly));
  const [app, setApp] = useState(() => draftOf(s.appMonthly));
  const [turn, setTurn] = useState(() => draftOf(s.builderTurn));
  const [agent, setAgent] = useState(() => draftOf(s.agentRun));
  const { saveWorkspace, busy, error } = useSaveBudget(workspaceId);
  const readOnly = !budget.canEdit;
  return (
    <form
      className="space-y-4"
      onSubmit={(e) => {
        e.preventDefault();
        void saveWorkspace({ workspaceMonthly: limitOf(workspace), appMonthly: limitOf(app), builderTurn: limitOf(turn), agentRun: limitOf(agent) }).then(
          (ok) => ok && onDone(),
        );
      }}
    >
      <BudgetBanner what="workspace" share={budget.workspace} canEdit={budget.canEdit} raise="Raise it below." />
      <BudgetMeter label="This month, every app" share={budget.workspace} testId="workspace-month" />
      <LimitFields label="Workspace, per month" value={workspace} onChange={setWorkspace} disabled={readOnly} testId="workspace-monthly" />
      <h3 className="pt-1 text-xs font-semibold tracking-wide text-zinc-500 uppercase">Defaults for every app</h3>
      <div className="grid gap-4">
        <LimitFields label="Per app, per month" hint="Builder and agents together." value={app} onChange={setApp} disabled={readOnly} testId="app-monthly" />
        <LimitFields label="Each builder turn" hint="Repair turns too." value={turn} onChange={setTurn} disabled={readOnly} testId="builder-turn" />
        <LimitFields label="Each agent run" hint="Runs of the app's agents." value={agent} onChange={setAgent} disabled={readOnly} testId="agent-run" />
      </div>
      <ErrorNotice error={error} />
      {readOnly ? (
        <p className="text-xs text-zinc-500">Only workspace admins and owners change budgets.</p>
      ) : (
        <div className="flex justify-end gap-2">
          <Button onClick={onDone}>Cancel</Button>
          <Button type="submit" variant="primary" disabled={busy} data-testid="save-workspace-budget">
            {busy ? 'Saving…' : 'Save'}
          </Button>
        </div>
      )}
    </form>
  );
}
