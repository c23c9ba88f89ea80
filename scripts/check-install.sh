#!/usr/bin/env bash
# Stages `meson install` of the build into a temp dir and builds examples/validate_agents
# against it with nothing but `pkg-config --cflags --libs platform`, then runs it. When the
# builder page is built (ui/dist), checks that it is installed to share/platform/ui and that the
# installed platform-web finds it there on its own and serves it at /.
set -euo pipefail
cd "$(dirname "$0")/.."
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
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
  trap 'kill $web_pid 2>/dev/null || true; rm -rf "$stage"' EXIT
  url=
  for _ in $(seq 100); do
    url=$(grep -m1 -o 'http://[0-9.:]*' "$stage/web.out" || true)
    [ -n "$url" ] && break
    kill -0 $web_pid 2>/dev/null || break
    sleep 0.2
  done
  [ -n "$url" ] || { echo "install check: the installed platform-web did not start"; cat "$stage/web.err"; exit 1; }
  node -e 'fetch(process.argv[1]).then(async (r) => {
    if (!r.ok) process.exit(1);
    process.stdout.write(Buffer.from(await r.arrayBuffer()));
  })' "$url/" | cmp -s - ui/dist/index.html ||
    { echo "install check: the installed platform-web does not serve the installed page at /"; cat "$stage/web.err"; exit 1; }
fi
echo "install check: ok"
