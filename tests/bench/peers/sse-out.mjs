// Output of the Node translators. The SSE bytes go to stdout in 64 KiB writes, as platformctl
// writes its own: neither side pays a system call per event. finish() writes what is left and,
// with PEER_BENCH_TIMING=1, reports on stderr the time since start() ("pipeline_ms N": the work
// after Node has started and loaded its modules, to set beside bench_bridge's in-process figure).
const limit = 64 * 1024;
let parts = [];
let size = 0;
let started = 0;

export function start() {
  started = performance.now();
}

function flush() {
  if (parts.length > 0) process.stdout.write(parts.join(''));
  parts = [];
  size = 0;
}

export function write(text) {
  parts.push(text);
  size += text.length;
  if (size >= limit) flush();
}

export function finish() {
  flush();
  if (process.env.PEER_BENCH_TIMING === '1') process.stderr.write(`pipeline_ms ${(performance.now() - started).toFixed(1)}\n`);
}
