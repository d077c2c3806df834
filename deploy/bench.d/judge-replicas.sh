#!/usr/bin/env bash
# Three judge replicas behind Caddy sharing their limits through Redis:
# deploy's TestReplicasShareLimits (about 30 s) asserts bounds that hold on a
# busy machine; this prints its figures: how the proxy spread the requests,
# what each flood got against burst + rate × elapsed, the compliant client's
# statuses, and the outage and recovery.
set -euo pipefail
cd "$(dirname "$0")/.."
go test -count=1 -run '^TestReplicasShareLimits$' -v . | grep -E 'replicas:|^(---|ok|FAIL)'
