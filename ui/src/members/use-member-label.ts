import { useMe, useMembers } from '../api/queries';

/** Names a user id the way a person recognizes it ("you", a name, an email), since the server
 *  records who approved, published or asked by id only. */
export function useMemberLabel(workspaceId: string): (userId: string | null | undefined) => string {
  const { data } = useMembers(workspaceId, true);
  const { data: me } = useMe();
  return (userId) => {
    if (!userId) return 'someone';
    if (userId === me?.id) return 'you';
    const m = data?.members.find((x) => x.userId === userId);
    return m?.name || m?.email || userId;
  };
}
