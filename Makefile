# Needs only Python 3.11+ as `python3`; everything else goes into .venv.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# torch is pinned to the release whose wheel lies on this machine's disk.
TORCH  := torch==2.13.0

.PHONY: .venv test test-slow bench gpu-check demo docs check lint typecheck clean distclean

.venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -e '.[test]' $(TORCH)
	touch $(STAMP)

# Whole files to each worker: a file's tests share its kernels, so a fresh clone (an empty
# numba cache) compiles each once, not once in each worker.
test: .venv
	$(PY) -m pytest -q -rs -n 2 --dist loadfile

test-slow: .venv
	$(PY) -m pytest -q -rs -n 2 --dist loadfile -m slow

bench: .venv
	$(PY) -m pip install -e '.[bench]'
	$(PY) -m benchmarks

# Every CUDA path on the card against the CPU path; writes benchmarks/results/gpu.json.
# Where the driver lists a GPU, the gpu extra (numba-cuda) is installed first; without a
# GPU the check says so in one line and succeeds.
gpu-check: .venv
	@if nvidia-smi -L >/dev/null 2>&1; then \
		$(PY) -m pip install -q -e '.[gpu]' || echo "gpu-check: could not install the gpu extra (numba-cuda): trying numba as installed"; \
	fi
	$(PY) -m benchmarks.gpu_check

demo: .venv
	$(PY) -m checkers_evaluation.demo

# What CI checks beside the tests: lint and format (ruff), types (mypy), and the
# documentation site built with no warning.
check: lint typecheck docs

lint: .venv
	$(PY) -m pip install -q -e '.[dev]'
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# mypy over the modules [tool.mypy] in pyproject.toml lists (by their installed names, through
# the links in .mypy_path/).
typecheck: .venv
	$(PY) -m pip install -q -e '.[dev]'
	$(VENV)/bin/mypy

# The documentation site (mkdocs.yml) into site/, which ignores itself in git. NO_MKDOCS_2_WARNING
# silences mkdocs-material's banner about its successor, which is not a warning of ours.
docs: .venv
	$(PY) -m pip install -e '.[docs]'
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict
	echo '*' > site/.gitignore

clean:
	rm -rf build dist *.egg-info .pytest_cache .hypothesis
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +
	find . -path ./$(VENV) -prune -o \( -name '*.nbi' -o -name '*.nbc' \) -type f -exec rm -f {} +

distclean: clean
	rm -rf $(VENV)
