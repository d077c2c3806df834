#!/usr/bin/env bash
# Checks, before `docker compose up`, what would otherwise fail deep in a
# build or a start, and says in one line what to do: the settings compose
# requires (JUDGE_API_KEYS), Caddy's host port, and the base images of the
# builds and services (present, or pulled from the registry or mirror their
# names point at). Run from the directory of docker-compose.yml and .env;
# the environment wins over .env, as with compose. Exit status 1 on the
# first problem.
set -uo pipefail
cd "${1:-.}" || exit 1

fail() {
	echo "compose-check: $*" >&2
	exit 1
}

# Settings: compose's own interpolation, with its ":?" message.
if ! out=$(docker compose config -q 2>&1); then
	fail "$(printf '%s\n' "$out" | grep -m 1 -o 'required variable.*' || printf '%s\n' "$out" | head -n 1)"
fi

# The value compose will use: the environment, else .env, else the default.
setting() {
	local name=$1 def=$2 v
	v=${!name:-}
	if [ -z "$v" ] && [ -f .env ]; then
		v=$(sed -n "s/^$name=[\"']\{0,1\}\([^\"']*\)[\"']\{0,1\}\$/\1/p" .env | tail -n 1)
	fi
	echo "${v:-$def}"
}

bind=$(setting CADDY_BIND 127.0.0.1)
port=$(setting CADDY_PORT 8080)
probe=$bind
[ "$probe" = 0.0.0.0 ] && probe=127.0.0.1
# A running stack of this project holds its own port: that is no conflict.
if ! docker compose ps -q caddy 2>/dev/null | grep -q . &&
	(exec 3<>"/dev/tcp/$probe/$port") 2>/dev/null; then
	fail "port $port on $bind is in use: stop what listens there or set CADDY_PORT in .env to a free port"
fi

# The base images, as the builds and services name them (build arguments
# and image variables default to the official images).
images=(
	"$(setting GO_IMAGE golang:1.26-bookworm)"
	"$(setting NODE_IMAGE node:20-slim)"
	"$(setting JUDGE_RUNTIME_IMAGE gcr.io/distroless/static-debian12:nonroot)"
	"$(setting INTERVIEW_RUNTIME_IMAGE debian:bookworm-slim)"
	"$(setting POSTGRES_IMAGE postgres:15)"
	"$(setting CADDY_IMAGE caddy:2)"
)
for img in "${images[@]}"; do
	docker image inspect "$img" >/dev/null 2>&1 && continue
	timeout 300 docker pull -q "$img" >/dev/null 2>&1 && continue
	fail "base image $img cannot be had (not here, and docker pull failed): point the matching *_IMAGE setting at a registry mirror's copy (README.md, Docker compose), or build stand-ins with deploy/docker-deps.sh images"
done
echo "compose-check: settings, port $bind:$port and base images are ready"
