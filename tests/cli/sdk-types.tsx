// Type-level check of the workspace template's SDK (tests/cli/example-app.sh type-checks it with
// the template): the spec's names type, and so do the deprecated ones apps were written with
// before, so those still build.
import { useAgent, useCollection, useDoc, type AgentRunStatus, type AgentStatus, type Doc } from './platform/index.ts';

type Note = { text: string; done?: boolean };

export function SpecNames({ id }: { id: string }) {
  const { data, loading, error, truncated, insert, update, remove, refetch } = useCollection<Note>('notes');
  const one = useDoc<Note>('notes', id);
  const { trigger, status, isRunning, error: agentError, runId, result } = useAgent('summarizer');
  const docs: Doc<Note>[] = data;
  const doc: Doc<Note> | null = one.data;
  const s: AgentRunStatus = status;
  // The spec's four statuses only: the platform's finer ones are not among them.
  // @ts-expect-error 'pending' is folded into 'running'
  const pending = status === 'pending';
  const text: string | undefined = doc?.data.text;
  const message: string | null = agentError;
  return (
    <main>
      <p>{loading ? 'loading' : `${docs.length} notes${truncated ? '+' : ''}`}{error}</p>
      <p>{text}{one.loading ? '…' : ''}{one.error}</p>
      <button onClick={() => trigger('Summarize')}>{s}{isRunning ? '…' : ''}{runId}{String(result)}{message}{String(pending)}</button>
      <button onClick={() => void insert({ text: 'new' })}>Add</button>
      <button onClick={() => void update(id, { done: true, text: null })}>Done</button>
      <button onClick={() => void one.update({ done: false }, 2)}>Undo</button>
      <button onClick={() => void remove(id)}>Remove</button>
      <button onClick={() => void one.remove()}>Remove it</button>
      <button onClick={() => void refetch()}>Reload</button>
    </main>
  );
}

// As apps written before the SDK followed the spec use it.
export function DeprecatedNames({ id }: { id: string }) {
  const notes = useCollection<Note>('notes');
  const { doc } = useDoc<Note>('notes', id);
  const agent = useAgent('summarizer');
  const finer: AgentStatus | 'idle' = agent.detailedStatus;
  const first: Doc<Note> | undefined = notes.docs[0];
  return (
    <main>
      <ul>{notes.docs.map((d) => <li key={d.id}>{d.data.text}</li>)}</ul>
      <p>{first?.data.text}{doc?.data.text}{finer === 'streaming' ? 'live' : finer}</p>
      <button onClick={() => void agent.trigger('Summarize')}>Summarize</button>
      <button onClick={() => agent.trigger('Summarize').catch(() => {})}>Summarize, catching</button>
      <button onClick={async () => { await agent.trigger('Summarize'); }}>Summarize, awaited</button>
    </main>
  );
}
