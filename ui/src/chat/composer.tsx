import { useState, type KeyboardEvent } from 'react';
import { Button } from '../components/button';

export function Composer({
  onSend,
  onStop,
  streaming,
  blockedReason,
  children,
}: {
  onSend: (text: string) => void;
  onStop: () => void;
  streaming: boolean;
  /** Why the composer is blocked (an approval stop, a viewer's role), or null. */
  blockedReason: string | null;
  children?: React.ReactNode;
}) {
  const [text, setText] = useState('');
  const disabled = streaming || blockedReason !== null;
  const submit = () => {
    const t = text.trim();
    if (!t || disabled) return;
    onSend(t);
    setText('');
  };
  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      submit();
    }
  };
  return (
    <div className="border-t border-zinc-200 bg-white px-4 pt-2 pb-3">
      {blockedReason ? (
        <p className="mb-1.5 text-xs font-medium text-amber-700" data-testid="composer-blocked">
          {blockedReason}
        </p>
      ) : null}
      <div className={`rounded-xl border bg-white ${disabled ? 'border-zinc-200 bg-zinc-50' : 'border-zinc-300 focus-within:border-accent'}`}>
        <textarea
          aria-label="Message the builder"
          data-testid="composer"
          value={text}
          disabled={disabled}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={onKey}
          rows={3}
          placeholder={blockedReason ? '' : 'Describe what to build or change…'}
          className="block w-full resize-none bg-transparent px-3 py-2 text-sm focus:outline-none disabled:cursor-not-allowed"
        />
        <div className="flex items-end justify-between gap-2 px-2 pb-2 md:items-center">
          <div className="min-w-0">{children}</div>
          {streaming ? (
            <Button variant="secondary" onClick={onStop} data-testid="stop">
              <span className="size-2.5 rounded-sm bg-zinc-700" aria-hidden /> Stop
            </Button>
          ) : (
            <Button variant="primary" onClick={submit} disabled={disabled || !text.trim()} data-testid="send">
              Send
            </Button>
          )}
        </div>
      </div>
    </div>
  );
}
