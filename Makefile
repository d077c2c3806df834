# The one entry point for people and CI. See README.md.
SHELL := /bin/bash
GO ?= go
# Every module of the workspace: `go test ./...` does not cross module borders.
MODULES := $(shell $(GO) list -f '{{.Dir}}' -m)
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: build build-go build-web test test-go test-web test-sdk test-e2e test-deploy test-compose run bench lint deps tidy

build: build-web build-go

build-go:
	@mkdir -p bin
	$(GO) build -o bin/judge ./judge/cmd/judge
	$(GO) build -o bin/interview ./interview/cmd/interview

build-web:
	@if [ -f interview/web/package.json ]; then cd interview/web && npm ci --no-audit --no-fund && npm run build; fi

deps:
	@bash deploy/install-deps.sh

test: deps build lint test-go test-web test-sdk test-e2e test-deploy test-compose

# Every module's Go tests. Suites that run a service build it from source
# once per test run (shared/proctest), never from bin/; the interview binary
# embeds the web client as build-web last left it.
test-go:
	@fail=0; for dir in $(MODULES); do echo "== go test $$dir"; (cd $$dir && $(GO) test -count=1 ./...) || fail=1; done; exit $$fail

test-web:
	@if [ -f interview/web/package.json ]; then cd interview/web && npm test; fi

# The published System One JavaScript SDK (@typesafe-ai/sdk, pinned in
# judge/sdktest/package-lock.json) against the judge built from source into
# a temporary directory. See docs/judge.md, "Tests and figures".
test-sdk:
	@cd judge/sdktest && npm ci --no-audit --no-fund && node --test

test-e2e:
	@if [ -f interview/web/e2e/run.mjs ]; then cd interview/web && npm run e2e; fi

# Caddyfile and script checks; the deploy module's Go tests (compose file,
# end-to-end through Caddy) run once, in test-go. See docs/operations.md.
test-deploy:
	@bash deploy/check.sh

# The compose stack built and run for real: installs and starts the Docker
# engine, compose and buildx and the base images when missing (cached for
# the next run), then builds and checks the stack from a clean copy of the
# tree. Needs root. See docs/operations.md, "Compose test".
test-compose:
	@bash deploy/compose-test.sh

lint:
	@out=$$(gofmt -l $(MODULES)); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	@set -e; for dir in $(MODULES); do (cd $$dir && $(GO) vet ./... && $(GO) run $(STATICCHECK) ./...); done

tidy:
	@set -e; for dir in $(MODULES); do (cd $$dir && $(GO) mod tidy); done

# The builds say what they are doing first: the first one takes minutes
# and go build prints nothing while it works.
run: deps
	@echo "[run] building the web client: npm ci, then vite build (a minute or more the first time)"
	@$(MAKE) --no-print-directory build-web
	@echo "[run] building the judge and the interview service: go build (several minutes the first time, while every dependency compiles)"
	@$(MAKE) --no-print-directory build-go
	@bash deploy/run.sh

# Figures a busy machine moves, which tests only bound: see docs/resilience.md.
bench: build
	@bash deploy/bench.sh
