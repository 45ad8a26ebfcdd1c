"""Witness: the transactional apply's stage scripts — strict, taking the container name,
preflight, readback, preserve and rollback — and the contexts they are rendered from. The
apply order and each step's front door are the claims every arm shares (``arm_launch``)."""

from __future__ import annotations

import json
import re
import shlex

from claims import ClaimKind, Verdict, claim, expect, expect_equal, fails, holds
from fixtures.builders import rendered, v41_dry_run
from planner.apply import ApplyContext, Stage, apply_contexts, stage_script
from planner.arm_launch import DryRun
from planner.arms import arms
from witnesses.arms.expected import supplied


def _run() -> DryRun:
    run = v41_dry_run("supplied")
    if not run.apply_order:
        raise AssertionError("supplied inputs rendered no apply steps")
    return run


def _script(run: DryRun, stage: Stage, rank: int) -> str:
    for step in run.apply_order:
        if step.stage is stage and step.rank == rank:
            return step.script
    raise AssertionError(f"no {stage.value} step for rank {rank}")


def _commands(script: str, verb: str) -> list[tuple[str, ...]]:
    """The arguments of every ``verb`` command (e.g. ``cp -p``) anywhere on a script line."""
    head = verb.split()
    found = []
    for line in script.splitlines():
        words = shlex.split(line, comments=True)
        for at in range(len(words) - len(head) + 1):
            if words[at : at + len(head)] == head:
                found.append(tuple(words[at + len(head) :]))
    return found


@claim(ClaimKind.PLANNED_SHAPE)
def stage_scripts_take_the_container_name() -> Verdict:
    """Each stage script is a bash script (``#!/usr/bin/env bash`` first) that reads the
    container name from $1 (it is invoked as ``bash STAGE.sh NAME``: ``arm_launch``), and
    the apply stage creates the container under that name."""
    run = _run()
    bad = [
        f"{s.stage.value}@{s.rank}"
        for s in run.apply_order
        if 'container_name="${1:?' not in s.script
        or not s.script.startswith("#!/usr/bin/env bash\n")
    ]
    if '--name "$container_name"' not in _script(run, Stage.APPLY, 0):
        bad.append("apply creates the container under a literal name")
    return expect(not bad, "32 scripts take the container name as $1", f"not taking $1: {bad}")


@claim(ClaimKind.PLANNED_SHAPE)
def preflight_checks_image_mounts_and_names() -> Verdict:
    """Preflight checks the image is present, every mount source exists, the names are free,
    and no other arm's container or unit is live (occupancy)."""
    run = _run()
    script = _script(run, Stage.PREFLIGHT, 0)
    real = run.hosts[0].realization
    argv = real.create_argv
    sources = [
        argv[i + 1].split(",")[1].removeprefix("source=")
        for i, a in enumerate(argv)
        if a == "--mount"
    ]
    loop = next((line for line in script.splitlines() if line.startswith("for source in")), "")
    missing = [s for s in sources if s not in shlex.split(loop.removesuffix("; do"))]
    checks = (
        'docker image inspect "$image"' in script,
        "--filter label=gunbc.arm" in script,
        "systemctl list-units --type=service --state=active" in script,
    )
    if missing or not all(checks):
        return fails(f"unchecked mount sources {missing}; image/occupancy checks {checks}")
    return holds(f"image, {len(sources)} mount sources, container name and occupancy checked")


@claim(ClaimKind.PLANNED_SHAPE)
def readback_compares_what_runs_with_the_plan() -> Verdict:
    """Each rank's readback expects exactly its planned command, image and env."""
    run = _run()
    assert run.launch is not None
    problems = []
    for rank in run.launch.ranks:
        script = _script(run, Stage.READBACK, rank.rank)
        match = re.search(r"^expected_cmd=(.*)$", script, re.M)
        cmd = json.loads(shlex.split(match.group(1))[0]) if match else None
        envs = all(f"{k}={v}" in script for k, v in rank.env)
        if cmd != list(rank.serve_argv) or run.launch.image_digest not in script or not envs:
            problems.append(f"rank {rank.rank}")
    return expect(
        not problems,
        "4 ranks: command, image and env read back against the plan",
        f"readback differs from plan on {problems}",
    )


