// Tool outputs arrive in three runtime shapes (research/browser.md §1.6): runtime-a an array
// of {type: 'text', text}, runtime-b an MCP result {content, structuredContent}, runtime-c a
// string. The platform's tools answer one JSON text block. This is the one place that
// unwraps them; every card reads the unwrapped value.
export function unwrapToolOutput(output: unknown): unknown {
  if (typeof output === 'string') return parseMaybe(output);
  if (Array.isArray(output)) {
    const texts = output.filter(isTextBlock).map((b) => b.text);
    return texts.length === output.length && texts.length > 0 ? parseMaybe(texts.join('')) : output;
  }
  if (output && typeof output === 'object') {
    const o = output as { content?: unknown; structuredContent?: unknown };
    if (o.structuredContent && typeof o.structuredContent === 'object') return o.structuredContent;
    if (Array.isArray(o.content)) return unwrapToolOutput(o.content);
  }
  return output;
}

/** The text of an output for a terminal or a plain card, whatever its shape. */
export function toolOutputText(output: unknown): string {
  const v = unwrapToolOutput(output);
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'object') {
    const o = v as { output?: unknown; stdout?: unknown; stderr?: unknown; aggregatedOutput?: unknown };
    for (const f of [o.output, o.aggregatedOutput, o.stdout]) if (typeof f === 'string') return f + (typeof o.stderr === 'string' ? o.stderr : '');
  }
  return JSON.stringify(v, null, 2);
}

function isTextBlock(b: unknown): b is { type: 'text'; text: string } {
  return !!b && typeof b === 'object' && (b as { type?: unknown }).type === 'text' && typeof (b as { text?: unknown }).text === 'string';
}

function parseMaybe(text: string): unknown {
  const t = text.trim();
  if (!(t.startsWith('{') || t.startsWith('['))) return text;
  try {
    return JSON.parse(t);
  } catch {
    return text;
  }
}

export function asRecord(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
