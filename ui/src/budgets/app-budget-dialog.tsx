import { useState } from 'react';
import type { AppBudget } from '../api/types';
import { Button } from '../components/button';
import { Dialog } from '../components/dialog';
import { ErrorNotice } from '../components/error-notice';
import { describeLimit } from './describe-limit';
import { overrideDraftOf, overrideOf, type OverrideDraft } from './override-choice';
import { OverrideFields } from './override-fields';
import { useSaveBudget } from './use-save-budget';

/** An admin sets this app's limits: its month (builder and agents together), each builder
 *  turn, each agent run; each is the workspace's default unless set here. */
export function AppBudgetDialog({ open, onOpenChange, workspaceId, appId, budget }: {
  open: boolean;
  onOpenChange: (o: boolean) => void;
  workspaceId: string;
  appId: string;
  budget: AppBudget;
}) {
  // The form's own draft, taken from the server's overrides when the dialog opens.
  const [monthly, setMonthly] = useState<OverrideDraft>(() => overrideDraftOf(budget.overrides.appMonthly));
  const [turn, setTurn] = useState<OverrideDraft>(() => overrideDraftOf(budget.overrides.builderTurn));
  const [agent, setAgent] = useState<OverrideDraft>(() => overrideDraftOf(budget.overrides.agentRun));
  const { saveApp, busy, error } = useSaveBudget(workspaceId);
  const save = async () => {
    const ok = await saveApp(appId, { appMonthly: overrideOf(monthly), builderTurn: overrideOf(turn), agentRun: overrideOf(agent) });
    if (ok) onOpenChange(false);
  };
  return (
    <Dialog open={open} onOpenChange={onOpenChange} title="App budget" description="A run stops as soon as its spend reaches a limit; past the monthly one, new runs are refused until next month.">
      <form
        className="space-y-3"
        data-testid="app-budget-dialog"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <OverrideFields label="Monthly, builder and agents" defaultText={describeLimit(budget.defaults.appMonthly)} value={monthly} onChange={setMonthly} testId="app-monthly" />
        <OverrideFields label="Each builder turn" defaultText={describeLimit(budget.defaults.builderTurn)} value={turn} onChange={setTurn} testId="builder-turn" />
        <OverrideFields label="Each agent run" defaultText={describeLimit(budget.defaults.agentRun)} value={agent} onChange={setAgent} testId="agent-run" />
        <ErrorNotice error={error} />
        <div className="flex justify-end gap-2">
          <Button onClick={() => onOpenChange(false)}>Cancel</Button>
          <Button type="submit" variant="primary" disabled={busy} data-testid="save-app-budget">
            {busy ? 'Saving…' : 'Save'}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
