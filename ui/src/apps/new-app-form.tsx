import { useState } from 'react';
import { mutate } from 'swr';
import { useRuntimes } from '../api/queries';
import { keys, mutations, send } from '../api/endpoints';
import type { RuntimeSettings } from '../api/types';
import { storePrompt } from '../chat/stored-prompt';
import { Button } from '../components/button';
import { ErrorNotice } from '../components/error-notice';
import { navigate, paths } from '../routing/location';
import { RuntimePicker } from '../runtime/runtime-picker';

/** Creates the app and its first builder run, then opens the run page, which sends the
 *  prompt once it has checked that the run is still empty (spec client rule 3). */
export function NewAppForm({ workspaceId }: { workspaceId: string }) {
  const { data } = useRuntimes();
  const first = data?.runtimes.find((r) => r.models.length > 0);
  const [name, setName] = useState('');
  const [prompt, setPrompt] = useState('');
  const [settings, setSettings] = useState<RuntimeSettings | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [creating, setCreating] = useState(false);
  const chosen = settings ?? (first ? { runtimeId: first.id, runtimeModel: first.defaultModel, runtimeParams: {} } : null);

  const create = async () => {
    setCreating(true);
    setError(null);
    try {
      const app = await send(mutations.createApp(workspaceId, { name: name.trim(), ...(chosen ?? {}) }));
      const run = await send(mutations.startRun(workspaceId, app.id));
      storePrompt(run.id, prompt.trim());
      void mutate(keys.apps(workspaceId));
      navigate(paths.run(workspaceId, app.id, run.id));
    } catch (e) {
      setError(e);
      setCreating(false);
    }
  };

  return (
    <form
      className="mx-auto w-full max-w-2xl rounded-2xl border border-zinc-200 bg-white p-4 shadow-sm sm:p-6"
      onSubmit={(e) => {
        e.preventDefault();
        if (name.trim() && prompt.trim()) void create();
      }}
    >
      <h1 className="text-lg font-semibold">Build a new app</h1>
      <p className="mt-1 text-sm text-zinc-600">Name it and describe what it should do. The builder proposes a plan for you to approve, then writes, type-checks and builds the app.</p>
      <label className="mt-5 block text-sm font-medium" htmlFor="app-name">
        Name
      </label>
      <input id="app-name" value={name} maxLength={200} onChange={(e) => setName(e.target.value)} placeholder="Deal tracker" className="mt-1 w-full rounded-md border border-zinc-300 px-3 py-2 text-sm focus:border-accent focus:outline-none" />
      <label className="mt-4 block text-sm font-medium" htmlFor="app-prompt">
        What should it do?
      </label>
      <textarea
        id="app-prompt"
        value={prompt}
        onChange={(e) => setPrompt(e.target.value)}
        rows={5}
        placeholder="A small CRM board: deals in columns by stage, drag to move, and an agent that summarizes the open deals every morning."
        className="mt-1 w-full resize-y rounded-md border border-zinc-300 px-3 py-2 text-sm focus:border-accent focus:outline-none"
      />
      <div className="mt-4 flex flex-wrap items-center justify-between gap-3">
        {chosen ? <RuntimePicker value={chosen} onChange={setSettings} /> : <span className="text-xs text-zinc-500">Loading runtimes…</span>}
        <Button type="submit" variant="primary" disabled={creating || !name.trim() || !prompt.trim()} data-testid="create-app">
          {creating ? 'Creating…' : 'Create app'}
        </Button>
      </div>
      <ErrorNotice error={error} className="mt-3" />
    </form>
  );
}
