import { lazy, memo, Suspense } from 'react';

// Streamdown closes unterminated markdown while text streams in and sanitizes the HTML it
// renders, so a model's output can never inject markup into the page. It is most of the page's
// code, so it is a chunk of its own, asked for as the page starts (not at the first message,
// which then showed its raw markdown for a second or more); until it is here the text shows as
// plain text.
const streamdown = import('streamdown');
const Streamdown = lazy(() => streamdown.then((m) => ({ default: m.Streamdown })));

export const Markdown = memo(function Markdown({ text, streaming }: { text: string; streaming?: boolean }) {
  return (
    <div className="prose-chat text-sm leading-relaxed break-words">
      <Suspense fallback={<p className="whitespace-pre-wrap">{text}</p>}>
        <Streamdown parseIncompleteMarkdown={!!streaming}>{text}</Streamdown>
      </Suspense>
    </div>
  );
});
