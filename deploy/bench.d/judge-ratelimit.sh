#!/usr/bin/env bash
# What sharing the rate limits through Redis costs: the offline judge with
# its limits in process, then with REDIS_URL pointing at a local
# redis-server (started here on a free loopback port, no persistence), each
# driven by judgeload at 1 question per request, one worker and eight.
# Limits are set too high to refuse anything; every request still takes
# from both buckets (two Redis round trips). Prints requests/s and p50/p99.
set -euo pipefail
cd "$(dirname "$0")/../.."

tmp=$(mktemp -d)
go build -o "$tmp/judge" ./judge/cmd/judge
go build -o "$tmp/judgeload" ./judge/cmd/judgeload
redis_bin=$(command -v redis-server || command -v valkey-server || true)
[ -n "$redis_bin" ] || { echo "redis-server not found (make deps installs it)" >&2; exit 1; }

free_port() {
	local p=$1
	while (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; do p=$((p + 1)); done
	echo "$p"
}

pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT

redis_port=$(free_port 16379)
"$redis_bin" --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --dir "$tmp" \
	--daemonize no --logfile "$tmp/redis.log" &
pids+=($!)

wait_http() { # url pid log
	for _ in $(seq 1 100); do
		curl -fsS -o /dev/null --max-time 1 "$1" 2>/dev/null && return 0
		kill -0 "$2" 2>/dev/null || { cat "$3" >&2; exit 1; }
		sleep 0.1
	done
	echo "no answer from $1" >&2
	exit 1
}

run() { # label, extra env...
	local label=$1
	shift
	local port
	port=$(free_port 18281)
	env JUDGE_ADDR=127.0.0.1:$port JUDGE_API_KEYS=bench-key JUDGE_RATE_LIMIT_RPM=1000000000 \
		JUDGE_RATE_LIMIT_TPM=1000000000000 JUDGE_DATA_DIR="$tmp/data-$label" "$@" "$tmp/judge" >"$tmp/judge-$label.log" 2>&1 &
	local pid=$!
	pids+=("$pid")
	wait_http "http://127.0.0.1:$port/healthz" "$pid" "$tmp/judge-$label.log"
	for c in 1 8; do
		printf '%-8s ' "$label"
		"$tmp/judgeload" -url "http://127.0.0.1:$port" -key bench-key -questions 1 \
			-requests 10000 -duration 10s -concurrency "$c"
	done
	kill "$pid" && wait "$pid" 2>/dev/null || true
	if [ "$label" = redis ] && ! grep -q "rate limits shared through Redis" "$tmp/judge-$label.log"; then
		echo "the judge did not use Redis:" >&2
		cat "$tmp/judge-$label.log" >&2
		exit 1
	fi
}

echo "judge rate limits in process vs in Redis ($("$redis_bin" --version | cut -d' ' -f3)), $(nproc) CPUs, loopback:"
# Twice each, alternating, so a busy moment of the machine shows as a
# disagreement between rounds rather than as a difference between stores.
for _ in 1 2; do
	run process
	run redis REDIS_URL="redis://127.0.0.1:$redis_port/0"
done
