"""``claims mutate``: the declared harness, the generated survey, and merging shard reports.

The parser is built on every ``claims`` invocation (the plugin adds the command), so the
engine's modules are imported inside the handlers, when ``claims mutate`` actually runs.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from claims import Session, UsageError
from claims.config import ProjectConfig
from claims.files import check_writable, shown

if TYPE_CHECKING:
    from plugins.mutate.declared.harness import Findings, Planner
    from plugins.mutate.declared.runs import RunResult

DESCRIPTION = """\
Check that every claim turns red for exactly its defect.

Declared mutants (the modules a plugin registers for a witness) each replace one function,
method or property of the code under test and declare the exact claims they turn red. For
the named witnesses (or --all) the harness runs, each in its own child process: a clean
baseline (every claim green); per target, a forced-fail sanity run (the target raises; its
mutants' claims must go red); each mutant alone (red set = declared set; undeclared positive
controls stay green); per witness, the independent mutants together and each named control
(red set = union, positive controls green). It prints the kill matrix, then one line per
witness:
  W: K/M mutants exact, combined exact, positive controls green, claims witnessed C/N

--generated runs the mutmut survey instead: mutmut generates mutants of the project's
[tool.mutmut] source_paths into mutants/, and one process runs every claim that calls each
mutated function under each mutant (MUTANT_UNDER_TEST), writing a Stryker
mutation-testing-report-schema JSON report.

--values surveys value mutants instead: every public function of the source paths whose
return annotation is a record (a frozen pydantic model, dataclass or attrs class, a
NamedTuple), a str, or a tuple/list of those is a boundary (none at all: exit 2); the
claims run once with every boundary recording what it returns, and each returned value is
walked for its sites (an argv element dropped, duplicated or swapped with the next; a unit or
script line deleted or swapped; a unit key renamed; an int or datetime one off; a bool
negated; two sibling fields of one type swapped). At most --per-operator sites per boundary
and operator are surveyed (seeded and stable); each runs with only the claims that saw its
site, with the same baseline, forced fail, budget and canaries as --generated, and the kill
matrix is written as a Stryker report (default target/mutation-values.json).
"""

EPILOG = """\
exit codes (declared mutants; when several apply, the first listed here wins):
  5  baseline not green: some claim fails with no mutant applied; nothing else ran
  6  timeout or crash: a run hung past the timeout or its process died without a result
  7  unreached: a target replaced by a raising function left a declared claim green
  4  collateral: a mutant turned a claim red that it neither declares nor has recorded
     (the red-sets lock, [tool.claims] red_sets), left a recorded claim green, or turned
     a positive control red; or the lock names a mutant or claim that does not exist
  3  survivor: a mutant left some (or all) of its declared claims green
  8  unwitnessed: a claim no mutant turns red that the debt list does not name,
     or a debt entry for a claim that is witnessed after all
  2  usage error, a floor violation of a witness or of a mutant declaration
  0  every mutant exact, every combination exact, positive controls green, all witnessed
exit codes (--generated, --values, --merge-reports; the first of 5, 9, 6, 3 wins):
  0 the survey ran (survivors are listed, not failed), every floor held
  3 a floor not held (--floors), or the score below --break-below (--generated)
  5 baseline not green
  6 the survey process itself failed, or a surveyed mutant crashed (the report is
    written first)
  9 --generated's verdict audit disagreed with the survey on a sampled cell, or its
    control failed (the report is written first)
  130 Ctrl-C stopped the survey (the partial report is written first; SIGTERM and SIGHUP
    end it as they say, after the report)

examples:
  claims mutate my_witness
  claims mutate --all --report target/mutation-declared.json
  claims mutate --all --record          # rewrite the red-sets lock from what is observed
  claims mutate --generated --shard 2/4 --report target/mutation-shard-2.json
  claims mutate --generated --since origin/main
  claims mutate --generated --reach     # the uncovered allowances, from one baseline
  claims mutate --generated --keys --stop-after 3600   # then --reuse its report, and so on
  claims mutate --merge-reports target/mutation-shard-*.json --report target/mutation-report.json
  claims mutate --explain my_project.core.x_f__mutmut_3
  claims mutate --annotate origin/main --report target/mutation-diff.json
  claims mutate --values --report target/mutation-values.json
  claims mutate --values my_witness --file src/my_project/core.py --show-survivors 50
  claims mutate --values --shard 1/2 --report target/mutation-values-1.json
  claims mutate --values --merge-reports target/mutation-values-*.json

