#!/usr/bin/env bash
# Stages `meson install` of the build into a temp dir and builds examples/validate_agents
# against it with nothing but `pkg-config --cflags --libs platform`, then runs it.
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
echo "install check: ok"
