import { useState } from 'react';
import { mutations, send } from '../api/endpoints';
import { Button } from '../components/button';
import { ErrorNotice } from '../components/error-notice';

/** Sends a provider key to the worker once; the value is cleared from the page as soon as it
 *  is saved and is never read back (the API answers only that it is set). */
export function ProviderKeyForm({ name, configured, onSaved }: { name: string; configured: boolean; onSaved: () => void }) {
  const [value, setValue] = useState('');
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const save = async () => {
    setSaving(true);
    setError(null);
    try {
      await send(mutations.saveProviderKey(name, { value: value.trim() }));
      setValue('');
      onSaved();
    } catch (e) {
      setError(e);
    } finally {
      setSaving(false);
    }
  };
  return (
    <form
      className="mt-3 flex flex-wrap items-center gap-2"
      onSubmit={(e) => {
        e.preventDefault();
        if (value.trim()) void save();
      }}
    >
      <label htmlFor={`key-${name}`} className="font-mono text-xs text-zinc-600">
        {name}
      </label>
      <input
        id={`key-${name}`}
        type="password"
        autoComplete="off"
        spellCheck={false}
        value={value}
        onChange={(e) => setValue(e.target.value)}
        placeholder={configured ? 'Set — enter a new key to replace it' : 'sk-ant-…'}
        className="min-w-0 flex-1 rounded-md border border-zinc-300 px-2 py-1.5 text-sm focus:border-accent focus:outline-none"
        data-testid={`key-input-${name}`}
      />
      <Button type="submit" variant="primary" disabled={!value.trim() || saving}>
        {saving ? 'Saving…' : 'Save key'}
      </Button>
      <ErrorNotice error={error} className="w-full" />
    </form>
  );
}
