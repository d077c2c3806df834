#!/usr/bin/env bash
# Installs and starts what `make test-compose` needs, each step skipped when
# its result is already on the machine (docs/operations.md, "Compose test"):
#   engine   Debian's docker.io (and debootstrap), dockerd started in the
#            background when no engine answers;
#   plugins  docker compose and buildx, built from their Go sources through
#            the Go module proxy into the CLI plugin directory;
#   images   stand-ins for the base images the Dockerfiles and
#            docker-compose.yml name, built from Debian packages and this
#            machine's Go and Node toolchains when no registry is reachable.
# Usage: deploy/docker-deps.sh [engine|plugins|images]... (default: all three).
# Needs root (apt-get, dockerd, the plugin directory).
set -euo pipefail
cd "$(dirname "$0")/.."

COMPOSE_VERSION=v2.39.1
BUILDX_VERSION=v0.26.1
PLUGIN_DIR=${DOCKER_PLUGIN_DIR:-/usr/local/lib/docker/cli-plugins}
# The tags the Dockerfiles' and docker-compose.yml's defaults name.
GO_IMAGE=golang:1.26-bookworm
NODE_IMAGE=node:20-slim
DEBIAN_IMAGE=debian:bookworm-slim
STATIC_IMAGE=gcr.io/distroless/static-debian12:nonroot
PG_IMAGE=postgres:15
CADDY_IMAGE=caddy:2
REDIS_IMAGE=redis:7
STANDIN=deploy/standin

say() { echo "== $*"; }
die() {
	echo "docker-deps: $*" >&2
	exit 1
}
have() { command -v "$1" >/dev/null 2>&1; }

apt_install() {
	[ "$(id -u)" -eq 0 ] || die "missing $*; run as root or: sudo apt-get install -y $*"
	export DEBIAN_FRONTEND=noninteractive
	# Another apt-get may hold the lock for a while: wait for it.
	for _ in $(seq 60); do
		if apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>/tmp/docker-deps-apt.$$; then
			rm -f /tmp/docker-deps-apt.$$
			return 0
		fi
		grep -q 'lock' /tmp/docker-deps-apt.$$ || { apt-get update -qq || true; }
		sleep 5
	done
	cat /tmp/docker-deps-apt.$$ >&2
	die "apt-get install $* failed"
}

