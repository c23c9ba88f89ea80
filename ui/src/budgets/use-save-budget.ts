import { mutate } from 'swr';
import { api } from '../api/client';
import { keys } from '../api/queries';
import type { AppBudgetOverrides, BudgetSettings } from '../api/types';
import { useAction } from '../settings/use-action';

/** PUT the workspace's limits or an app's overrides; the budgets shown are read again (an
 *  app's effective limits follow the workspace's defaults). Answers whether it was saved. */
export function useSaveBudget(workspaceId: string) {
  const { run, busy, error } = useAction();
  const workspaceKeys = `/api/workspaces/${encodeURIComponent(workspaceId)}/`;
  const saveWorkspace = (s: BudgetSettings) =>
    run(async () => {
      await api(keys.workspaceBudget(workspaceId), { method: 'PUT', body: s });
      await mutate((k) => typeof k === 'string' && k.startsWith(workspaceKeys) && k.endsWith('/budget'));
    });
  const saveApp = (appId: string, o: AppBudgetOverrides) =>
    run(async () => {
      await api(keys.appBudget(workspaceId, appId), { method: 'PUT', body: o });
      await mutate(keys.appBudget(workspaceId, appId));
    });
  return { saveWorkspace, saveApp, busy, error };
}
