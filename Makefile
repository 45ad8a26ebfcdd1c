# Two entry points: `make demo` and `make test`. Each creates .venv when missing.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck pytest claims clean

$(STAMP): pyproject.toml
	test -d $(VENV) || $(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

# The live run refuses today (its frontiers are open): exit 1 is the expected outcome.
demo: $(STAMP)
	@echo "== V4.1 Group A, live inputs (expected: refused, naming the open frontiers)"
	@$(BIN)/planner dry-run v41_group_a --scenario live --out target/v41-group-a-live-dry-run.txt; \
	  test $$? -eq 1
	@echo "== V4.1 Group A, every frontier input supplied (expected: admitted)"
	$(BIN)/planner dry-run v41_group_a --scenario supplied
	@echo "== Group B GLM, same launcher (expected: admitted)"
	$(BIN)/planner dry-run glm_group_b --scenario supplied
	@echo "== claims"
	$(BIN)/claims run v41_group_a_launch

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/pytest -q

claims: $(STAMP)
	$(BIN)/claims run --all

test: lint typecheck pytest claims

clean:
	rm -rf $(VENV) target mutants