@claim(ClaimKind.PLANNED_SHAPE)
def followers_wait_for_the_head_rendezvous() -> Verdict:
    """Followers' apply waits for the head's rendezvous port; the head waits for nobody."""
    run = _run()
    assert run.launch is not None
    head = run.launch.head.host.rail_address
    waits = ["/dev/tcp/" + head in _script(run, Stage.APPLY, r) for r in range(4)]
    return expect_equal([False, True, True, True], waits, "apply waits for the head (per rank)")


def _copies(script: str) -> set[tuple[str, ...]]:
    """Each ``cp -p SRC DST`` of ``script`` as (SRC, DST), a copy landed by a later ``mv -f
    DST FINAL`` counted as (SRC, FINAL): what the script saved and where."""
    moves = {args[0]: args[1] for args in _commands(script, "mv -f") if len(args) == 2}
    return {(src, moves.get(dst, dst)) for src, dst in _commands(script, "cp -p")}


@claim(ClaimKind.PLANNED_SHAPE)
def rollback_restores_what_preserve_saved() -> Verdict:
    """Every copy and rename preserve makes, rollback makes in reverse."""
    run = _run()
    preserve = next(s for s in run.apply_order if s.stage is Stage.PRESERVE)
    rollback = _script(run, Stage.ROLLBACK, preserve.rank)
    renames = set(_commands(preserve.script, "docker rename"))
    undone = {
        "cp -p": (_copies(preserve.script), _copies(rollback)),
        "docker rename": (renames, set(_commands(rollback, "docker rename"))),
    }
    missing = [
        f"{verb} {' '.join(reversed(pair))}"
        for verb, (made, undo) in undone.items()
        for pair in sorted(made)
        if tuple(reversed(pair)) not in undo
    ]
    saved = sum(len(made) for made, _ in undone.values())
    if missing or saved < 2:
        return fails(f"preserve saved {saved} things; rollback does not undo {missing}")
    return holds(f"rollback reverses all {saved} preserve operations")


def _create_lines(script: str) -> list[str]:
    """The lines of the ``docker create`` command of an apply script, continuation marks
    and indentation removed."""
    lines = script.splitlines()
    start = lines.index("docker \\")
    found = []
    for line in lines[start:]:
        found.append(line.strip().removesuffix(" \\").removesuffix(" >/dev/null"))
        if not line.endswith("\\"):
            break
    return found


@claim(ClaimKind.PLANNED_SHAPE)
def create_lists_one_flag_and_its_value_per_line() -> Verdict:
    """Each rank's ``docker create`` is laid out one flag per line, the flag together with
    its value (the next argument when it is not itself a flag); the image and each command
    argument that is no flag's value stand alone; read as words, it is the planned argv."""
    run = _run()
    problems = []
    for host in run.hosts:
        argv = list(host.realization.create_argv)
        argv[argv.index("--name") + 1] = '"$container_name"'
        expected: list[str] = []
        for i, arg in enumerate(argv):
            word = arg if arg.startswith('"') else shlex.quote(arg)
            # a flag takes the next argument unless that is a flag too (a boolean flag)
            if i > 0 and argv[i - 1].startswith("--") and not arg.startswith("-"):
                expected[-1] += f" {word}"
            else:
                expected.append(word)
        got = _create_lines(_script(run, Stage.APPLY, host.realization.rank))
        if got != expected:
            problems.append(f"rank {host.realization.rank}: {got[:6]} …")
    return expect(not problems, "4 create commands, one flag and its value per line", str(problems))


@claim(ClaimKind.PLANNED_SHAPE)
def a_unit_text_that_would_end_the_heredoc_is_refused() -> Verdict:
    """A unit text with a line equal to the heredoc terminator (GUNBC_UNIT_TEXT) would cut
    the landed unit short: rendering its apply script refuses with that reason."""
    run = _run()
    head = run.hosts[0].realization
    cut = head.model_copy(update={"unit_text": head.unit_text + "GUNBC_UNIT_TEXT\n[X]\n"})
    assert run.launch is not None
    ctx = ApplyContext(
        arm="v41_group_a",
        realization=cut,
        launch=run.launch.head,
        image_digest=run.launch.image_digest,
        mount_sources=(),
        head_rail_address=run.launch.head.host.rail_address,
        rendezvous_port=29511,
        serve_port=8000,
    )
    try:
        stage_script(Stage.APPLY, ctx)
    except ValueError as error:
        return expect_equal(
            "unit text contains the heredoc terminator GUNBC_UNIT_TEXT", str(error), "refusal"
        )
    return fails("a unit text containing the heredoc terminator rendered an apply script")


