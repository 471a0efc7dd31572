# partchat: `make run` serves the app, `make test` runs every check. Both install what
# they need first; stamp files make a second run reinstall nothing.
SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV      ?= .venv
PY        := $(VENV)/bin/python
PIP       := $(PY) -m pip
BIN       := $(VENV)/bin
CHROMIUM  ?= /usr/bin/chromium
STATIC    := backend/partchat/static
FRONT_SRC := $(shell find frontend -path frontend/node_modules -prune -o -type f \
               \( -name '*.ts' -o -name '*.tsx' -o -name '*.css' -o -name '*.html' -o -name '*.json' -o -name '*.js' -o -name '*.mjs' \) -print 2>/dev/null)

.PHONY: help run test lint typecheck pytest vitest bench bench-smoke install install-py install-node frontend chromium services catalog clean

help:
	@echo "make run    install everything, build the frontend and serve http://127.0.0.1:8000"
	@echo "make test   install what tests need and run every check (lint, types, unit, browser)"
	@echo "make lint   ruff, mypy, tsc, eslint"
	@echo "make bench  run the benchmark suite, writing bench/results/<date>.md"

# --- installs ---------------------------------------------------------------------------
$(VENV)/.stamp-python: pyproject.toml constraints.txt
	@test -x $(PY) || python3 -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -c constraints.txt -e '.[dev]'
	@touch $@

node_modules/.stamp-node: package.json package-lock.json frontend/package.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

$(STATIC)/index.html: node_modules/.stamp-node $(FRONT_SRC)
	npm run build --silent

install-py: $(VENV)/.stamp-python
install-node: node_modules/.stamp-node
frontend: $(STATIC)/index.html
install: install-py install-node frontend

chromium:
	@if [ -x "$(CHROMIUM)" ]; then :; \
	elif [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null; then \
	  echo "installing Debian's chromium for the browser tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else \
	  echo "The browser tests need Chromium at $(CHROMIUM)."; \
	  echo "Install it (Debian: sudo apt-get install chromium) or set CHROMIUM=/path/to/chromium."; \
	  exit 1; \
	fi

# PostgreSQL and Redis for the tests: the fixtures start throwaway instances themselves, so
# the packages' own services are kept from starting (policy-rc.d) and left disabled.
services:
	@missing=""; \
	if ! command -v initdb >/dev/null && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then missing="postgresql"; fi; \
	if ! command -v redis-server >/dev/null; then missing="$$missing redis-server"; fi; \
	if [ -z "$$missing" ]; then :; \
	elif [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null; then \
	  echo "installing Debian's$$missing for the PostgreSQL and Redis tests"; \
	  policy=/usr/sbin/policy-rc.d; own=""; \
	  if [ ! -e $$policy ]; then printf '#!/bin/sh\nexit 101\n' >$$policy && chmod 755 $$policy && own=1; fi; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; rc=$$?; \
	  if [ -n "$$own" ]; then rm -f $$policy; fi; \
	  for svc in $$missing; do \
	    systemctl disable --now -q $$svc >/dev/null 2>&1 || true; \
	    update-rc.d $$svc disable >/dev/null 2>&1 || true; \
	  done; \
	  exit $$rc; \
	else \
	  echo "The tests need PostgreSQL (initdb, pg_ctl) and redis-server:$$missing missing."; \
	  echo "Install them (Debian: sudo apt-get install postgresql redis-server), or put their"; \
	  echo "binaries on PATH (PARTCHAT_PG_BIN=/dir/with/pg_ctl, PARTCHAT_REDIS_SERVER=/path)."; \
	  exit 1; \
	fi

catalog: install-py
	$(BIN)/partchat catalog build >/dev/null

# --- the two commands -------------------------------------------------------------------
run: install
	PARTCHAT_OFFLINE_DELAY_MS=$${PARTCHAT_OFFLINE_DELAY_MS:-15} $(BIN)/partchat serve

test: install chromium services
	$(MAKE) --no-print-directory lint
	npm run test --silent
	PARTCHAT_CHROMIUM=$(CHROMIUM) $(BIN)/pytest

lint: install-py install-node
	$(BIN)/ruff check backend tests bench scripts
	$(BIN)/ruff format --check backend tests bench scripts
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache
	npm run typecheck --silent
	npm run lint --silent

bench: install
	$(PY) bench/run_all.py

clean:
	rm -rf $(VENV) node_modules frontend/node_modules $(STATIC) var test-artifacts
