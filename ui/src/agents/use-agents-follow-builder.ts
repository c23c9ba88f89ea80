import { mutate } from 'swr';
import { keys } from '../api/endpoints';
import { useWorkspaceEvents } from '../events/use-workspace-events';

/** A builder turn may write agents.json, and its snapshot becomes the draft when the turn ends;
 *  a turn whose done_building succeeded moves the app's preview to its build. Once a builder run
 *  of the app ends (in this tab or another, whichever tab of the app is open), the agents view
 *  and the app (its `preview`) are read again. Otherwise the Agents tab, the Publish dialog
 *  (which waits for a build), the preview pane and the tool cards keep what they read during
 *  the turn (SWR does not read a key again within two seconds, and never on focus here). */
export function useAgentsFollowBuilder(workspaceId: string, appId: string) {
  useWorkspaceEvents(workspaceId, { appId, kind: 'builder' }, (e) => {
    if (e.type !== 'run.completed' && e.type !== 'run.failed') return;
    void mutate(keys.agents(workspaceId, appId));
    void mutate(keys.app(workspaceId, appId));
  });
}
