#!/usr/bin/env bash
# make bench: Go benchmarks of every module, then load runs against binaries
# built from the current source. Each part prints its own comparable figures;
# the precise ones the tests leave out, because a busy machine moves them
# (the rate limit's admitted count, latencies), live here.
set -euo pipefail
cd "$(dirname "$0")/.."
for dir in $(go list -f '{{.Dir}}' -m); do
	echo "== go benchmarks: $dir"
	(cd "$dir" && go test -run='^$' -bench=. -benchmem -benchtime=2000x ./...)
done
# Load runs, each bounded in count and time.
for part in deploy/bench.d/*.sh; do
	[ -f "$part" ] || continue
	echo "== $part"
	bash "$part"
done
