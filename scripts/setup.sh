#!/usr/bin/env bash
# Installs everything the build and the tests need from Debian's packages.
# Idempotent: a second run installs nothing new. Arguments name further packages.
set -euo pipefail
PKGS=(meson ninja-build pkg-config cmake g++ clang-14 libclang-rt-14-dev
  nlohmann-json3-dev libsimdjson-dev libcpp-httplib-dev libssl-dev libfmt-dev doctest-dev
  libexpected-dev libhiredis-dev libsqlite3-dev libpq-dev redis-server postgresql openssl
  bubblewrap libhowardhinnant-date-dev tzdata
  python3-prometheus-client)  # tests/js/e2e-metrics.mjs reads /metrics with its parser
# Extra packages a caller needs (scripts/test.sh: Debian's Chromium for the browser tests).
PKGS+=("$@")
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
if [ ${#missing[@]} -gt 0 ]; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# Node.js (with npm) runs the AI SDK and MCP SDK checks; the machine image ships it, Debian's
# package is the fallback.
command -v npm >/dev/null || { $SUDO apt-get install -y -qq nodejs npm; }
# The app workspace template's node_modules (vite, typescript, react, tailwind), which every
# builder workspace links to.
bash "$(dirname "$0")/setup-template.sh"
