import { useWorkspaces } from '../api/queries';
import type { Role } from '../api/types';

/** The signed-in user's role in a workspace (undefined until known). */
export function useRole(workspaceId: string): Role | undefined {
  const { data } = useWorkspaces();
  return data?.workspaces.find((w) => w.id === workspaceId)?.role;
}
