#!/usr/bin/env bash
# Sets up this machine, builds the platform and runs it on its embedded defaults.
# For now the platform is its core and command-line tool; the web and worker servers join
# this script as they land.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
[ -f build/build.ninja ] || meson setup build --wrap-mode=nodownload >/dev/null
ninja -C build
./build/tools/platformctl/platformctl --help
