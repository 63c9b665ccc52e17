# The two commands of the README: `make run` and `make test`. Both set everything up first.
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
EXTRAS := embed,text,test

.PHONY: run test setup system-deps bench clean

run: setup
	$(VENV)/bin/evalhouse run-all

test: setup system-deps
	$(VENV)/bin/pytest -q

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || python3.11 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	# torch first, pinned: it is the CPU build; an unpinned resolve would pull a CUDA build.
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e '.[$(EXTRAS)]'
	touch $(STAMP)

system-deps:
	bash scripts/install_system_deps.sh

bench: setup system-deps
	$(PY) benchmarks/run_all.py

clean:
	rm -rf warehouse reports/index.html target logs
