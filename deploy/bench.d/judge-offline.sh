#!/usr/bin/env bash
# Load run of the judge on its offline engine: builds the judge from source,
# starts it on a free loopback port with a rate limit too high to interfere,
# then drives it with judgeload (8 workers, bounded by count and time) at 1,
# 10 and 100 questions per request. Prints requests/s and p50/p99 latency per size.
set -euo pipefail
cd "$(dirname "$0")/../.."

tmp=$(mktemp -d)
go build -o "$tmp/judge" ./judge/cmd/judge
go build -o "$tmp/judgeload" ./judge/cmd/judgeload

port=18181
while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
url=http://127.0.0.1:$port

JUDGE_ADDR=127.0.0.1:$port JUDGE_API_KEYS=bench-key JUDGE_RATE_LIMIT_RPM=1000000000 JUDGE_DATA_DIR="$tmp/data" \
	"$tmp/judge" >"$tmp/judge.log" 2>&1 &
pid=$!
cleanup() {
	kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

for _ in $(seq 1 100); do
	curl -fsS -o /dev/null --max-time 1 "$url/healthz" 2>/dev/null && break
	kill -0 "$pid" 2>/dev/null || { tail -n 200 "$tmp/judge.log" >&2; exit 1; }
	sleep 0.1
done

echo "judge offline engine (local/lexical-latest), $(nproc) CPUs, loopback, 8 workers:"
for q in 1 10 100; do
	"$tmp/judgeload" -url "$url" -key bench-key -questions "$q" -requests 20000 -duration 15s -concurrency 8
done
