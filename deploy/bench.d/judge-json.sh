#!/usr/bin/env bash
# Reading JSON: the current judge beside the judge of commit d214344 (before
# its JSON reading was made linear), in the same run on the same machine;
# both are built (the old one from an archive of that commit in a temporary
# directory) and started on free loopback ports.
#
# (a) The judge process's CPU time (from /proc) to refuse a 1 MiB body whose
#     state is escaped backslashes ("\\\\…"), beside a body of ordinary text of
#     the same size, and the ratio of the two. Both are refused (422: the
#     state is over the token bound) before any model call.
# (b) 1-question offline throughput (local/semantic-latest, the default),
#     judgeload with 8 workers, the runs interleaved, best of three.
set -euo pipefail
cd "$(dirname "$0")/../.."

base=${JUDGE_BASELINE:-d214344}
rounds=${BENCH_ROUNDS:-3}
duration=${BENCH_DURATION:-5s}
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

port=18381
free_port() {
	while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
	echo "$port"
}
start() { # start NAME BINARY: sets url_NAME and pid_NAME
	local p
	p=$(free_port)
	port=$((p + 1))
	JUDGE_ADDR=127.0.0.1:$p JUDGE_API_KEYS=bench-key JUDGE_RATE_LIMIT_RPM=1000000000 \
		JUDGE_RATE_LIMIT_TPM=1000000000 "$2" >"$tmp/$1.log" 2>&1 &
	pids+=($!)
	printf -v "pid_$1" '%s' "$!"
	for _ in $(seq 1 100); do
		curl -fsS -o /dev/null --max-time 1 "http://127.0.0.1:$p/healthz" 2>/dev/null && break
		sleep 0.1
	done
	curl -fsS -o /dev/null --max-time 1 "http://127.0.0.1:$p/healthz" || { tail -n 50 "$tmp/$1.log" >&2; exit 1; }
	printf -v "url_$1" '%s' "http://127.0.0.1:$p"
}
start base "$tmp/judge-base"
start now "$tmp/judge-now"

# The two bodies: 1 MiB with the envelope, the state filling the rest.
envelope() { printf '{"model":"local/lexical-latest","questions":{"q":{"type":"noul","instructions":"Refund?"}},"state":"%s"}' "$1"; }
room=$((1048576 - $(envelope "" | wc -c)))
envelope "$(head -c $((room / 2 * 2)) /dev/zero | tr '\0' '\\')" >"$tmp/hostile.json"
envelope "$(yes 'the customer wrote again about a refund for the annual plan.' | tr '\n' ' ' | head -c "$room")" >"$tmp/plain.json"

cpu() { # cpu PID: the process's user and system time, in clock ticks
	awk '{print $14 + $15}' "/proc/$1/stat"
}
refuse() { # refuse NAME BODY COUNT: CPU seconds per refusal
	local pid url before after status
	pid=pid_$1 url=url_$1
	before=$(cpu "${!pid}")
	for _ in $(seq 1 "$3"); do
		status=$(curl -s -o /dev/null -w '%{http_code}' --max-time 120 -H 'Authorization: Bearer bench-key' \
			-H 'Content-Type: application/json' --data-binary "@$tmp/$2.json" "${!url}/v1/systemone")
		[ "$status" = 422 ] || { echo "$1 answered $status to the $2 body, want 422" >&2; exit 1; }
	done
	after=$(cpu "${!pid}")
	awk -v t=$((after - before)) -v hz="$(getconf CLK_TCK)" -v n="$3" 'BEGIN {printf "%.3f", t / hz / n}'
}
# The old judge takes seconds per hostile body: one is enough.
base_plain=$(refuse base plain 5)
base_hostile=$(refuse base hostile 1)
now_plain=$(refuse now plain 5)
now_hostile=$(refuse now hostile 5)

rate() { # rate URL: requests/s of one run
	"$tmp/judgeload" -url "$1" -key bench-key -model local/semantic-latest -questions 1 -requests 1000000 \
		-duration "$duration" -concurrency 8 | sed -n 's/.* \([0-9.]*\) req\/s.*/\1/p'
}
best_base=0 best_now=0
for _ in $(seq 1 "$rounds"); do
	r=$(rate "$url_base")
	best_base=$(echo "$r $best_base" | awk '{print ($1 > $2) ? $1 : $2}')
	r=$(rate "$url_now")
	best_now=$(echo "$r $best_now" | awk '{print ($1 > $2) ? $1 : $2}')
done

echo "judge JSON reading, $(nproc) CPUs, loopback; $base beside now:"
awk -v bp="$base_plain" -v bh="$base_hostile" -v np="$now_plain" -v nh="$now_hostile" -v base="$base" -v escapes=$((room / 2)) 'BEGIN {
	printf "  CPU to refuse a 1 MiB body           %10s %10s\n", base, "now"
	printf "  state of ordinary text               %9.3fs %9.3fs\n", bp, np
	printf "  state of %d escaped backslashes %9.3fs %9.3fs\n", escapes, bh, nh
	printf "  hostile / plain                      %9.1fx %9.1fx\n", bh / bp, nh / np
}'
echo "1-question offline throughput (local/semantic-latest), 8 workers, best of $rounds interleaved ${duration} runs:"
awk -v b="$best_base" -v n="$best_now" -v base="$base" 'BEGIN {
	printf "  %-8s %9.1f req/s\n", base, b
	printf "  %-8s %9.1f req/s  %.2fx\n", "now", n, n / b
}'
