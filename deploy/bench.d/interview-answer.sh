#!/usr/bin/env bash
# Interview answer path without a model: 50 users against the real router and
# a local Postgres, instant interviewer. Target: p50 <= 5 ms.
# Two runs: users answering back to back (saturation: the figure is the
# service's throughput, and latency is users / throughput), then users pausing
# 200 ms between answers (still far more than 50 people typing answers produce;
# the figure is the latency one answer sees).
# Uses TEST_DATABASE_URL when set, else starts a throwaway local Postgres.
set -euo pipefail
cd "$(dirname "$0")/../.."
users=${ANSWERLOAD_USERS:-50}
duration=${ANSWERLOAD_DURATION:-10s}
echo "== interview answer path, saturation"
go run ./interview/cmd/answerload -users "$users" -duration "$duration"
echo "== interview answer path, paced (target p50 <= 5 ms)"
go run ./interview/cmd/answerload -users "$users" -duration "$duration" -think "${ANSWERLOAD_THINK:-200ms}"
