import { mutate } from 'swr';
import { isBudgetKeyOf, keys, mutations, send } from '../api/endpoints';
import type { AppBudgetOverrides, BudgetSettings } from '../api/types';
import { useAction } from '../settings/use-action';

/** PUT the workspace's limits or an app's overrides; the budgets shown are read again (an
 *  app's effective limits follow the workspace's defaults). Answers whether it was saved. */
export function useSaveBudget(workspaceId: string) {
  const { run, busy, error } = useAction();
  const saveWorkspace = (s: BudgetSettings) =>
    run(async () => {
      await send(mutations.saveWorkspaceBudget(workspaceId, s));
      await mutate(isBudgetKeyOf(workspaceId));
    });
  const saveApp = (appId: string, o: AppBudgetOverrides) =>
    run(async () => {
      await send(mutations.saveAppBudget(workspaceId, appId, o));
      await mutate(keys.appBudget(workspaceId, appId));
    });
  return { saveWorkspace, saveApp, busy, error };
}
