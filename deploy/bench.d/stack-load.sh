#!/usr/bin/env bash
# The whole stack under load, as make run starts it: a throwaway Postgres,
# bin/judge and bin/interview (rebuilt first) on their offline engines, Caddy with
# deploy/Caddyfile, all on free loopback ports. 100 simulated users at once
# each register, start a 3-question interview, answer every question, finish
# and read their history through Caddy. Prints p50/p99 per step and overall
# and throughput; fails on any error.
set -euo pipefail
cd "$(dirname "$0")/../.."
make -s build-go
echo "== stack load through Caddy (target: zero errors; p99 reported)"
go run ./deploy/cmd/stackload -users "${STACKLOAD_USERS:-100}" -questions "${STACKLOAD_QUESTIONS:-3}"
