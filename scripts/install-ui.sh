#!/usr/bin/env bash
# `meson install` step (servers/web/meson.build): copies the built builder page, ui/dist from
# scripts/setup-ui.sh, to DATADIR/platform/ui under the install prefix (DESTDIR honoured), where
# an installed platform-web finds it. Run at install time, not configure time, so a page built
# after `meson setup` is installed too; without a build there is nothing to install and the
# step says so. The previous copy is replaced whole (the asset names carry content hashes).
#   install-ui.sh RELATIVE_OR_ABSOLUTE_INSTALL_DIR
set -euo pipefail
src="$MESON_SOURCE_ROOT/ui/dist"
case "$1" in
  /*) dest="${DESTDIR:-}$1" ;;
  *) dest="$MESON_INSTALL_DESTDIR_PREFIX/$1" ;;
esac
if [ ! -f "$src/index.html" ]; then
  [ -n "${MESON_INSTALL_QUIET:-}" ] || echo "Not installing the builder page: $src is not built (bash scripts/setup-ui.sh)"
  exit 0
fi
rm -rf "$dest"
mkdir -p "$dest"
cp -R "$src/." "$dest/"
rm -f "$dest/.build-stamp"
chmod -R u=rwX,go=rX "$dest"
[ -n "${MESON_INSTALL_QUIET:-}" ] || echo "Installing the builder page $src to $dest"
