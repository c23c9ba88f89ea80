#!/usr/bin/env node
// The JavaScript pipeline people use today for Claude Code behind a useChat UI, fed a recorded
// transcript: streamText over ai-sdk-provider-claude-code (Claude Agent SDK query(): it spawns
// the CLI, speaks its stdin/stdout protocol and parses every stdout line), then the ai package's
// toUIMessageStreamResponse (UI message chunks, JSON, SSE framing, bytes), whose body is read to
// the end and written to stdout. The CLI is recorded-claude.mjs replaying TRANSCRIPT, so no model
// and no network are involved; everything from the CLI's stdout to the SSE bytes is theirs.
//
// Usage: node ai-pipeline.mjs TRANSCRIPT FIXTURE_JSONL   (SSE on stdout)
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { streamText } from 'ai';
import { claudeCode } from 'ai-sdk-provider-claude-code';
import { finish, start, write } from './sse-out.mjs';

const [transcript, fixture] = process.argv.slice(2);
if (!transcript || !fixture) {
  process.stderr.write('usage: node ai-pipeline.mjs TRANSCRIPT FIXTURE_JSONL\n');
  process.exit(2);
}
start();
const here = path.dirname(fileURLToPath(import.meta.url));
const model = claudeCode('sonnet', {
  pathToClaudeCodeExecutable: path.join(here, 'recorded-claude.mjs'),
  env: { ...process.env, PEER_BENCH_TRANSCRIPT: path.resolve(transcript), PEER_BENCH_FIXTURE: path.resolve(fixture) },
  settingSources: [],
});
const result = streamText({ model, prompt: 'Replay the recorded turn.' });
const decoder = new TextDecoder();
for await (const bytes of result.toUIMessageStreamResponse().body) write(decoder.decode(bytes, { stream: true }));
finish();
