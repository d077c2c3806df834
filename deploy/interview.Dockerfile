# syntax=docker/dockerfile:1
# The interview service: the web client built with node, embedded into a
# static Go binary, on a small non-root Alpine base that carries espeak-ng
# for offline speech.
# Build context: the repository root (docker-compose.yml sets it).

FROM node:20-slim AS web
WORKDIR /web
COPY interview/web/package.json interview/web/package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
COPY interview/web/ ./
RUN npm run build

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.work go.work.sum* ./
COPY shared/go.* shared/
COPY judge/go.* judge/
COPY interview/go.* interview/
COPY deploy/go.* deploy/
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY shared/ shared/
COPY interview/ interview/
# The built client replaces whatever dist/ the context had; the binary embeds it.
COPY --from=web /web/dist/ interview/web/dist/
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
	CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/interview ./interview/cmd/interview

FROM alpine:3.22
RUN apk add --no-cache espeak-ng \
	&& adduser -D -H -u 10001 -s /sbin/nologin app \
	&& mkdir -p /app/.data \
	&& chown app:app /app/.data
COPY --from=build /out/interview /usr/local/bin/interview
WORKDIR /app
USER app:app
ENV INTERVIEW_ADDR=:8082
EXPOSE 8082
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 CMD ["interview", "healthcheck"]
ENTRYPOINT ["interview"]
