#!/usr/bin/env bash
# Interview answer path without a model: 50 concurrent users against the real
# router and a local Postgres, instant interviewer. Target: p50 <= 5 ms.
# Uses TEST_DATABASE_URL when set, else starts a throwaway local Postgres.
set -euo pipefail
cd "$(dirname "$0")/../.."
echo "== interview answer path (target p50 <= 5 ms)"
go run ./interview/cmd/answerload -users "${ANSWERLOAD_USERS:-50}" -duration "${ANSWERLOAD_DURATION:-10s}"
