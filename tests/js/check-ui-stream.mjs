// Acceptance test of the UI message streams we emit, with the AI SDK's own client code.
//
// For every tests/golden/**/*.sse (or the files / directories given as arguments), under each
// pinned major of `ai` (7, 6 and 5, see package.json):
//   1. framing: `data: [DONE]` present exactly once and last, every event terminated;
//   2. parseJsonEventStream + uiMessageChunkSchema (what DefaultChatTransport runs): every
//      event is valid JSON and passes the schema;
//   3. readUIMessageStream: assembly raises no error;
//   4. the assembled messages hold what the chunks announced: one message per `start`, each
//      text part done with the concatenated deltas (non-empty), each reasoning part done,
//      one `dynamic-tool` part per tool call, in output-available or output-error with the
//      announced input and output.
// Samples under samples/ prove the check can fail: `accept-*` must pass everywhere,
// `reject-all-*` must fail under every major, `reject-v5-*` under ai 5, `reject-v5v6-*` under
// ai 5 and 6.
//
// Usage: node check-ui-stream.mjs [--json] [FILE|DIR]...
// Prints one line per file and major, then "N passed, N failed". Exit 0 when all pass, 1 when
// any fails, 2 on usage or I/O errors.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';

const here = path.dirname(fileURLToPath(import.meta.url));
const majors = [
  { name: 'ai@7', module: 'ai' },
  { name: 'ai@6', module: 'ai-v6' },
  { name: 'ai@5', module: 'ai-v5' },
];

function listSse(target) {
  const stat = fs.statSync(target);
  if (stat.isFile()) return [target];
  return fs
    .readdirSync(target, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? listSse(path.join(target, e.name)) : e.name.endsWith('.sse') ? [path.join(target, e.name)] : []))
    .sort();
}

function short(value) {
  const text = String(value?.message ?? value);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

// Framing as the browser's parser sees it; the client itself tolerates a missing [DONE], the
// protocol (and our emitter) does not.
function checkFraming(text) {
  const problems = [];
  const normalized = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  if (normalized.length > 0 && !normalized.endsWith('\n\n')) problems.push('the last event is not terminated by a blank line');
  const events = normalized.split('\n\n').filter((e) => e.length > 0);
  const dataOf = (event) =>
    event
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''))
      .join('\n');
  const data = events.filter((e) => e.split('\n').some((l) => l.startsWith('data:'))).map(dataOf);
  const done = data.filter((d) => d === '[DONE]').length;
  if (done === 0) problems.push('data: [DONE] is missing');
  if (done > 1) problems.push('data: [DONE] appears more than once');
  if (done >= 1 && data[data.length - 1] !== '[DONE]') problems.push('events follow data: [DONE]');
  return problems;
}

function streamOf(items) {
  return new ReadableStream({
    start(controller) {
      for (const item of items) controller.enqueue(item);
      controller.close();
    },
  });
}

async function drain(stream) {
  const out = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(value);
  }
}

// Step 2: the transport's parse path. Returns the chunks the client would process.
async function parseChunks(ai, bytes, problems) {
  const results = await drain(ai.parseJsonEventStream({ stream: streamOf([bytes]), schema: ai.uiMessageChunkSchema }));
  const chunks = [];
  results.forEach((r, i) => {
    if (r.success) chunks.push(r.value);
    else problems.push(`schema/JSON error at event ${i}: ${short(r.error).split('\n')[0]}`);
  });
  return chunks;
}

// Step 3: assembly. Returns the last snapshot of each message, in order of appearance.
async function assemble(ai, chunks, problems) {
  const errors = [];
  const byId = new Map();
  let index = 0;
  try {
    const messages = ai.readUIMessageStream({ stream: streamOf(chunks), onError: (e) => errors.push(String(e?.message ?? e)) });
    for await (const message of messages) {
      byId.set(message.id ?? `#${index++}`, JSON.parse(JSON.stringify(message)));
    }
  } catch (e) {
    problems.push(`assembly error: ${short(e)}`);
  }
  return { messages: [...byId.values()], errors };
}

// What the chunks announce, message by message.
function expectations(chunks) {
  const messages = [];
  let current = null;
  for (const c of chunks) {
    if (c.type === 'start' || current === null) {
      current = { id: c.messageId, text: new Map(), reasoning: new Map(), tools: new Map() };
      messages.push(current);
    }
    if (c.type.startsWith('text-') || c.type.startsWith('reasoning-')) {
      const parts = c.type.startsWith('text-') ? current.text : current.reasoning;
      if (c.type.endsWith('-start')) parts.set(c.id, '');
      if (c.type.endsWith('-delta')) parts.set(c.id, (parts.get(c.id) ?? '') + c.delta);
    } else if (c.type === 'tool-input-available' || c.type === 'tool-input-error') {
      current.tools.set(c.toolCallId, {
        toolName: c.toolName,
        input: c.input,
        state: c.type === 'tool-input-error' ? 'output-error' : 'input-available',
        errorText: c.errorText,
      });
    } else if (c.type === 'tool-output-available' && current.tools.has(c.toolCallId)) {
      Object.assign(current.tools.get(c.toolCallId), { state: 'output-available', output: c.output });
    } else if (c.type === 'tool-output-error' && current.tools.has(c.toolCallId)) {
      Object.assign(current.tools.get(c.toolCallId), { state: 'output-error', errorText: c.errorText });
    }
  }
  return messages;
}

