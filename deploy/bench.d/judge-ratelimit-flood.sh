#!/usr/bin/env bash
# The judge's rate limit, precisely: deploy's TestRateLimitUnderLoad (30 s)
# runs a compliant client at 95 % of the default 1,200/min and a flood of
# eight workers for 8 s against the judge built from source. The test only
# asserts bounds that hold on a busy machine; this prints its figures: the
# compliant client's requests and statuses, and how many the flood got
# against burst + rate × elapsed (on an idle machine, within one request).
set -euo pipefail
cd "$(dirname "$0")/.."
go test -count=1 -run '^TestRateLimitUnderLoad$' -v . | grep -E 'rate limit:|^(---|ok|FAIL)'
