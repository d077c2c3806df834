# The judge: a static Go binary on a distroless, non-root base.
# Build context: the repository root (docker-compose.yml sets it). Only the
# judge and shared modules are copied and built, in module mode (the judge's
# go.mod points at ../shared), so the image downloads the judge's
# dependencies and no other module's. No syntax directive: BuildKit's
# built-in Dockerfile frontend runs RUN --mount, and a build never fetches a
# frontend image.
# The base images are build arguments (their defaults are the official
# images), so a registry mirror or a local copy can stand in: see README.md,
# "Docker compose".
ARG GO_IMAGE=golang:1.26-bookworm
ARG RUNTIME_IMAGE=gcr.io/distroless/static-debian12:nonroot

FROM ${GO_IMAGE} AS build
# The Go module proxy settings of the machine that builds, when it has any.
ARG GOPROXY
ARG GOSUMDB
ARG GONOSUMDB
ARG GOPRIVATE
ARG GOFLAGS
ENV GOWORK=off CGO_ENABLED=0
WORKDIR /src/judge
# Module files first: the download layer stays cached until a dependency
# changes.
COPY shared/go.* /src/shared/
COPY judge/go.* /src/judge/
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY shared/ /src/shared/
COPY judge/ /src/judge/
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
	CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/judge ./cmd/judge
# JUDGE_DATA_DIR, made here because the runtime image has no shell.
RUN install -d -m 0700 /out/data/judge

FROM ${RUNTIME_IMAGE}
COPY --from=build /out/judge /judge
# The data directory belongs to the user the judge runs as: a volume
# mounted there starts out owned by it, so a judge without Redis can keep
# what keys spent on a read-only root file system.
COPY --from=build --chown=65532:65532 /out/data /data
# distroless's nonroot user, by number so that a substituted base needs no
# such name.
USER 65532:65532
ENV JUDGE_ADDR=:8081 JUDGE_DATA_DIR=/data/judge
EXPOSE 8081
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 CMD ["/judge", "healthcheck"]
ENTRYPOINT ["/judge"]