// Step 4: the assembled message against what its chunks announced.
function checkMessage(expected, message, where, problems) {
  if (expected.id !== undefined && message.id !== expected.id) problems.push(`${where}: id ${message.id}, expected ${expected.id}`);
  const texts = message.parts.filter((p) => p.type === 'text');
  const wantTexts = [...expected.text.values()];
  if (texts.length !== wantTexts.length) problems.push(`${where}: ${texts.length} text parts, expected ${wantTexts.length}`);
  texts.forEach((p, i) => {
    if (p.state !== 'done') problems.push(`${where}: text part ${i} is ${p.state}, not done`);
    if (p.text === '') problems.push(`${where}: text part ${i} is empty`);
    if (i < wantTexts.length && p.text !== wantTexts[i]) problems.push(`${where}: text part ${i} differs from its deltas`);
  });
  const reasoning = message.parts.filter((p) => p.type === 'reasoning');
  const wantReasoning = [...expected.reasoning.values()];
  if (reasoning.length !== wantReasoning.length) problems.push(`${where}: ${reasoning.length} reasoning parts, expected ${wantReasoning.length}`);
  reasoning.forEach((p, i) => {
    if (p.state !== 'done') problems.push(`${where}: reasoning part ${i} is ${p.state}, not done`);
    if (i < wantReasoning.length && p.text !== wantReasoning[i]) problems.push(`${where}: reasoning part ${i} differs from its deltas`);
  });
  const toolParts = message.parts.filter((p) => p.type === 'dynamic-tool' || p.type.startsWith('tool-'));
  for (const p of toolParts) {
    if (p.type !== 'dynamic-tool') problems.push(`${where}: tool call ${p.toolCallId} became a static ${p.type} part`);
  }
  for (const [id, want] of expected.tools) {
    const parts = toolParts.filter((p) => p.toolCallId === id);
    if (parts.length !== 1) {
      problems.push(`${where}: ${parts.length} tool parts for ${id}, expected 1`);
      continue;
    }
    const [p] = parts;
    if (p.toolName !== want.toolName) problems.push(`${where}: tool ${id} is named ${p.toolName}, expected ${want.toolName}`);
    if (p.state !== 'output-available' && p.state !== 'output-error') {
      problems.push(`${where}: tool ${id} ends in ${p.state}, without an output`);
    } else if (p.state !== want.state) {
      problems.push(`${where}: tool ${id} is ${p.state}, expected ${want.state}`);
    }
    if (want.state !== 'output-error' && !isDeepStrictEqual(p.input, want.input)) problems.push(`${where}: tool ${id} input differs`);
    if (want.state === 'output-available' && !isDeepStrictEqual(p.output, want.output)) problems.push(`${where}: tool ${id} output differs`);
    if (want.state === 'output-error' && p.errorText !== want.errorText) problems.push(`${where}: tool ${id} errorText differs`);
  }
}

async function checkFile(ai, file) {
  const bytes = new Uint8Array(fs.readFileSync(file));
  const problems = checkFraming(new TextDecoder().decode(bytes));
  const chunks = await parseChunks(ai, bytes, problems);
  const { messages, errors } = await assemble(ai, chunks, problems);
  const wanted = expectations(chunks);
  if (messages.length !== wanted.length) problems.push(`${messages.length} messages assembled, expected ${wanted.length}`);
  wanted.forEach((w, i) => {
    if (i < messages.length) checkMessage(w, messages[i], `message ${i}`, problems);
  });
  // onError receives both the stream's own error chunks and assembly failures.
  const pending = chunks.filter((c) => c.type === 'error').map((c) => c.errorText);
  for (const message of errors) {
    const i = pending.indexOf(message);
    if (i >= 0) pending.splice(i, 1);
    else problems.push(`assembly error: ${message}`);
  }
  for (const text of pending) problems.push(`error chunk not reported to onError: ${text}`);
  return { problems, chunks: chunks.length, messages: messages.length };
}

// Whether a sample must be rejected by this major.
function mustReject(file, major) {
  const name = path.basename(file);
  if (name.startsWith('reject-all-')) return true;
  if (name.startsWith('reject-v5v6-')) return major.name !== 'ai@7';
  if (name.startsWith('reject-v5-')) return major.name === 'ai@5';
  return false;
}

async function main() {
  const args = process.argv.slice(2);
  const json = args.includes('--json');
  const targets = args.filter((a) => a !== '--json');
  let files;
  try {
    files = (targets.length > 0 ? targets : [path.join(here, '..', 'golden'), path.join(here, 'samples')]).flatMap(listSse);
  } catch (e) {
    console.error(`check-ui-stream: ${short(e)}`);
    return 2;
  }
  if (files.length === 0) {
    console.error('check-ui-stream: no .sse files found');
    return 2;
  }
  let passed = 0;
  let failed = 0;
  const report = [];
  for (const major of majors) {
    const ai = await import(major.module);
    for (const file of files) {
      const name = path.relative(process.cwd(), file);
      const { problems, chunks, messages } = await checkFile(ai, file);
      const reject = mustReject(file, major);
      const ok = reject ? problems.length > 0 : problems.length === 0;
      ok ? passed++ : failed++;
      report.push({ ai: major.name, file: name, ok, expect: reject ? 'reject' : 'accept', chunks, messages, problems });
      if (!json) {
        const verdict = ok ? 'ok  ' : 'FAIL';
        const detail = problems.length > 0 ? ` (${reject ? 'rejected: ' : ''}${problems.slice(0, 3).join('; ')})` : '';
        console.log(`${verdict} ${major.name} ${name}: ${chunks} chunks, ${messages} messages${ok && !reject ? '' : detail}`);
      }
    }
  }
  if (json) console.log(JSON.stringify(report, null, 1));
  console.log(`${passed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

process.exitCode = await main();
