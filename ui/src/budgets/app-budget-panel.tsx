import { useState } from 'react';
import { useAppBudget } from '../api/queries';
import type { App } from '../api/types';
import { Button } from '../components/button';
import { ErrorNotice } from '../components/error-notice';
import { AppBudgetDialog } from './app-budget-dialog';
import { BudgetBanner } from './budget-banner';
import { BudgetMeter } from './budget-meter';

/** The Runs tab's budget: this month's spend of the app (and of the workspace when it has a
 *  limit), what a single run may spend, the warnings, and for admins the limits' editor. */
export function AppBudgetPanel({ app }: { app: App }) {
  const { data, error } = useAppBudget(app.workspaceId, app.id);
  const [editing, setEditing] = useState(false);
  if (error) return <ErrorNotice error={error} />;
  if (!data) return null;
  return (
    <section className="space-y-2 rounded-lg border border-zinc-200 bg-white p-3" data-testid="app-budget" aria-label="Budget">
      <div className="flex items-center gap-2">
        <h2 className="text-sm font-semibold">Budget this month</h2>
        <span className="flex-1" />
        {data.canEdit ? (
          <Button variant="ghost" onClick={() => setEditing(true)} data-testid="edit-app-budget">
            Edit limits
          </Button>
        ) : null}
      </div>
      <BudgetBanner what="workspace" share={data.workspace} canEdit={data.canEdit} raise="Budgets, in the sidebar, raises it." />
      <BudgetBanner what="app" share={data.app} canEdit={data.canEdit} raise="Edit limits raises it." />
      <BudgetMeter label="This app" share={data.app} testId="app-month" />
      {data.workspace.usedFraction !== null ? <BudgetMeter label="The workspace" share={data.workspace} testId="workspace-month" /> : null}
      <p className="text-xs text-zinc-500" data-testid="run-caps">
        Each builder turn: {data.builderTurn.limitText === 'no limit' ? 'no cap' : `up to ${data.builderTurn.limitText}`} · each agent run:{' '}
        {data.agentRun.limitText === 'no limit' ? 'no cap' : `up to ${data.agentRun.limitText}`}
      </p>
      {editing ? <AppBudgetDialog open={editing} onOpenChange={setEditing} workspaceId={app.workspaceId} appId={app.id} budget={data} /> : null}
    </section>
  );
}
