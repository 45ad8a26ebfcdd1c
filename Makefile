# Two entry points: `make demo` and `make test`. Each creates .venv when missing.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test evidence lint typecheck pytest claims frontiers mutate mutation mutation-reach mutation-generated mutation-sitting realtools transaction bench clean

$(STAMP): pyproject.toml constraints.txt
	test -d $(VENV) || $(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c constraints.txt -e '.[test]'
	touch $(STAMP)

# The live run refuses today (its frontiers are open): exit 1 is the expected outcome.
demo: $(STAMP)
	@echo "== V4.1 Group A, live inputs (expected: refused, naming the open frontiers)"
	@$(BIN)/planner dry-run v41_group_a --scenario live --out target/v41-group-a-live-dry-run.txt; \
	  test $$? -eq 1
	@echo "== V4.1 Group A, every frontier input supplied (expected: admitted; the plan saved)"
	$(BIN)/planner dry-run v41_group_a --scenario supplied --plan-out target/v41-group-a.plan.json
	@echo "== the saved plan, bound and applied as a dry run: one line a step (expected: exit 0)"
	$(BIN)/planner apply --plan target/v41-group-a.plan.json --dry-run \
	  --hosts srv5=root@10.0.0.5,srv6=root@10.0.0.6,srv7=root@10.0.0.7,srv8=root@10.0.0.8
	@echo "== Group B GLM, same launcher (expected: admitted)"
	$(BIN)/planner dry-run glm_group_b --scenario supplied
	@echo "== the seed launcher recipe, planned like an arm (expected: planned, no log given)"
	$(BIN)/planner dry-run --recipe fixtures/recipes/dsv41-flash-jovian-r37-4x.toml --group group_a
	@echo "== claims"
	$(BIN)/claims run v41_group_a_launch

VLLM_VENV := .venv-vllm
VLLM_STAMP := $(VLLM_VENV)/.vllm-parser-stamp

# The real tools the rendered artifacts are checked with (tests/realtools.py): the docker
# CLI's flag parser, systemd-analyze, bash and shellcheck (Debian packages; instant when
# present), and vLLM 0.33.0's own serve parser in .venv-vllm (~100 s and 2.4 GB the first time).
realtools: $(VLLM_STAMP)
	tools/install-ci-deps

$(VLLM_STAMP): tools/make-vllm-venv tools/vllm-parser-requirements.txt tools/vllm-parser-constraints.txt
	tools/make-vllm-venv
	touch $(VLLM_STAMP)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

# tests/ only: every claim runs once, in `make claims` (a bare `pytest` collects witnesses/ too,
# each claim a pytest item, which `make test` would otherwise pay for twice).
pytest: $(STAMP) realtools
	$(BIN)/pytest -q --junitxml=target/pytest.xml tests

# CLAIMS_FORMAT=github: annotations on each failing claim's source line (the workflow's).
# tools/install-ci-deps first: the transaction_fleet witness needs sshd (openssh-server).
CLAIMS_FORMAT ?= table
claims: $(STAMP)
	tools/install-ci-deps
	$(BIN)/claims run --all --format $(CLAIMS_FORMAT) --junit-xml target/claims.xml

# The fault table: the transaction's coordinator on four real sshd hosts on this machine, a
# fault at every (host, stage) pair, then signals, hung exits and dropped rollbacks
# (fixtures/transaction_table.py; root and openssh-server).
transaction: $(STAMP)
	tools/install-ci-deps
	$(BIN)/python -m fixtures.transaction_table

# Frontier tracking: PR states as last recorded (refresh with
#   gh pr list --state all --limit 200 --json number,state,mergedAt,title > fixtures/prs/recorded.json)
# and the ledger compared with the previous commit, so a dropped obligation turns CI red.
# A checkout without the previous commit cannot tell a dropped obligation: it says so.
frontiers: $(STAMP)
	@if git rev-parse --verify -q HEAD~1 >/dev/null; then \
	  $(BIN)/claims frontiers --prs fixtures/prs/recorded.json --base HEAD~1; \
	else \
	  echo "frontiers: no previous commit here, so dropped obligations cannot be checked"; \
	  $(BIN)/claims frontiers --prs fixtures/prs/recorded.json; \
	fi

# The declared mutation controls: every mutant turns exactly its declared claims red.
mutate: $(STAMP)
	$(BIN)/claims mutate --all --report target/mutation-declared.json

# What one baseline decides of the floors, without running a mutant: mutmut's mutants generated as the
# survey makes them, every claim run once recording which mutated functions it calls, no mutant
# run; each file with mutants must have a floor and keep no more uncovered mutants than it
# allows (target/mutation-reach.json names each file's uncovered functions). Part of `make test`.
mutation-reach: $(STAMP)
	$(BIN)/claims mutate --generated --reach --report target/mutation-reach.json

# The generated survey: mutmut's mutants of planner/, the full mutant x claim kill matrix,
# a Stryker-schema report at target/mutation-report.json and its page target/mutation.html
# (hours on 2 cores: see docs/mutation.md);
# then the value survey: value operators at the planner's typed boundaries, its own report;
# then docs/mutation-score.md, both per-file tables from those two reports, with the commit.
# `make mutation-generated` is the first half alone, its page holding that survey's table.
# --keys: the report can seed a later survey's --reuse (a change pays only for what it touched).
# MUTATION_ARGS go to the generated survey, e.g. MUTATION_ARGS=--no-deletion (mutmut's mutants
# only, without the statement deletions); the page says which.
MUTATION_ARGS ?=
SCORE_PAGE := $(BIN)/python tools/score_page.py --page docs/mutation-score.md \
  --floors mutation/floors.toml
# A survey that judged every mutant but missed a floor (exit 3) still writes its page: the
# rows below their floors are what a reader needs; the target then fails with that exit.
mutation-generated: $(STAMP)
	@rm -f target/mutation-report.json
	$(BIN)/claims mutate --generated --keys $(MUTATION_ARGS) --report target/mutation-report.json \
	  --html target/mutation.html; status=$$?; \
	  if [ -f target/mutation-report.json ]; then $(SCORE_PAGE) target/mutation-report.json; fi; \
	  exit $$status

# One sitting of the whole generated survey, for a survey longer than one sits: the workers
# stop after SITTING seconds (an hour unless said), and each cell the last sitting's report
# decided is reused when nothing it depends on changed (that report is kept as
# target/mutation-previous.json). The report and page are the ones `make mutation-generated`
# writes; run it again until the page no longer says the survey stopped early.
SITTING ?= 3600
mutation-sitting: $(STAMP)
	@if [ -f target/mutation-report.json ]; then \
	  mv -f target/mutation-report.json target/mutation-previous.json; fi
	@reuse=""; if [ -f target/mutation-previous.json ]; then \
	  reuse="--reuse target/mutation-previous.json"; fi; \
	$(BIN)/claims mutate --generated --keys $$reuse --stop-after $(SITTING) $(MUTATION_ARGS) \
	  --report target/mutation-report.json --html target/mutation.html; status=$$?; \
	  if [ -f target/mutation-report.json ]; then $(SCORE_PAGE) target/mutation-report.json; fi; \
	  exit $$status

mutation: mutation-generated
	$(BIN)/claims mutate --values --report target/mutation-values.json
	$(SCORE_PAGE) target/mutation-report.json target/mutation-values.json

# The pytest suite and the evidence run side by side: pytest keeps about one core busy, and
# the declared run's fleets wait on ssh sessions more than they compute, so the two together
# take little longer than the evidence alone. Each job's output is printed whole when it ends
# (--output-sync); make fails if either does. Fleets pick their own random loopback addresses,
# ports and roots, and every temporary file has its own directory, so the two never meet.
test: lint typecheck realtools
	$(MAKE) --no-print-directory -j2 --output-sync=target pytest evidence

# Every claim, the frontiers, every declared mutant, what the baseline reaches: in that order,
# each after the last passed.
evidence: $(STAMP)
	$(MAKE) --no-print-directory claims
	$(MAKE) --no-print-directory frontiers
	$(MAKE) --no-print-directory mutate
	$(MAKE) --no-print-directory mutation-reach

# Ratios against a baseline measured in the same run; prints, asserts nothing. Writes
# target/bench.json and, from it, docs/benchmarks-measured.md (and .json beside it), each
# figure with its run's date and commit. BENCH_ARGS go to tools/bench.py, e.g.
# BENCH_ARGS="--skip-mutmut --skip-mutate" or BENCH_ARGS="--only 'authority log'": a step left
# out keeps on the page the figures of the run that last measured it.
BENCH_ARGS ?=
bench: $(STAMP)
	$(BIN)/python tools/bench.py $(BENCH_ARGS) --page docs/benchmarks-measured.md

clean:
	rm -rf $(VENV) $(VLLM_VENV) target mutants