exit codes (--explain, --annotate: they read a report and run nothing):
  0 printed (survivors on changed lines are warnings, never a failure)
  2 a report that cannot be read, an id it does not hold, a REV that is not a commit
"""


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``mutate`` to the ``claims`` command line."""
    parser = subparsers.add_parser(
        "mutate",
        help="check that declared mutants turn exactly their claims red; run the mutmut survey",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("witnesses", nargs="*", metavar="W", help="witnesses to check")
    parser.add_argument("--all", action="store_true", help="every registered witness")
    parser.add_argument(
        "--jobs",
        type=int,
        metavar="N",
        help="runs at once (default: [tool.claims] jobs, else one per core); as many runs "
        "(declared mutants) or workers (surveys) for what mostly waits on other processes "
        "may run beside them",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        metavar="SECONDS",
        help="per-run timeout (default: [tool.claims] timeout, else max(10 s, 5 × the baseline))",
    )
    parser.add_argument(
        "--report",
        type=Path,
        metavar="FILE",
        help="write a Stryker mutation-testing-report JSON here (--generated "
        "default: target/mutation-report.json; --values default: target/mutation-values.json)",
    )
    parser.add_argument(
        "--html",
        type=Path,
        metavar="FILE",
        help="also write the report as a self-contained HTML page (opens offline): files "
        "with scores, the source with each mutant marked, the kill matrix per claim",
    )
    parser.add_argument(
        "--debt",
        type=Path,
        metavar="FILE",
        help="claims owed a mutant, with reasons (default: [tool.claims] debt; none)",
    )
    parser.add_argument(
        "--red-sets",
        type=Path,
        metavar="FILE",
        help="the recorded red sets: each mutant's red claims of other witnesses (default: "
        "[tool.claims] red_sets, empty when missing; a FILE given must exist)",
    )
    parser.add_argument(
        "--record",
        action="store_true",
        help="with --all: write the red sets from this run's mutants alone, then judge the "
        "run against them (nothing is written when a run timed out or crashed)",
    )
    _add_generated_options(parser)
    parser.set_defaults(handler=mutate)


def _add_generated_options(parser: argparse.ArgumentParser) -> None:
    """The survey options, each tagged where it applies (:func:`_given` reads the tags):
    ``only`` to ``--generated``, ``both`` to ``--generated`` and ``--values``."""
    only: list[argparse.Action] = []
    both: list[argparse.Action] = []
    group = parser.add_argument_group("generated mutants (mutmut)")
    group.add_argument(
        "--explain",
        metavar="ID",
        help="print what a survey's report (--report; default target/mutation-report.json) "
        "says of one mutant: where, the change and its diff, its status and why, the verdict "
        "of each claim that covered it, its place in the minimal mutant set; runs nothing",
    )
    group.add_argument(
        "--annotate",
        metavar="REV",
        help="print a GitHub warning annotation for each survivor of a survey's report "
        "(--report; default target/mutation-report.json) on a line changed since git revision "
        "REV, at most one a line (the one whose operator the report kills most often "
        "elsewhere), with its diff; runs nothing",
    )
    generated = group.add_argument(
        "--generated", action="store_true", help="run the mutmut survey over the source paths"
    )
    both.append(
        group.add_argument(
            "--shard",
            metavar="K/N",
            help="only every N-th generated mutant, starting with the K-th (1-based)",
        )
    )
    only.append(
        group.add_argument(
            "--since",
            metavar="REV",
            help="only mutants in functions changed since git revision REV",
        )
    )
    both.append(
        group.add_argument(
            "--file",
            action="append",
            metavar="PATH",
            help="only mutants of this source file (e.g. src/my_project/core.py); repeatable",
        )
    )
    only.append(
        group.add_argument(
            "--first-kill",
            action="store_true",
            help="stop each mutant at its first red claim (likeliest killer first): the same "
            "killed/survived verdicts and strength, sooner; killedBy then holds that one claim, "
            "not the matrix, and the report says so",
        )
    )
    only.append(
        group.add_argument(
            "--order-from",
            type=Path,
            metavar="REPORT",
            help="with --first-kill: try first the claims that killed each mutant (and its "
            "function's mutants) in this earlier report (default: fastest claim first)",
        )
    )
    only.append(
        group.add_argument(
            "--reach",
            action="store_true",
            help="run the baseline alone (every claim once, recording which mutated functions "
            "each calls; no mutant runs) and hold what it decides of --floors: each file with "
            "mutants has an entry, keeps no more uncovered mutants than it allows, and has one "
            "a claim reaches; one run of every claim, not one per mutant (report: each file's "
            "uncovered functions, default target/mutation-reach.json)",
        )
    )
    only.append(
        group.add_argument(
            "--no-deletion",
            action="store_true",
            help="mutmut's mutants only: leave out the statement deletions (StatementDeletion)",
        )
    )
    both.append(
        group.add_argument(
            "--waiting-workers",
            type=int,
            metavar="N",
            help="workers beside the --jobs ones for the mutants whose covering claims mostly "
            "waited in the baseline (default: twice --jobs; 0: every mutant in the --jobs "
            "workers; does not go with --first-kill): the same verdicts",
        )
    )
    both.append(
        group.add_argument(
            "--stop-after",
            type=float,
            metavar="SECONDS",
            help="stop the survey where it is once its workers have run SECONDS (as Ctrl-C, "
            "SIGTERM or SIGHUP do) and report the mutants judged so far: a partial report, which "
            "holds no floor and no merge takes (the audit still runs after --stop-after)",
        )
    )
    both.append(
        group.add_argument(
            "--exhaustive",
            action="store_true",
            help="run every claim under every mutant, not only the claims that "
            "call the mutated function",
        )
    )
    group.add_argument(
        "--equivalent",
        type=Path,
        metavar="FILE",
        help="mutants judged equivalent, with reasons (default: [tool.claims] equivalent; none)",
    )
    only.append(
        group.add_argument(
            "--break-below",
            type=float,
            metavar="PERCENT",
            help="exit 3 when the mutation score is below PERCENT",
        )
    )
    both.append(
        group.add_argument(
            "--floors",
            type=Path,
            metavar="FILE",
            help="strength floors per source file, held by a whole or merged survey "
            "(default: [tool.claims] floors; none); exit 3 for a file below its floor, without "
            "one, or floored but judged on no mutant (missing from the report too); a partial "
            "run fails only where it judged nothing",
        )
    )
    only.append(
        group.add_argument(
            "--audit",
            type=int,
            metavar="K",
            help="re-judge K cells of the kill matrix (seeded; every way a cell was decided among "
            "them) each in a fresh process on the mutated source, and exit 9 on any "
            "disagreement (default 50; 0: no cell, timeouts are still confirmed)",
        )
    )
    only.append(
        group.add_argument(
            "--no-skip",
            action="store_true",
            help="run every covering claim under every mutant: decide no cell by replaying the "
            "baseline's calls (not_infected, same_as)",
        )
    )
    only.append(
        group.add_argument(
            "--plain-trampoline",
            action="store_true",
            help="let mutmut's trampoline decide every call (slower; the default calls a "
            "function's original at once while no mutant of it is active: the same verdicts)",
        )
    )
    only.append(
        group.add_argument(
            "--skip-worth",
            type=float,
            metavar="SECONDS",
            help="replay the baseline's calls only for claims whose baseline took at least "
            "SECONDS (default 0.05; a quicker claim just runs: speed, never a verdict)",
        )
    )
    only.append(
        group.add_argument(
            "--keys",
            action="store_true",
            help="record in the report each claim's key (the code it ran, the files it read) "
            "and each mutant's, so a later survey can --reuse the cells nothing changed under",
        )
    )
    only.append(
        group.add_argument(
            "--reuse",
            type=Path,
            metavar="REPORT",
            help="take each cell's verdict from REPORT (a full-matrix survey made with --keys or "
            "--reuse) when its key is unchanged, and run the rest; records keys too",
        )
    )
    only.append(
        group.add_argument(
            "--audit-seed",
            type=int,
            metavar="N",
            help="the seed of the audit's sample (default 1)",
        )
    )
    group.add_argument(
        "--merge-reports",
        nargs="+",
        type=Path,
        metavar="FILE",
        help="merge shard reports into --report and summarize them",
    )
    _add_value_options(parser, both)
    parser.set_defaults(generated_only=(generated, *only), survey_only=(*only, *both))


def _add_value_options(parser: argparse.ArgumentParser, both: list[argparse.Action]) -> None:
    group = parser.add_argument_group(
        "value mutants (--shard, --exhaustive, --merge-reports apply too; --file PATH: "
        "only the boundaries defined in PATH)"
    )
    group.add_argument(
        "--values",
        action="store_true",
        help="survey value mutants at the source's typed boundaries (W: the claims to run; "
        "default every witness)",
    )
    both.append(
        group.add_argument(
            "--per-operator",
            type=int,
            metavar="N",
            help="survey at most N sites per boundary and operator, a seeded stable choice "
            "(default 4; 0: every enumerated site)",
        )
    )
    both.append(
        group.add_argument(
            "--show-survivors",
            type=int,
            metavar="N",
            help="print at most N survivors with their diffs (default 20; both surveys)",
        )
    )


class ProgressLine:
    """One stderr line per finished run, once the invocation has taken a couple of seconds."""

    QUIET_SECONDS = 2.0

    def __init__(self) -> None:
        self.start = time.monotonic()

    def __call__(self, result: RunResult, done: int, total: int) -> None:
        if time.monotonic() - self.start < self.QUIET_SECONDS:
            return
        red = f"{len(result.red)} red" if result.ok else result.status.value.upper()
        print(
            f"[{done}/{total}] {result.request.label}: {red} ({result.seconds:.1f} s)",
            file=sys.stderr,
            flush=True,
        )


def chosen_witnesses(args: argparse.Namespace, session: Session) -> tuple[str, ...]:
    """The scope: the named witnesses, or every registered one with --all."""
    if args.all and args.witnesses:
        raise UsageError("give witness names or --all, not both")
    if args.all:
        if not session.witness_names:
            raise UsageError(
                "--all found no witness: no loaded plugin registers one; name the plugin "
                "that does in [tool.claims] plugins, or load it with `claims -p MODULE`"
            )
        return session.witness_names
    if not args.witnesses:
        raise UsageError(
            "name the witnesses to check, or pass --all (example: claims mutate "
            "my_witness); --generated runs the mutmut survey instead"
        )
    session.check_known(args.witnesses)
    pending = [w for w in args.witnesses if w in session.pending_names]
    if pending:
        raise UsageError(
            f"{', '.join(pending)} is pending: its claims are red by design until its frontier "
            "lands, so there is no green baseline for a mutant to turn red"
        )
    return tuple(dict.fromkeys(args.witnesses))


def mutate(args: argparse.Namespace, session: Session) -> int:
    """The ``claims mutate`` handler; with ``--html``, the written report as a page too."""
    started = time.time()
    for target in (args.report, args.html):  # a long run must not end refusing its output
        if target is not None:
            check_writable(target)
    code = _mutate(args, session)
    if args.html is not None:
        _write_html(args, code, started)
    return code


def _report_path(args: argparse.Namespace) -> Path | None:
    if args.report is not None:
        return Path(args.report)
    if args.values:
        return Path("target/mutation-values.json")
    if args.generated or args.merge_reports:
        return Path("target/mutation-report.json")
    return None


def _write_html(args: argparse.Namespace, code: int, started: float) -> None:
    from plugins.mutate.html_report import html_from_file

    report = _report_path(args)
    # Only a report this run wrote: a stale one from an earlier run is not this run's page.
    if report is None or not report.is_file() or report.stat().st_mtime < started - 1:
        print(
            f"no HTML written: no report was written (exit {code}; --html needs --report "
            "with the declared harness)"
        )
        return
    html_from_file(report, args.html)
    print(f"html: {args.html}")


def _configured(args: argparse.Namespace, config: ProjectConfig) -> None:
    """Fill what the command line left out from the project's ``[tool.claims]``; the red sets
    stay as given (a lock named on the command line must exist, the configured one need not)."""
    keys = ["debt", "equivalent", "jobs", "timeout"]
    if args.generated or args.values or args.merge_reports:
        keys.append("floors")  # the declared mutants hold no floor; --floors is refused there
    for key in keys:
        if getattr(args, key) is None:
            setattr(args, key, getattr(config, key))
    if args.jobs is None:
        args.jobs = max(1, os.cpu_count() or 1)


def _mutate(args: argparse.Namespace, session: Session) -> int:
    _configured(args, session.config)
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if (args.values or args.generated or args.merge_reports) and (args.record or args.red_sets):
        raise UsageError("--record and --red-sets apply to the declared mutants only")
    if args.explain is not None and args.annotate is not None:
        raise UsageError("give --explain ID or --annotate REV, not both")
    if args.explain is not None:
        from plugins.mutate.explain import explain_command

        return explain_command(args.explain, args.report)
    if args.annotate is not None:
        from plugins.mutate.annotate import annotate_command

        return annotate_command(args.annotate, args.report)
    if args.values:
        return _values(args, session)
    if args.merge_reports:
        from plugins.mutate.generated.command import merge_command

        return merge_command(args.merge_reports, args.report, args.floors, args.show_survivors)
    if args.generated:
        from plugins.mutate.generated.command import survey_command

        return survey_command(args, session)
    _refuse_generated_options(args)
    return declared_command(args, session)


def _values(args: argparse.Namespace, session: Session) -> int:
    from plugins.mutate.values.command import merge_values, values_command

    wrong = given_options(args, args.generated_only)
    if wrong:
        raise UsageError(f"{', '.join(wrong)} do not apply to --values")
    if args.merge_reports:
        return merge_values(args.merge_reports, args.report, args.show_survivors, args.floors)
    return values_command(args, session)


def given_options(args: argparse.Namespace, actions: Sequence[argparse.Action]) -> list[str]:
    """The option strings of ``actions`` given on this command line (a value other than
    the option's default)."""
    return [a.option_strings[0] for a in actions if getattr(args, a.dest) != a.default]


def _refuse_generated_options(args: argparse.Namespace) -> None:
    given = given_options(args, args.survey_only)
    if given:
        raise UsageError(f"{', '.join(given)} only apply to --generated or --values")


def _record(findings: Findings, planner: Planner, lock: Path) -> Findings:
    """Write the red sets observed by ``findings`` to ``lock`` and judge the runs against
    them; a run whose baseline is red, or any mutant that ended without a result, writes
    nothing (a partial observation would drop that mutant's pairs)."""
    from plugins.mutate.declared.harness import RunKind, rejudge, results_of
    from plugins.mutate.declared.red_sets import RedSets, observed, write

    lost = [j.expectation.label for j in findings.of_kind(RunKind.SOLO) if not j.result.ok]
    if findings.baseline_red or lost:
        why = "the baseline is not green" if findings.baseline_red else ", ".join(lost)
        print(f"red sets: nothing written to {shown(lock)}: {why}", file=sys.stderr)
        return findings
    pairs = observed(findings.observed())
    before = planner.red_sets.pairs
    write(lock, pairs)
    print(
        f"red sets: {shown(lock)} written, {len(pairs)} pairs "
        f"(+{len(pairs - before)} -{len(before - pairs)})",
        file=sys.stderr,
    )
    return rejudge(findings, planner.with_red_sets(RedSets(pairs)), results_of(findings))


def declared_command(args: argparse.Namespace, session: Session) -> int:
    """Run the declared harness on the chosen witnesses and print its findings."""
    from plugins.mutate.declared.harness import Planner, run_harness
    from plugins.mutate.declared.loading import claim_book, load
    from plugins.mutate.declared.red_sets import RedSets
    from plugins.mutate.declared.red_sets import read as read_red_sets
    from plugins.mutate.declared.tables import render
    from plugins.mutate.ledgers import load_debt

    debt = load_debt(args.debt)  # the inputs are read before any work starts
    if args.record and not args.all:
        raise UsageError(
            "--record needs --all: the red sets are recorded from every witness's claims"
        )
    lock = args.red_sets if args.red_sets is not None else session.config.red_sets
    if lock is None and args.record:
        raise UsageError(
            "--record: no file to record the red sets in; name one with --red-sets FILE or "
            "red_sets in [tool.claims]"
        )
    red_sets = (
        RedSets()
        if lock is None
        else read_red_sets(lock, required=args.red_sets is not None and not args.record)
    )
    scope = chosen_witnesses(args, session)
    book = claim_book(session, scope)
    declared = load(session, scope, book)
    planner = Planner(scope, book, declared, tuple(getattr(args, "plugins", ()) or ()), red_sets)
    findings = run_harness(planner, debt, args.jobs, args.timeout, ProgressLine())
    if args.record and lock is not None:  # (--record without a lock was refused above)
        findings = _record(findings, planner, lock)
    print(render(findings))
    if args.report is not None and not findings.baseline_red:
        from plugins.mutate.stryker import declared_report, write_report

        write_report(declared_report(findings), args.report)
    return int(findings.exit_code())
