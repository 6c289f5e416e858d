# make demo: a fresh machine to exact odds.  make test: the whole suite.
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed
FRACAS := $(VENV)/bin/fracas

.PHONY: demo test check bench clean

demo: $(STAMP)
	$(FRACAS) odds rules/epicinium.rules rules/scenarios/epicinium-riflemen-vs-city.toml

$(STAMP): pyproject.toml
	$(PYTHON) -c 'import sys; sys.exit("fracas needs Python 3.11 or newer" if sys.version_info < (3, 11) else 0)'
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet -e '.[test]'
	touch $(STAMP)

test: $(STAMP)
	$(VENV)/bin/python -m pytest

check: $(STAMP)
	$(FRACAS) check rules/*.rules

bench: $(STAMP)
	@if ls tests/benchmarks/*.py >/dev/null 2>&1; then \
		$(VENV)/bin/python -m pytest tests/benchmarks -q -s -p no:cacheprovider; \
	else echo "no benchmarks yet"; fi

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache
