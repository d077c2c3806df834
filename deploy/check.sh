#!/usr/bin/env bash
# make test-deploy: static checks of the deployment configuration. The
# Caddyfile must validate with the installed Caddy and be in `caddy fmt` form;
# the deploy scripts must parse. The deploy module's Go tests (compose file,
# Dockerfiles, end-to-end through Caddy) run once, with every other module, in
# `make test-go`; pass --go to run them here too (cd deploy && go test ./...).
set -euo pipefail
cd "$(dirname "$0")/.."

command -v caddy >/dev/null || {
	echo "caddy is not installed: run make deps" >&2
	exit 1
}
echo "== caddy validate deploy/Caddyfile ($(caddy version | cut -d' ' -f1))"
if ! out=$(caddy validate --config deploy/Caddyfile --adapter caddyfile 2>&1); then
	echo "$out" >&2
	exit 1
fi
echo "== caddy fmt deploy/Caddyfile"
if ! caddy fmt deploy/Caddyfile | diff -u deploy/Caddyfile - >&2; then
	echo "deploy/Caddyfile is not formatted: caddy fmt --overwrite deploy/Caddyfile" >&2
	exit 1
fi
echo "== bash -n deploy/*.sh"
for f in deploy/*.sh deploy/bench.d/*.sh; do
	[ -f "$f" ] && bash -n "$f"
done
if [ "${1:-}" = --go ]; then
	echo "== go test (deploy module)"
	(cd deploy && go test -count=1 ./...)
fi
echo "deploy checks passed"
