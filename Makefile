# Papierkram: `make run` and `make test` work on a fresh Debian 12 machine with Go.
GO      ?= go
BIN     := bin/papierkram
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X github.com/papierkram/papierkram/internal/version.Version=$(VERSION)
export PATH := $(PATH):/usr/local/go/bin

.PHONY: setup build run test vet fuzz bench clean

setup: ## install the Debian packages the engines and tests need (only what is missing)
	@bash scripts/setup.sh

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/papierkram

run: setup build ## start the server on :8080 with the embedded store and print a development key
	$(BIN) serve --addr $${PAPIERKRAM_ADDR:-:8080} --data-dir $${PAPIERKRAM_DATA_DIR:-./data} --dev-key --log-format text

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (echo "not gofmt-formatted:"; gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet ./...

test: setup vet ## vet, then every test with the race detector
	$(GO) test -race -timeout 30m ./...

FUZZTIME ?= 30s
fuzz: ## run each fuzz target for FUZZTIME
	@set -e; grep -rn --include='*_test.go' '^func Fuzz' . | while IFS=: read -r file _ line; do \
		name=$$(echo "$$line" | sed -E 's/^func (Fuzz[A-Za-z0-9_]*).*/\1/'); pkg=./$$(dirname $$file); \
		echo "== $$pkg $$name"; $(GO) test -run='^$$' -fuzz="^$$name$$" -fuzztime=$(FUZZTIME) -fuzzminimizetime=5s $$pkg; done

# GOTENBERG=path/to/gotenberg adds the side-by-side run against a Gotenberg built from source;
# UNOCONVERTER=path/to/unoconv (github.com/gotenberg/unoconverter) lets it convert Office files.
GOTENBERG ?=
UNOCONVERTER ?=
PEER_LEVELS ?= 1,4

bench: setup build ## benchmark scenarios against a freshly started server (GOTENBERG=bin for the side-by-side run)
	$(GO) run ./bench -bin $(BIN)
	$(GO) run ./bench -bin $(BIN) -scenario html-invoice -c 4 -n 1000 -baseline=false
	$(GO) test -run '^$$' -bench 'AuthenticatedRequest|Submit' -benchtime 1000x ./internal/server/ ./jobs/
	$(GO) test -run '^$$' -bench Convert -benchtime 3x ./pdf/pdfa/
	$(if $(GOTENBERG),$(GO) run ./bench -bin $(BIN) -gotenberg $(GOTENBERG) $(if $(UNOCONVERTER),-unoconverter $(UNOCONVERTER)) -c $(PEER_LEVELS) -n 32)

clean:
	rm -rf bin