engine() {
	local need=()
	have dockerd || need+=(docker.io)
	have debootstrap || need+=(debootstrap)
	if [ ${#need[@]} -gt 0 ]; then
		say "installing ${need[*]}"
		apt_install "${need[@]}"
	fi
	if docker info >/dev/null 2>&1; then
		return 0
	fi
	[ "$(id -u)" -eq 0 ] || die "no Docker engine answers; start one (sudo dockerd &) or run as root"
	say "starting dockerd (log: /var/log/dockerd.log)"
	setsid nohup dockerd >>/var/log/dockerd.log 2>&1 </dev/null &
	for _ in $(seq 60); do
		docker info >/dev/null 2>&1 && return 0
		sleep 1
	done
	tail -n 20 /var/log/dockerd.log >&2
	die "dockerd did not answer within 60 s; see /var/log/dockerd.log"
}

# build_plugin NAME MODULE VERSION PACKAGE VERSION_VAR [vendored]
build_plugin() {
	local name=$1 module=$2 version=$3 pkg=$4 var=$5 vendored=${6:-}
	local bin=$PLUGIN_DIR/docker-$name
	if [ -x "$bin" ] && "$bin" version 2>/dev/null | grep -qF "$version"; then
		return 0
	fi
	have go || die "Go is needed to build docker $name: install Go 1.26"
	say "building docker $name $version from its Go sources (a few minutes, once)"
	local dir work
	dir=$(go mod download -json "$module@$version" | sed -n 's/^\s*"Dir": "\(.*\)",$/\1/p')
	[ -d "$dir" ] || die "go mod download $module@$version failed"
	work=$(mktemp -d)
	cp -r "$dir/." "$work"
	chmod -R u+w "$work"
	local flags=${GOFLAGS:-}
	if [ -n "$vendored" ]; then
		# The vendor folder does not match the module's own go.sum once it
		# is a module download; take the dependencies from the proxy.
		rm -rf "$work/vendor"
		flags="$flags -mod=mod"
	fi
	mkdir -p "$PLUGIN_DIR"
	# Built under a name of its own beside its place, then renamed into it:
	# two runs on one machine never write the same file, and the rename is
	# atomic, so neither sees the other's half-written binary.
	local out
	out=$(mktemp "$PLUGIN_DIR/.docker-$name.XXXXXX")
	(cd "$work" && CGO_ENABLED=0 GOFLAGS="$flags" go build -trimpath \
		-ldflags="-s -w -X $var=$version" -o "$out" "$pkg") || { rm -f "$out"; rm -rf "$work"; die "building docker $name failed"; }
	chmod 0755 "$out"
	mv -f "$out" "$bin"
	rm -rf "$work"
}

plugins() {
	build_plugin compose github.com/docker/compose/v2 "$COMPOSE_VERSION" ./cmd \
		github.com/docker/compose/v2/internal.Version
	build_plugin buildx github.com/docker/buildx "$BUILDX_VERSION" ./cmd/buildx \
		github.com/docker/buildx/version.Version vendored
	docker compose version >/dev/null 2>&1 || die "docker does not find the compose plugin in $PLUGIN_DIR"
	docker buildx version >/dev/null 2>&1 || die "docker does not find the buildx plugin in $PLUGIN_DIR"
}

has_image() { docker image inspect "$1" >/dev/null 2>&1; }

# standin TAG STAGE: builds one stand-in image from deploy/standin/Dockerfile.
standin() {
	local tag=$1 stage=$2 ctx=$3
	shift 3
	has_image "$tag" && return 0
	say "building stand-in $tag"
	DOCKER_BUILDKIT=1 docker build -q --target "$stage" -t "$tag" \
		--build-arg "BASE=$DEBIAN_IMAGE" "$@" -f "$STANDIN/Dockerfile" "$ctx" >/dev/null
}

# A Debian bookworm root file system, imported as debian:bookworm-slim, with
# this machine's apt sources and CA bundle (so builds reach the same mirrors
# and any TLS inspection in between is trusted).
debian_base() {
	has_image "$DEBIAN_IMAGE" && return 0
	say "debootstrap bookworm (minbase) for $DEBIAN_IMAGE"
	local root mirror
	root=$(mktemp -d)
	mirror=$(sed -n 's/^URIs: *\([^ ]*debian\)$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
	[ -n "$mirror" ] || mirror=$(sed -n 's/^deb \([^ ]*\) bookworm .*/\1/p' /etc/apt/sources.list 2>/dev/null | head -n 1)
	local log
	log=$(mktemp)
	debootstrap --variant=minbase bookworm "$root" ${mirror:+"$mirror"} >"$log" 2>&1 ||
		die "debootstrap failed (see $log)"
	rm -f "$log"
	rm -f "$root/etc/apt/sources.list"
	cp /etc/apt/sources.list.d/debian.sources "$root/etc/apt/sources.list.d/" 2>/dev/null ||
		cp /etc/apt/sources.list "$root/etc/apt/sources.list"
	mkdir -p "$root/etc/ssl/certs"
	cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
	rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
	tar -C "$root" -c . | docker import -c 'CMD ["bash"]' - "$DEBIAN_IMAGE" >/dev/null
	rm -rf "$root"
}

images() {
	docker info >/dev/null 2>&1 || die "no Docker engine answers: run deploy/docker-deps.sh engine"
	local missing=0 t
	for t in "$DEBIAN_IMAGE" "$GO_IMAGE" "$NODE_IMAGE" "$STATIC_IMAGE" "$PG_IMAGE" "$CADDY_IMAGE" "$REDIS_IMAGE"; do
		has_image "$t" || missing=1
	done
	[ $missing -eq 1 ] || return 0
	have debootstrap || die "debootstrap is needed for the stand-in images: run deploy/docker-deps.sh engine"
	debian_base
	local tmp
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' RETURN
	# Toolchains come in through a context of their own (the Go tree is
	# large; the Node one holds the binary and npm).
	if ! has_image "$GO_IMAGE"; then
		have go || die "Go is needed for the $GO_IMAGE stand-in"
		standin "$GO_IMAGE" golang "$(go env GOROOT)"
	fi
	if ! has_image "$NODE_IMAGE"; then
		have node || die "Node.js is needed for the $NODE_IMAGE stand-in"
		mkdir -p "$tmp/node/bin" "$tmp/node/lib"
		cp "$(command -v node)" "$tmp/node/bin/node"
		cp -r "$(npm root -g)" "$tmp/node/lib/node_modules"
		standin "$NODE_IMAGE" node "$tmp/node"
	fi
	standin "$STATIC_IMAGE" static "$STANDIN"
	standin "$PG_IMAGE" postgres "$STANDIN"
	standin "$CADDY_IMAGE" caddy "$STANDIN"
	standin "$REDIS_IMAGE" redis "$STANDIN"
}

steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(engine plugins images)
for s in "${steps[@]}"; do
	case $s in
	engine | plugins | images) "$s" ;;
	*) die "unknown step $s (engine, plugins, images)" ;;
	esac
done
