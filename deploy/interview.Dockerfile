# The interview service: the web client built with node, embedded into a
# static Go binary, on Debian slim with Debian's espeak-ng (the same
# espeak-ng `make run` and the tests use) for offline speech, as a non-root
# user.
# Build context: the repository root (docker-compose.yml sets it). Only the
# interview and shared modules are copied and built, in module mode, so the
# image downloads the interview's dependencies and no other module's. No
# syntax directive: BuildKit's built-in frontend runs RUN --mount.
# The base images are build arguments (their defaults are the official
# images): see README.md, "Docker compose".
ARG GO_IMAGE=golang:1.26-bookworm
ARG NODE_IMAGE=node:20-slim
ARG RUNTIME_IMAGE=debian:bookworm-slim

FROM ${NODE_IMAGE} AS web
# The npm registry of the machine that builds, when it names one.
ARG NPM_CONFIG_REGISTRY
WORKDIR /web
COPY interview/web/package.json interview/web/package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
COPY interview/web/ ./
RUN npm run build

FROM ${GO_IMAGE} AS build
ARG GOPROXY
ARG GOSUMDB
ARG GONOSUMDB
ARG GOPRIVATE
ARG GOFLAGS
ENV GOWORK=off CGO_ENABLED=0
WORKDIR /src/interview
COPY shared/go.* /src/shared/
COPY interview/go.* /src/interview/
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY shared/ /src/shared/
COPY interview/ /src/interview/
# The built client replaces whatever dist/ the context had; the binary embeds it.
COPY --from=web /web/dist/ /src/interview/web/dist/
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
	CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/interview ./cmd/interview

FROM ${RUNTIME_IMAGE}
# ca-certificates: the language model and Google's keys are reached over TLS.
RUN apt-get update -qq \
	&& DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends espeak-ng ca-certificates >/dev/null \
	&& rm -rf /var/lib/apt/lists/* \
	&& useradd --system --uid 10001 --user-group --home-dir /app --no-create-home --shell /usr/sbin/nologin app \
	&& mkdir -p /app/.data \
	&& chown app:app /app/.data
COPY --from=build /out/interview /usr/local/bin/interview
WORKDIR /app
USER 10001:10001
ENV INTERVIEW_ADDR=:8082
EXPOSE 8082
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 CMD ["interview", "healthcheck"]
ENTRYPOINT ["interview"]
