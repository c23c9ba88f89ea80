import { useState } from 'react';
import { useAgent, useCollection, useIntegrationTool } from './platform/index.ts';

type Note = { text: string; city?: string };

// A worked example of an app on the platform SDK: notes kept live in a collection (every viewer
// sees every change), an agent that summarizes them, and an app action that fetches the weather
// of a note's city. Errors are shown as the platform describes them.
export default function App() {
  const notes = useCollection<Note>('notes');
  const summarizer = useAgent('summarizer');
  const weather = useIntegrationTool('weather');
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);

  const add = async () => {
    setError(null);
    try {
      await notes.insert({ text });
      setText('');
    } catch (e) {
      setError((e as Error).message);
    }
  };

  return (
    <main className="mx-auto max-w-xl space-y-6 p-8 font-sans">
      <h1 className="text-2xl font-semibold">Team notes</h1>
      <form className="flex gap-2" onSubmit={(e) => { e.preventDefault(); if (text.trim()) void add(); }}>
        <input className="flex-1 rounded border px-2 py-1" value={text} onChange={(e) => setText(e.target.value)} placeholder="Write a note" />
        <button className="rounded bg-indigo-600 px-3 py-1 text-white" type="submit">Add</button>
      </form>
      {error ? <p className="text-sm text-red-600">{error}</p> : null}
      {notes.loading ? <p className="text-sm text-gray-500">Loading…</p> : null}
      <ul className="space-y-2">
        {notes.data.map((n) => (
          <li key={n.id} className={`flex items-center gap-2 ${n.version === 0 ? 'opacity-60' : ''}`}>
            <span className="flex-1">{n.data.text}</span>
            <button className="text-sm text-red-600" onClick={() => void notes.remove(n.id)}>Remove</button>
          </li>
        ))}
      </ul>

      <section className="rounded border p-4">
        <button className="rounded border px-3 py-1" disabled={summarizer.isRunning} onClick={() => summarizer.trigger('Summarize the notes in one paragraph.')}>
          {summarizer.isRunning ? 'Summarizing…' : 'Summarize'}
        </button>
        {summarizer.status === 'completed' ? <p className="mt-2">{String(summarizer.result)}</p> : null}
        {summarizer.error ? <p className="mt-2 text-red-600">{summarizer.error}</p> : null}
      </section>

      <section className="rounded border p-4">
        <button className="rounded border px-3 py-1" disabled={weather.loading} onClick={() => void weather.call({ city: 'Oslo' })}>
          Weather in Oslo
        </button>
        {weather.result?.success ? (
          <p className="mt-2">
            {weather.result.mock ? <span className="text-amber-700">Sample data: </span> : null}
            {JSON.stringify(weather.result.data)}
          </p>
        ) : null}
        {weather.result && !weather.result.success ? (
          <p className="mt-2 text-red-600">
            {weather.result.error} {weather.result.resolution}
            {weather.result.errorCategory === 'credentials' || weather.result.errorCategory === 'permission' ? ' Open the integration setup to fix it.' : ''}
          </p>
        ) : null}
        {weather.reportFailure ? (
          <button className="mt-2 text-sm underline" onClick={() => void weather.reportFailure!('Weather in Oslo failed')}>
            Ask builder to fix
          </button>
        ) : null}
      </section>
    </main>
  );
}
