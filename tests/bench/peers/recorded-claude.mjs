#!/usr/bin/env node
// A stand-in for the `claude` CLI that replays a recorded transcript, so that the Claude Agent
// SDK (and ai-sdk-provider-claude-code above it) runs its own spawn, stdin/stdout protocol and
// message parsing offline, with no model and no network. The SDK starts it as
// `node recorded-claude.mjs --output-format stream-json --verbose --input-format stream-json ...`
// (pathToClaudeCodeExecutable ending in .mjs); the arguments are ignored.
//
// Protocol, as the real CLI speaks it (tests/data/fixtures/runtime-a are captures of it):
//   - every control_request on stdin gets a control_response "success" with its request_id
//     (for `initialize`, the response body of the fixture's own one: commands, models, ...);
//   - the first user message starts the turn: the fixture's system/init line, then the bytes of
//     PEER_BENCH_TRANSCRIPT as they are (a file of stream-json lines), then the fixture's result
//     line; it exits once both the turn is over and stdin has ended (the SDK closes it).
// PEER_BENCH_FIXTURE names the fixture the init, initialize response and result lines come from.
import fs from 'node:fs';

const transcript = process.env.PEER_BENCH_TRANSCRIPT;
const fixture = process.env.PEER_BENCH_FIXTURE;
if (!transcript || !fixture) {
  process.stderr.write('recorded-claude: PEER_BENCH_TRANSCRIPT and PEER_BENCH_FIXTURE must be set\n');
  process.exit(2);
}

const recorded = fs.readFileSync(fixture, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
const initLine = recorded.find((m) => m.type === 'system' && m.subtype === 'init');
const resultLine = recorded.find((m) => m.type === 'result');
const initializeResponse = recorded.find((m) => m.type === 'control_response')?.response?.response ?? {};
if (!initLine || !resultLine) {
  process.stderr.write(`recorded-claude: ${fixture} has no system/init or result line\n`);
  process.exit(2);
}

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
let started = false;
let finished = false;
let stdinEnded = false;
// The SDK may close stdin before the turn is over: the turn still runs to its result line.
const maybeExit = () => {
  if (stdinEnded && (finished || !started)) process.stdout.end(() => process.exit(0));
};

// The transcript goes out in whole lines only, so that a control_response written meanwhile
// never lands inside one (stdout is a pipe: writes are synchronous, so the reads keep pace).
function startTurn() {
  started = true;
  send(initLine);
  let carry = Buffer.alloc(0);
  const input = fs.createReadStream(transcript, { highWaterMark: 64 * 1024 });
  input.on('data', (piece) => {
    const nl = piece.lastIndexOf(10);
    if (nl < 0) {
      carry = Buffer.concat([carry, piece]);
      return;
    }
    process.stdout.write(Buffer.concat([carry, piece.subarray(0, nl + 1)]));
    carry = piece.subarray(nl + 1);
  });
  input.on('end', () => {
    if (carry.length > 0) process.stdout.write(Buffer.concat([carry, Buffer.from('\n')]));
    send(resultLine);
    finished = true;
    maybeExit();
  });
}

let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (text) => {
  pending += text;
  let nl;
  while ((nl = pending.indexOf('\n')) >= 0) {
    const line = pending.slice(0, nl);
    pending = pending.slice(nl + 1);
    if (!line.trim()) continue;
    const message = JSON.parse(line);
    if (message.type === 'control_request') {
      const response = message.request?.subtype === 'initialize' ? initializeResponse : {};
      send({ type: 'control_response', response: { subtype: 'success', request_id: message.request_id, response } });
    } else if (message.type === 'user' && !started) {
      startTurn();
    }
  }
});
process.stdin.on('end', () => {
  stdinEnded = true;
  maybeExit();
});
