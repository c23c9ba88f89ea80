#!/usr/bin/env bash
# Stages `meson install` of the build into a temp dir and builds examples/validate_agents
# against it with nothing but `pkg-config --cflags --libs platform`, then runs it. Builds
# examples/stream_host the same way (plus cpp-httplib's own pkg-config), starts it, posts a
# runtime-a fixture transcript and checks the SSE it serves: the golden body byte for byte, the
# fixture's text in its text-delta chunks, `data: [DONE]` last, a resume from a cursor giving
# exactly the rest, and a viewer attached mid-upload following it to the end. When the
# builder page is built (ui/dist), checks that it is installed to share/platform/ui and that the
# installed platform-web finds it there on its own and serves it at /.
set -euo pipefail
cd "$(dirname "$0")/.."
stage=$(mktemp -d)
pids=
trap 'for p in $pids; do kill $p 2>/dev/null || true; done; rm -rf "$stage"' EXIT
# Waits for a server started in the background to print its URL on stdout ($1); $2 is its pid.
url_of() {
  local url=
  for _ in $(seq 100); do
    url=$(grep -m1 -o 'http://[0-9.:]*' "$1" || true)
    [ -n "$url" ] && break
    kill -0 "$2" 2>/dev/null || break
    sleep 0.2
  done
  [ -n "$url" ] && echo "$url"
}
DESTDIR="$stage" meson install -C build --no-rebuild --quiet >/dev/null
pc=$(find "$stage" -name platform.pc | head -1)
[ -n "$pc" ] || { echo "install check: platform.pc not installed"; exit 1; }
export PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR="$stage"
flags=$(pkg-config --cflags --libs platform)
libdir=$stage$(pkg-config --variable=libdir platform | sed "s|^$stage||")
c++ -std=c++20 -o "$stage/validate_agents" examples/validate_agents/main.cpp $flags \
  -Wl,-rpath,"$libdir"
out=$("$stage/validate_agents" < examples/validate_agents/agents.json)
echo "$out" | grep -q '"ok":true'
echo "$out" | grep -Eq '^v1:[0-9a-f]{64}$'
httplib=$(env -u PKG_CONFIG_PATH -u PKG_CONFIG_SYSROOT_DIR pkg-config --cflags --libs cpp-httplib)
c++ -std=c++20 -o "$stage/stream_host" examples/stream_host/main.cpp $flags $httplib -pthread \
  -Wl,-rpath,"$libdir"
"$stage/stream_host" >"$stage/host.out" 2>"$stage/host.err" &
host_pid=$!
pids="$pids $host_pid"
host=$(url_of "$stage/host.out" $host_pid) || { echo "install check: stream_host did not start"; cat "$stage/host.err"; exit 1; }
node --input-type=module - "$host" tests/data/fixtures/runtime-a/text-thinking-partial.jsonl \
  tests/golden/runtime-a/text-thinking-partial.sse <<'EOF' || { cat "$stage/host.err"; exit 1; }
