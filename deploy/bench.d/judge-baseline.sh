#!/usr/bin/env bash
# 1-question offline throughput of the current judge beside the judge of
# commit a51662d (before the third round's work), in the same run on the
# same machine: both judges are built (the old one from an archive of that
# commit in a temporary directory), started on free loopback ports, and
# driven by judgeload with 8 workers, the runs interleaved and the best of
# five kept per engine. Prints requests/s and the ratios to a51662d's
# lexical engine; the targets are at least 1.3 for the current lexical
# engine and at least 1.0 for the semantic engine, the default.
set -euo pipefail
cd "$(dirname "$0")/../.."

base=${JUDGE_BASELINE:-a51662d}
rounds=${BENCH_ROUNDS:-5}
duration=${BENCH_DURATION:-6s}
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT

mkdir "$tmp/base"
git archive "$base" | tar -x -C "$tmp/base"
(cd "$tmp/base" && go build -o "$tmp/judge-base" ./judge/cmd/judge)
go build -o "$tmp/judge-now" ./judge/cmd/judge
go build -o "$tmp/judgeload" ./judge/cmd/judgeload

port=18281
free_port() {
	while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
	echo "$port"
}
start() { # start NAME BINARY: sets url_NAME
	local p
	p=$(free_port)
	port=$((p + 1))
	JUDGE_ADDR=127.0.0.1:$p JUDGE_API_KEYS=bench-key JUDGE_RATE_LIMIT_RPM=1000000000 \
		JUDGE_RATE_LIMIT_TPM=1000000000 JUDGE_DATA_DIR="$tmp/data-$1" "$2" >"$tmp/$1.log" 2>&1 &
	pids+=($!)
	for _ in $(seq 1 100); do
		curl -fsS -o /dev/null --max-time 1 "http://127.0.0.1:$p/healthz" 2>/dev/null && break
		sleep 0.1
	done
	curl -fsS -o /dev/null --max-time 1 "http://127.0.0.1:$p/healthz" || { tail -n 50 "$tmp/$1.log" >&2; exit 1; }
	printf -v "url_$1" '%s' "http://127.0.0.1:$p"
}
start base "$tmp/judge-base"
start now "$tmp/judge-now"

rate() { # rate URL MODEL: requests/s of one run
	"$tmp/judgeload" -url "$1" -key bench-key -model "$2" -questions 1 -requests 1000000 \
		-duration "$duration" -concurrency 8 | sed -n 's/.* \([0-9.]*\) req\/s.*/\1/p'
}
best_base=0 best_lexical=0 best_semantic=0
for _ in $(seq 1 "$rounds"); do
	r=$(rate "$url_base" local/lexical-latest)
	best_base=$(echo "$r $best_base" | awk '{print ($1 > $2) ? $1 : $2}')
	r=$(rate "$url_now" local/lexical-latest)
	best_lexical=$(echo "$r $best_lexical" | awk '{print ($1 > $2) ? $1 : $2}')
	r=$(rate "$url_now" local/semantic-latest)
	best_semantic=$(echo "$r $best_semantic" | awk '{print ($1 > $2) ? $1 : $2}')
done

echo "judge 1-question offline throughput, $(nproc) CPUs, loopback, 8 workers, best of $rounds interleaved ${duration} runs:"
awk -v b="$best_base" -v l="$best_lexical" -v s="$best_semantic" -v base="$base" 'BEGIN {
	printf "  %-28s %9.1f req/s\n", base " lexical", b
	printf "  %-28s %9.1f req/s  %.2fx (target >= 1.30)\n", "now lexical", l, l / b
	printf "  %-28s %9.1f req/s  %.2fx (target >= 1.00)\n", "now semantic (default)", s, s / b
}'
