#!/usr/bin/env bash
# Installs the Debian packages the project needs when they are missing:
# as root with apt-get, otherwise it prints the exact command to run.
set -euo pipefail
need=()
have() { command -v "$1" >/dev/null 2>&1; }
[ -x /usr/lib/postgresql/15/bin/postgres ] || ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || need+=(postgresql)
have caddy || need+=(caddy)
have espeak-ng || need+=(espeak-ng)
have sox || need+=(sox)
have chromium || need+=(chromium)
have curl || need+=(curl)
have redis-server || need+=(redis-server)
# Go and Node come from their own installers (Debian's are too old for the
# workspace's Go 1.26 and for Vite); say so early instead of failing mid-build.
have go || echo "note: Go 1.26 is required and not on PATH" >&2
have npm || echo "note: Node.js 20 (with npm) is required to build the web client and not on PATH" >&2
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -eq 0 ]; then
	echo "installing: ${need[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
else
	echo "missing packages; run: sudo apt-get install -y ${need[*]}" >&2
	exit 1
fi
