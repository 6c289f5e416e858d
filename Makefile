# make (demo): a fresh machine to exact odds.  make test: the whole suite.
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed
FRACAS := $(VENV)/bin/fracas
PY := $(VENV)/bin/python

.PHONY: demo test check bench fuzz clean

demo: $(STAMP)
	$(FRACAS) odds rules/epicinium.rules rules/scenarios/epicinium-riflemen-vs-city.toml

# The venv, with fracas installed editable and its dependencies at the major
# versions the suite is tested with; redone when either file changes. fracas's
# own modules are compiled to bytecode, as pip compiles a package it installs:
# where PYTHONDONTWRITEBYTECODE is set, every command would compile them anew
# (a third of a second), since an editable install leaves them as source.
$(STAMP): pyproject.toml constraints.txt
	@$(PYTHON) -c 'import sys; sys.exit("fracas needs Python 3.11 or newer, not " + sys.version.split()[0] + " (set PYTHON=...)" if sys.version_info < (3, 11) else 0)'
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet -c constraints.txt -e '.[test]'
	$(PY) -m compileall -q dsl interpreter
	touch $(STAMP)

test: $(STAMP)
	$(PY) -m pytest

check: $(STAMP)
	$(FRACAS) check rules/*.rules

# Benchmarks are kept out of `make test` (norecursedirs); each prints a BENCH line with its ratio.
# fracas's modules are compiled to bytecode first, as pip compiles an installed package's (and
# icepool's): a fresh process then times fracas, not Python's compiler, even where
# PYTHONDONTWRITEBYTECODE is set.
# What it prints is kept in $(BENCH_LOG), whose BENCH lines make the README's table of figures
# (tests/benchmarks/readme_table.py); a run that fails changes neither.
BENCH_LOG := tests/benchmarks/last-run.txt
bench: $(STAMP)
	$(VENV)/bin/pip install --quiet -c constraints.txt -e '.[test,bench]'
	$(PY) -m compileall -q dsl interpreter grammars
	@echo "make bench of $$(git rev-parse --short HEAD 2>/dev/null || echo 'a tree outside git')$$(git diff --quiet HEAD \
	  -- 2>/dev/null || echo ' with changes not committed'), $$(date -u '+%Y-%m-%d')" > $(BENCH_LOG).new
	bash -o pipefail -c '$(PY) -m pytest tests/benchmarks -q -s -rs -p no:cacheprovider | tee -a $(BENCH_LOG).new'
	mv $(BENCH_LOG).new $(BENCH_LOG)
	$(PY) tests/benchmarks/readme_table.py $(BENCH_LOG) README.md

# A long fuzzing run: 100,000 inputs by default (FUZZ_COUNT=N to change), about 80 ms
# each on one core, so about 2 hours; it reports every thousand with the time left.
FUZZ_COUNT ?= 100000
fuzz: $(STAMP)
	@echo "fuzz: $(FUZZ_COUNT) inputs at about 80 ms each on one core (100,000: about 2 hours); FUZZ_COUNT=N for fewer"
	$(PY) tests/fuzz_long.py $(FUZZ_COUNT)

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache
