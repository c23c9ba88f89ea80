#!/usr/bin/env bash
# The worked example app (examples/apps/team-notes) type-checks against the workspace template's
# SDK and packages (with tests/cli/sdk-types.tsx, the SDK's names old and new), and its
# agents.json is valid: BUILD_DIR PROJECT_DIR.
set -euo pipefail
build=$(cd "$1" && pwd) project=$(cd "$2" && pwd)
bash "$project/scripts/setup-template.sh" >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$project/templates/app-workspace" && tar --exclude=node_modules --exclude=dist --exclude=.vite-cache -cf - .) | tar -xf - -C "$work"
ln -s "$project/templates/app-workspace/node_modules" "$work/node_modules"
cp "$project/examples/apps/team-notes/src/App.tsx" "$work/src/App.tsx"
# The SDK's shapes at the type level: the spec's names and the deprecated ones (sdk-types.tsx).
cp "$project/tests/cli/sdk-types.tsx" "$work/src/sdk-types.tsx"
(cd "$work" && node node_modules/typescript/bin/tsc --noEmit -p .)
"$build/tools/platformctl/platformctl" agents validate "$project/examples/apps/team-notes/agents.json" | grep -q '"ok":true'
echo "example app: type-checks, agents.json valid"
