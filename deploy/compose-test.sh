#!/usr/bin/env bash
# make test-compose: the compose stack built and run for real (docs/operations.md,
# "Compose test"). Installs and starts what it needs (deploy/docker-deps.sh),
# copies the tree as a fresh clone would have it into a temporary directory
# with only JUDGE_API_KEYS in .env, then TestComposeStack (deploy module)
# builds, starts and checks the stack under a project name of its own, on a
# free loopback port, and takes it down again with its volumes.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
start=$(date +%s)

bash deploy/docker-deps.sh

# The Go module proxy and npm registry this machine uses reach the builds
# as build arguments (docker-compose.yml passes them on when set).
GOPROXY=$(go env GOPROXY)
GOSUMDB=$(go env GOSUMDB)
GONOSUMDB=$(go env GONOSUMDB)
GOPRIVATE=$(go env GOPRIVATE)
GOFLAGS=$(go env GOFLAGS)
export GOPROXY GOSUMDB GONOSUMDB GOPRIVATE GOFLAGS
if command -v npm >/dev/null; then
	NPM_CONFIG_REGISTRY=$(npm config get registry)
	export NPM_CONFIG_REGISTRY
fi

# Headless Chromium through playwright-core, as the web client's own
# end-to-end test does.
if [ ! -d interview/web/node_modules/playwright-core ]; then
	(cd interview/web && npm ci --no-audit --no-fund >/dev/null)
fi

# The tree as a clone has it: tracked files and new ones not ignored, so
# no .env, node_modules, bin/ or .data/ of this checkout gets in.
copy=$(mktemp -d /tmp/judgeworks-compose.XXXXXX)
trap 'rm -rf "$copy"' EXIT
git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
	[ -e "$f" ] && printf '%s\0' "$f"
done | tar --null -T - -cf - | tar -C "$copy" -xf -
echo "JUDGE_API_KEYS=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')" >"$copy/.env"

echo "== go test -run TestComposeStack (deploy module)"
(cd deploy && COMPOSE_STACK_DIR="$copy" WEB_DIR="$repo/interview/web" \
	go test -count=1 -timeout 40m -run '^TestComposeStack$' -v . 2>&1 |
	grep -v -E '^=== (RUN|PAUSE|CONT)')
echo "compose test passed in $(($(date +%s) - start)) s"
