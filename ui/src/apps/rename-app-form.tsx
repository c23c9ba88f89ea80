import { useState } from 'react';
import type { App } from '../api/types';
import { Button } from '../components/button';
import { ErrorNotice } from '../components/error-notice';
import { useRenameApp } from './use-rename-app';

const maxNameBytes = 200;  // the server's limit (bytes of UTF-8, not characters)

/** The app's name, changed in place; `onDone` after a successful save. */
export function RenameAppForm({ app, onDone }: { app: App; onDone: () => void }) {
  const [name, setName] = useState(app.name);
  const { rename, busy, error } = useRenameApp(app);
  const wanted = name.trim();
  const tooLong = new TextEncoder().encode(wanted).length > maxNameBytes;
  const canSave = !busy && wanted !== '' && wanted !== app.name && !tooLong;
  return (
    <form
      className="space-y-2"
      onSubmit={(e) => {
        e.preventDefault();
        if (canSave) void rename(wanted).then((ok) => ok && onDone());
      }}
    >
      <label className="block text-sm font-medium" htmlFor="rename-app">
        Name
      </label>
      <div className="flex min-w-0 gap-2">
        <input
          id="rename-app"
          value={name}
          onChange={(e) => setName(e.target.value)}
          className="min-w-0 flex-1 rounded-md border border-zinc-300 px-3 py-1.5 text-sm focus:border-accent focus:outline-none"
          aria-invalid={tooLong || undefined}
          data-testid="rename-app-input"
        />
        <Button type="submit" variant="primary" disabled={!canSave} data-testid="rename-app-save">
          {busy ? 'Saving…' : 'Save'}
        </Button>
      </div>
      {tooLong ? <p className="text-xs text-red-700">A name is at most {maxNameBytes} bytes long.</p> : null}
      <ErrorNotice error={error} />
    </form>
  );
}