import { readFileSync } from 'node:fs';
const [host, fixturePath, goldenPath] = process.argv.slice(2);
const fixture = readFileSync(fixturePath, 'utf8'), golden = readFileSync(goldenPath, 'utf8');
const fail = (m) => { console.error(`install check: stream_host: ${m}`); process.exit(1); };
const events = (body) => body.split('\n\n').filter(Boolean).map((e) => `${e}\n\n`);
const all = events(golden), id = 'text-thinking-partial', msg = `msg-${id}`;
const expect = async (res, status) => {
  if (res.status !== status) fail(`${res.url}: ${res.status} (${await res.text()}), expected ${status}`);
  return res;
};
const post = await expect(await fetch(`${host}/streams/${id}`, { method: 'POST', body: fixture }), 201);
if ((await post.json()).events !== all.length) fail('POST did not count the events');
const get = await expect(await fetch(`${host}/streams/${id}`), 200);
if (!get.headers.get('content-type').startsWith('text/event-stream')) fail('not text/event-stream');
const body = await get.text();
if (body !== golden) fail(`GET differs from ${goldenPath}`);
const chunks = events(body).map((e) => e.slice('data: '.length, -2));
if (chunks.at(-1) !== '[DONE]' || chunks.indexOf('[DONE]') !== chunks.length - 1) fail('not ended by one [DONE]');
const text = chunks.slice(0, -1).map((c) => JSON.parse(c)).filter((c) => c.type === 'text-delta').map((c) => c.delta).join('');
const result = fixture.split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((l) => l.type === 'result').result;
if (!text || text !== result) fail(`text-delta chunks say ${JSON.stringify(text)}, the fixture ${JSON.stringify(result)}`);
if (!chunks.some((c) => c.includes(`"messageId":"${msg}"`))) fail('start lacks the stable messageId');
for (const cursor of [1, 7, all.length - 1, all.length]) {
  const rest = await (await expect(await fetch(`${host}/streams/${id}?cursor=${cursor}`), 200)).text();
  if (rest !== all.slice(cursor).join('')) fail(`resume from cursor ${cursor} is not exactly the rest`);
}
await expect(await fetch(`${host}/streams/${id}?cursor=${all.length + 1}`), 400);
await expect(await fetch(`${host}/streams/nope`), 404);
await expect(await fetch(`${host}/streams/${id}`, { method: 'POST', body: fixture }), 409);
// A viewer attached while the transcript is still uploading gets the replay, then the live rest.
const lines = fixture.split(/(?<=\n)/), cut = lines.findIndex((l) => l.includes('"text_delta"')) + 1;
let release;
const gate = new Promise((r) => { release = r; });
const upload = new ReadableStream({
  async start(c) {
    c.enqueue(new TextEncoder().encode(lines.slice(0, cut).join('')));
    await gate;
    c.enqueue(new TextEncoder().encode(lines.slice(cut).join('')));
    c.close();
  },
});
const live = fetch(`${host}/streams/live?message_id=${msg}`, { method: 'POST', body: upload, duplex: 'half' });
for (let i = 0; (await fetch(`${host}/streams/live?cursor=1000000`)).status !== 400; i++) {
  if (i > 100) fail('the live stream never appeared');
  await new Promise((r) => setTimeout(r, 50));
}
const viewer = (await expect(await fetch(`${host}/streams/live`), 200)).body.getReader();
const decoder = new TextDecoder();
let seen = '';
while (!seen.includes('"text-delta"')) {
  const { value, done } = await viewer.read();
  if (done) fail('the viewer ended before the upload did');
  seen += decoder.decode(value, { stream: true });
}
if (seen.includes('[DONE]')) fail('[DONE] before the upload ended');
release();
for (let r; !(r = await viewer.read()).done; ) seen += decoder.decode(r.value, { stream: true });
if (seen !== golden) fail('the live viewer did not get the whole stream');
await expect(await live, 201);
EOF
if [ -f ui/dist/index.html ]; then
  ui=$(find "$stage" -path '*/share/platform/ui' -type d | head -1)
  [ -n "$ui" ] || { echo "install check: the builder page is not installed to share/platform/ui"; exit 1; }
  diff -r -x .build-stamp ui/dist "$ui" >/dev/null || { echo "install check: $ui differs from ui/dist"; exit 1; }
  [ ! -e "$ui/.build-stamp" ] || { echo "install check: the build stamp was installed"; exit 1; }
  web=$(find "$stage" -path '*/bin/platform-web' -type f | head -1)
  [ -n "$web" ] || { echo "install check: platform-web not installed"; exit 1; }
  env -u PLATFORM_UI_DIR LD_LIBRARY_PATH="$libdir" PLATFORM_WEB_PORT=0 PLATFORM_DATA_DIR="$stage/data" \
    PLATFORM_WORKER_URL=http://127.0.0.1:1 "$web" >"$stage/web.out" 2>"$stage/web.err" &
  web_pid=$!
  pids="$pids $web_pid"
  url=$(url_of "$stage/web.out" $web_pid) || { echo "install check: the installed platform-web did not start"; cat "$stage/web.err"; exit 1; }
  node -e 'fetch(process.argv[1]).then(async (r) => {
    if (!r.ok) process.exit(1);
    process.stdout.write(Buffer.from(await r.arrayBuffer()));
  })' "$url/" | cmp -s - ui/dist/index.html ||
    { echo "install check: the installed platform-web does not serve the installed page at /"; cat "$stage/web.err"; exit 1; }
fi
echo "install check: ok"
