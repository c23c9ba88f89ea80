import { useMemo } from 'react';
import { fileLines, highlightLines, languageOf } from './highlight';

/** A file's text with line numbers and highlighting. Long lines scroll sideways inside the box
 *  (the page never does), with the numbers kept in view. */
export function CodeLines({ path, content }: { path: string; content: string }) {
  const lines = useMemo(() => highlightLines(fileLines(content), languageOf(path)), [path, content]);
  return (
    <div className="overflow-x-auto rounded-lg border border-zinc-200 bg-white py-2 font-mono text-[12.5px] leading-5" data-testid="code-box">
      <table className="min-w-full border-collapse">
        <tbody>
          {lines.map((html, i) => (
            <tr key={i}>
              <td className="sticky left-0 w-px bg-white pr-3 pl-4 text-right align-top text-zinc-400 select-none">{i + 1}</td>
              {/* The highlighter escapes the file's text; its markup is only spans of its classes. */}
              <td className="pr-6 whitespace-pre text-zinc-800" dangerouslySetInnerHTML={{ __html: html || '\u200b' }} />
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
