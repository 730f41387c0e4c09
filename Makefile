# trilab — the two set-up commands are `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install demo test lint bench results results-8 clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

demo: install
	$(VENV)/bin/trilab solve trike --size 5

lint: install
	$(VENV)/bin/ruff check .

test: install lint
	$(VENV)/bin/pytest -q

bench: install
	$(PY) benchmarks/bench_trike.py --sizes 5 6 --scaling 7

results: install
	for n in 2 3 4 5 6; do $(VENV)/bin/trilab solve trike --size $$n || exit 1; done
	$(VENV)/bin/trilab solve trike --size 7 --jobs 2 --tt-mb 2048
	for n in 2 3 4 5; do $(VENV)/bin/trilab solve trike --size $$n --method retrograde \
	  --out results/trike/retrograde/size-$$n.csv --db results/trike/db/size-$$n.npz || exit 1; done

# Size 8 takes hours: win/loss only, resumable; run it again to continue.
results-8: install
	$(VENV)/bin/trilab solve trike --size 8 --win-loss-only --jobs 2 --tt-mb 4096 \
	  --time-limit $(or $(SECONDS_LIMIT),3600)

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
	find . -name __pycache__ -not -path './$(VENV)/*' -prune -exec rm -rf {} +
