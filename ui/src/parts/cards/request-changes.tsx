import { useState } from 'react';
import { Button } from '../../components/button';

/** The feedback box behind Request Changes: the text becomes the next user message. */
export function RequestChanges({ onSend, disabled }: { onSend: (text: string) => Promise<void>; disabled: boolean }) {
  const [open, setOpen] = useState(false);
  const [text, setText] = useState('');
  if (!open)
    return (
      <Button onClick={() => setOpen(true)} disabled={disabled}>
        Request Changes
      </Button>
    );
  return (
    <form
      className="mt-2 flex w-full flex-col gap-2"
      onSubmit={(e) => {
        e.preventDefault();
        if (text.trim()) void onSend(text.trim());
      }}
    >
      <textarea
        autoFocus
        aria-label="What should change"
        value={text}
        onChange={(e) => setText(e.target.value)}
        rows={3}
        placeholder="What should change?"
        className="w-full rounded-md border border-zinc-300 p-2 text-sm focus:border-accent focus:outline-none"
      />
      <div className="flex gap-2">
        <Button type="submit" variant="primary" disabled={disabled || !text.trim()}>
          Send feedback
        </Button>
        <Button variant="ghost" onClick={() => setOpen(false)}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
