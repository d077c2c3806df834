# syntax=docker/dockerfile:1
# The judge: a static Go binary on a distroless, non-root base.
# Build context: the repository root (docker-compose.yml sets it), because the
# judge is built in the go.work workspace together with the shared module.

FROM golang:1.26-bookworm AS build
WORKDIR /src
# Module files first: the download layer stays cached until a dependency
# changes. go.work lists every module, so every go.mod must be present.
COPY go.work go.work.sum* ./
COPY shared/go.* shared/
COPY judge/go.* judge/
COPY interview/go.* interview/
COPY deploy/go.* deploy/
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY shared/ shared/
COPY judge/ judge/
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
	CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/judge ./judge/cmd/judge

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/judge /judge
USER nonroot:nonroot
ENV JUDGE_ADDR=:8081
EXPOSE 8081
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 CMD ["/judge", "healthcheck"]
ENTRYPOINT ["/judge"]
