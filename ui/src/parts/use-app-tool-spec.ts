import useSWR from 'swr';
import { api } from '../api/client';
import { keys } from '../api/endpoints';
import type { AgentsView } from '../api/types';

export interface AppToolSpec {
  name: string;
  displayName?: string;
  integration?: { name?: string; domain?: string };
  endpoint?: { method?: string; url?: string };
}

/** The spec of `mcp__app_tools__<name>` in the app's agents.json (top-level appTools or any
 *  agent's tools), for the custom tool card's integration, method and host. */
export function useAppToolSpec(workspaceId: string, appId: string, name: string): AppToolSpec | undefined {
  const { data } = useSWR<AgentsView>(keys.agents(workspaceId, appId), (p: string) => api<AgentsView>(p), { revalidateOnFocus: false });
  const doc = data?.agentsJson;
  if (!doc) return undefined;
  const all: AppToolSpec[] = [...(doc.appTools ?? []), ...(doc.agents ?? []).flatMap((a) => a.tools ?? [])];
  return all.find((t) => t.name === name);
}
