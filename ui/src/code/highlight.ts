// Syntax highlighting for the Code tab: highlight.js's core with only the languages an app's
// workspace holds, so this chunk (loaded with the Code tab alone) stays small.
import hljs from 'highlight.js/lib/core';
import css from 'highlight.js/lib/languages/css';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import './code-theme.css';

hljs.registerLanguage('typescript', typescript);
hljs.registerLanguage('javascript', javascript);
hljs.registerLanguage('json', json);
hljs.registerLanguage('css', css);
// Also JSX's tags inside javascript and typescript (their sub-language).
hljs.registerLanguage('xml', xml);
hljs.registerLanguage('markdown', markdown);

const byExtension: Record<string, string> = {
  ts: 'typescript',
  tsx: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  js: 'javascript',
  jsx: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  json: 'json',
  css: 'css',
  html: 'xml',
  htm: 'xml',
  svg: 'xml',
  xml: 'xml',
  md: 'markdown',
};

/** The highlighter's language for a file, or undefined for plain text. */
export function languageOf(path: string): string | undefined {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? byExtension[name.slice(dot + 1).toLowerCase()] : undefined;
}

// Past this a file shows as plain text: highlighting it would hold up the page for a moment,
// and such files are generated (lock files, bundles) rather than read.
const highlightLimit = 256 * 1024;

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * `text` as one HTML string per line (without the line break), each line's markup complete in
 * itself. highlight.js marks a token that spans lines (a block comment, a template string) with
 * one span across the line break, so each line closes the spans still open at its end and the
 * next line opens them again. Its output holds only `<span class="…">`, `</span>` and escaped
 * text, which is what the split relies on.
 */
export function highlightLines(text: string, language: string | undefined): string[] {
  if (!language || text.length > highlightLimit) return text.split('\n').map(escapeHtml);
  let html: string;
  try {
    html = hljs.highlight(text, { language, ignoreIllegals: true }).value;
  } catch {
    return text.split('\n').map(escapeHtml);
  }
  const lines: string[] = [];
  const open: string[] = [];
  let line = '';
  let last = 0;
  for (const m of html.matchAll(/<span class="[^"]*">|<\/span>|\n/g)) {
    line += html.slice(last, m.index);
    last = m.index + m[0].length;
    if (m[0] === '\n') {
      lines.push(line + '</span>'.repeat(open.length));
      line = open.join('');
    } else {
      if (m[0] === '</span>') open.pop();
      else open.push(m[0]);
      line += m[0];
    }
  }
  lines.push(line + html.slice(last));
  return lines;
}

/** A file's text as its lines: Windows line ends read as plain ones, and the line break that
 *  ends the last line does not make an empty line of its own (as editors show it). */
export function fileLines(content: string): string {
  const text = content.replace(/\r\n/g, '\n');
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}
