import { memo } from 'react';
import { Streamdown } from 'streamdown';

// Streamdown closes unterminated markdown while text streams in and sanitizes the HTML it
// renders, so a model's output can never inject markup into the page.
export const Markdown = memo(function Markdown({ text, streaming }: { text: string; streaming?: boolean }) {
  return (
    <div className="prose-chat text-sm leading-relaxed break-words">
      <Streamdown parseIncompleteMarkdown={!!streaming}>{text}</Streamdown>
    </div>
  );
});
