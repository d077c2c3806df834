#!/usr/bin/env bash
# The language model's upstream queue (judge/internal/fairqueue through the chat
# adapter), through the judge's HTTP layer against a fake OpenAI-compatible
# model: judge/internal/api's TestFairShareBetweenKeys (one key floods with
# 100-question requests from 8 workers, a 1 s model, 16 slots) and
# TestShedsAtOnce (300 concurrent 20-question requests over 10 keys, a 5 s
# model, 64 slots) assert bounds that hold on a busy machine; this prints
# their figures: the light key's latencies (p50, p99, max) and the flood's
# statuses, and the answered and shed requests' latencies (p50, p99, max
# of the 529s). About 30 s.
set -euo pipefail
cd "$(dirname "$0")/../../judge"
go test -count=1 -run '^(TestFairShareBetweenKeys|TestShedsAtOnce)$' -v ./internal/api/ |
	grep -E 'light key:|answered \(|^(--- |ok|FAIL)'
