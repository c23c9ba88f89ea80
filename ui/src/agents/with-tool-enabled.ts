import type { AgentsView } from '../api/types';

export type AgentsDocument = NonNullable<AgentsView['agentsJson']>;

/** Where a tool sits in agents.json: an agent's tools, or the top-level appTools (null). */
export type ToolOwner = string | null;

/** The whole document with one tool switched, every other field kept as it came (PATCH
 *  replaces the whole file, so what the page does not know about must survive). */
export function withToolEnabled(doc: AgentsDocument, owner: ToolOwner, name: string, enabled: boolean): AgentsDocument {
  const flip = <T extends { name: string }>(tools: T[] | undefined) => tools?.map((t) => (t.name === name ? { ...t, enabled } : t));
  if (owner === null) return { ...doc, appTools: flip(doc.appTools) };
  return { ...doc, agents: doc.agents?.map((a) => (a.id === owner ? { ...a, tools: flip(a.tools) } : a)) };
}
