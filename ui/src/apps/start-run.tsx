import { mutations, send } from '../api/endpoints';
import type { App } from '../api/types';
import { storePrompt } from '../chat/stored-prompt';
import { Composer } from '../chat/composer';
import { navigate, paths } from '../routing/location';

/** An app without a builder run: the first message creates one and opens it. */
export function StartRun({ app }: { app: App }) {
  const start = async (text: string) => {
    const run = await send(mutations.startRun(app.workspaceId, app.id));
    storePrompt(run.id, text);
    navigate(paths.run(app.workspaceId, app.id, run.id));
  };
  return (
    <div className="flex h-full flex-col">
      <p className="flex-1 p-6 text-center text-sm text-zinc-500">No builder conversation yet. Describe what to build.</p>
      <Composer onSend={(t) => void start(t)} onStop={() => {}} streaming={false} blockedReason={null} />
    </div>
  );
}
