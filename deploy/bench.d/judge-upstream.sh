#!/usr/bin/env bash
# Language-model adapter against a fake OpenAI-compatible provider (its own
# process) that answers every call after a fixed 100 ms. Prints, for 1-, 10-
# and 100-question requests, the wall time as a multiple of 100 ms (x100ms,
# target ≤ 1.1 at 100 questions) and the adapter's own process CPU time per
# question (cpu-µs/question, target ≤ 100).
set -euo pipefail
cd "$(dirname "$0")/../../shared"
JUDGE_UPSTREAM_BENCH=1 go test -run '^$' -bench '^BenchmarkAdapterUpstream$' -benchtime 20x -count 1 ./chatadapter/ |
	grep -E 'Benchmark|^ok|FAIL'
