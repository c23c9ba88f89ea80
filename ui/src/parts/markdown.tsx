import { lazy, memo, Suspense } from 'react';
import { loadMarkdownRenderer } from './markdown-renderer';

// Streamdown closes unterminated markdown while text streams in and sanitizes the HTML it
// renders, so a model's output can never inject markup into the page. Its chunk is asked for
// by the first message that renders (a run page asks as it opens, so its messages rarely wait);
// until it is here the text shows as plain text.
const Streamdown = lazy(() => loadMarkdownRenderer().then((m) => ({ default: m.Streamdown })));

export const Markdown = memo(function Markdown({ text, streaming }: { text: string; streaming?: boolean }) {
  return (
    <div className="prose-chat text-sm leading-relaxed break-words">
      <Suspense fallback={<p className="whitespace-pre-wrap">{text}</p>}>
        <Streamdown parseIncompleteMarkdown={!!streaming}>{text}</Streamdown>
      </Suspense>
    </div>
  );
});
