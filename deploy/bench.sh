#!/usr/bin/env bash
# make bench: Go benchmarks of every module, then load runs against the built
# binaries. Each part prints its own comparable figures.
set -euo pipefail
cd "$(dirname "$0")/.."
for dir in $(go list -f '{{.Dir}}' -m); do
	echo "== go benchmarks: $dir"
	(cd "$dir" && go test -run='^$' -bench=. -benchmem -benchtime=2000x ./...)
done
# Load runs, each bounded in count and time, against binaries in bin/.
for part in deploy/bench.d/*.sh; do
	[ -f "$part" ] || continue
	echo "== $part"
	bash "$part"
done
