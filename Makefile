# tinker-nomics: `make serve` and `make test` are the two commands a newcomer needs.
# Every target sets up what it needs (a virtualenv in .venv, Chromium for browser tests).

VENV    ?= .venv
PY      := $(VENV)/bin/python
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)
PORT    ?= 8000

# Material prints an end-of-life banner (May 2027) on every build; DESIGN.md covers the move to
# its successor, so keep `make build` output to real problems.
export NO_MKDOCS_2_WARNING := 1

.DEFAULT_GOAL := help
.PHONY: help setup browser validate schema build serve test test-fast test-scale lint bench clean

help: ## list the targets
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | \
	  awk 'BEGIN{FS=":.*## "}{printf "  make %-10s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

setup: $(STAMP) ## create .venv and install the package with its dev tools

browser: ## install Debian's chromium for the browser tests (needs root or sudo)
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing chromium (Debian package) for the browser tests"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium; }

validate: setup ## check every catalog entry (file:line:col: field: message)
	$(BIN)/tinkernomics validate catalog

schema: setup ## regenerate the editor JSON Schemas in catalog/schema/
	$(BIN)/tinkernomics schema catalog

build: validate ## validate, then build the site into site/ (strict: warnings fail)
	$(BIN)/mkdocs build --strict

serve: validate ## set up, then serve the site with live reload (also on catalog/ edits)
	$(BIN)/mkdocs serve --strict --dev-addr 127.0.0.1:$(PORT) \
	  --watch catalog --watch tinkernomics --watch macros

test: setup browser ## set up and run every test (unit, build, browser)
	$(BIN)/pytest -q

test-fast: setup ## tests without building the site or starting a browser
	$(BIN)/pytest -q -m "not build and not browser"

test-scale: setup browser ## browser tests on a 1,000-algorithm synthetic site (minutes)
	$(BIN)/pytest -q -m scale

lint: setup ## ruff
	$(BIN)/ruff check .

bench: setup ## run the benchmarks in benchmarks/
	@for f in benchmarks/bench_*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

clean: ## remove build output
	rm -rf site .pytest_cache