@claim(ClaimKind.PLANNED_SHAPE)
def apply_contexts_pair_each_rank_with_its_own_host() -> Verdict:
    """The apply contexts pair each planned rank with exactly one realization: one
    realization too few (or too many) is refused, never silently dropped or left over."""
    run = _run()
    assert run.launch is not None
    reals = tuple(h.realization for h in run.hosts)
    refused = []
    for wrong in (reals[:-1], (*reals, reals[-1])):
        try:
            apply_contexts(run.launch, "v41_group_a", wrong, (), 29511, 8000)
        except ValueError:
            refused.append(len(wrong))
    paired = apply_contexts(run.launch, "v41_group_a", reals, (), 29511, 8000)
    ranks = [(c.launch.rank, c.realization.rank) for c in paired]
    return expect_equal(
        ([3, 5], [(r, r) for r in range(4)]), (refused, ranks), "(refused counts, rank pairs)"
    )


@claim(ClaimKind.PLANNED_SHAPE)
def each_apply_context_carries_its_ranks_whole_values() -> Verdict:
    """Rank i's apply context carries exactly what its scripts are rendered from: the arm,
    rank i's realization and launch (host, argv, env) whole, the plan's image, every mount
    source in the order given, the head's rail address, and the rendezvous and serve ports
    as given — for the head and every follower alike."""
    run = _run()
    assert run.launch is not None
    reals = tuple(h.realization for h in run.hosts)
    argv = reals[0].create_argv
    sources = tuple(
        argv[i + 1].split(",")[1].removeprefix("source=")
        for i, a in enumerate(argv)
        if a == "--mount"
    )
    contexts = apply_contexts(run.launch, "v41_group_a", reals, sources, 29511, 8000)
    want = [
        (
            "v41_group_a",
            reals[i],
            run.launch.ranks[i],
            run.launch.image_digest,
            sources,
            run.launch.ranks[0].host.rail_address,
            29511,
            8000,
        )
        for i in range(len(reals))
    ]
    got = [
        (
            c.arm,
            c.realization,
            c.launch,
            c.image_digest,
            c.mount_sources,
            c.head_rail_address,
            c.rendezvous_port,
            c.serve_port,
        )
        for c in contexts
    ]
    wrong = [f"rank {i}" for i, (w, g) in enumerate(zip(want, got, strict=False)) if w != g]
    if len(got) != len(want):
        wrong.append(f"{len(got)} contexts for {len(want)} ranks")
    return expect(
        not wrong, f"4 contexts, each with its rank's values and {len(sources)} sources", str(wrong)
    )


@claim(ClaimKind.PLANNED_SHAPE)
def every_stage_script_is_strict_from_its_first_command() -> Verdict:
    """Every stage script of every arm of the registry opens the same way:
    ``#!/usr/bin/env bash``, a comment naming its stage, arm, node rank and host (``# apply:
    arm v41_group_a, node rank 0 on srv5``), then ``set -euo pipefail`` before any command,
    so any failing command, unset variable or broken pipe stops the stage where it failed."""
    problems = []
    count = 0
    for run in (rendered(supplied(arm), arm.name) for arm in arms().values()):
        for step in run.apply_order:
            count += 1
            want = [
                "#!/usr/bin/env bash",
                f"# {step.stage.value}: arm {run.arm}, node rank {step.rank} on {step.host_name}",
                "set -euo pipefail",
            ]
            if step.script.splitlines()[:3] != want:
                problems.append(f"{run.arm} {step.stage.value}@{step.rank}")
    return expect(not problems, f"{count} scripts strict from the start", str(problems[:6]))
