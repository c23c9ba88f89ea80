#!/usr/bin/env node
// A plain hand-written Node translator, the one a team writes instead of taking a library:
// read the CLI's stream-json, JSON.parse each line, turn the Anthropic stream events into UI
// message stream chunks (start, start-step, text-*, reasoning-*, tool-input-*, finish-step,
// finish), JSON.stringify each into an SSE event, write the SSE to stdout.
//
// Usage: node plain-translator.mjs TRANSCRIPT   (SSE on stdout)
import fs from 'node:fs';
import { finish, start, write } from './sse-out.mjs';

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: node plain-translator.mjs TRANSCRIPT\n');
  process.exit(2);
}

const emit = (chunk) => write(`data: ${JSON.stringify(chunk)}\n\n`);
let messageId = null;
let started = false;
const blocks = new Map(); // content block index -> { kind, id, toolName, input }

function onStreamEvent(e) {
  switch (e.type) {
    case 'message_start':
      messageId = e.message.id;
      if (!started) emit({ type: 'start', messageId });
      started = true;
      emit({ type: 'start-step' });
      break;
    case 'content_block_start': {
      const cb = e.content_block;
      const id = `${messageId}:${e.index}`;
      if (cb.type === 'text') {
        blocks.set(e.index, { kind: 'text', id });
        emit({ type: 'text-start', id });
      } else if (cb.type === 'thinking') {
        blocks.set(e.index, { kind: 'reasoning', id });
        emit({ type: 'reasoning-start', id });
      } else if (cb.type === 'tool_use') {
        blocks.set(e.index, { kind: 'tool', id: cb.id, toolName: cb.name, input: '' });
        emit({ type: 'tool-input-start', toolCallId: cb.id, toolName: cb.name, dynamic: true });
      }
      break;
    }
    case 'content_block_delta': {
      const block = blocks.get(e.index);
      if (!block) break;
      const d = e.delta;
      if (d.type === 'text_delta') emit({ type: 'text-delta', id: block.id, delta: d.text });
      else if (d.type === 'thinking_delta') emit({ type: 'reasoning-delta', id: block.id, delta: d.thinking });
      else if (d.type === 'input_json_delta') {
        block.input += d.partial_json;
        emit({ type: 'tool-input-delta', toolCallId: block.id, inputTextDelta: d.partial_json });
      }
      break;
    }
    case 'content_block_stop': {
      const block = blocks.get(e.index);
      blocks.delete(e.index);
      if (!block) break;
      if (block.kind === 'text') emit({ type: 'text-end', id: block.id });
      else if (block.kind === 'reasoning') emit({ type: 'reasoning-end', id: block.id });
      else {
        let input = {};
        try {
          input = JSON.parse(block.input || '{}');
        } catch {
          // A partial input stays {}; the tool call itself reports the error.
        }
        emit({ type: 'tool-input-available', toolCallId: block.id, toolName: block.toolName, input, dynamic: true });
      }
      break;
    }
    case 'message_stop':
      emit({ type: 'finish-step' });
      break;
    default:
      break;
  }
}

function onLine(line) {
  if (!line) return;
  const message = JSON.parse(line);
  if (message.type === 'stream_event') onStreamEvent(message.event);
}

start();
let rest = '';
const input = fs.createReadStream(file, { encoding: 'utf8', highWaterMark: 64 * 1024 });
input.on('data', (text) => {
  const lines = (rest + text).split('\n');
  rest = lines.pop();
  for (const line of lines) onLine(line);
});
input.on('end', () => {
  onLine(rest);
  emit({ type: 'finish', finishReason: 'stop' });
  write('data: [DONE]\n\n');
  finish();
});
