"""Witness: the V4.1 apply, executed on four hosts, does what the plan says and undoes it.

Every stage script of every host of the supplied V4.1 plan runs for real under bash in the
sandbox of :mod:`fixtures.sandbox` (a private mount and network namespace; stand-ins for
docker, systemctl and curl that keep their state in files). The claims read back what the
scripts left behind — containers, unit files byte for byte, systemd's loaded units, active
and enabled units, preserve dirs, every docker/systemctl call in order — and each script's
exit status and exact messages.

Expected values come from the plan's own inputs where the claim is "what runs is what was
planned" (each rank's serve argv, env, image digest and unit text), and from the transaction
contract otherwise: the preserve dir is ``/var/lib/gunbc/preserve/<arm>/<unit stem>``, the
messages are the user-facing text of each stage.

All scenarios of the witness run in one batch on the first claim, and are remembered by the
sandbox's memo (keyed by every script byte and every seeded byte): a mutant that leaves the
scripts alone costs nothing here.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from claims import ClaimKind, Verdict, claim, difference, holds_unless
from fixtures import sandbox
from fixtures.builders import rendered, tiny_recipe_plan, v41_call, v41_dry_run
from fixtures.sandbox import Change, Container, Host, HostSeed, HostState, Mark, Outcome, Run
from fixtures.transaction_cases import (
    ARM,
    OTHER_ARM,
    PRESERVE_ROOT,
    PREVIOUS,
    PREVIOUS_IMAGE,
    SSHD,
    SSHD_UNIT,
    UNIT_DIR,
    Rank,
    previous_unit,
)
from fixtures.transaction_cases import ranks as ranks_of
from planner.apply import Stage, apply_contexts, go_json, stage_script
from planner.arm_launch import DryRun, RenderedHost
from planner.check import (
    UNIT_READ_LIMIT,
    HostProbe,
    PlannedHost,
    ProbedContainer,
    ProbedUnit,
    ProbeUnreadable,
    parse_probe,
    planned_hosts,
    probe_script,
)
from planner.realize import STOP_GRACE_SECONDS

STAGES = ("preflight", "preserve", "apply", "readback", "front_door", "commit", "cleanup")
ALL_STAGES = (*STAGES[:5], "commit", "rollback", "cleanup")
PREFLIGHT_PASSED = (
    "preflight passed: image present, mount sources exist and are root's alone, names free\n"
)
EFFECTS = {
    "docker": {"create", "start", "stop", "rename", "rm"},
    "systemctl": {"daemon-reload", "start", "stop", "enable"},
}
"""The calls that change a host (the rest only read it)."""


def setup() -> None:
    """The sandbox runs here (root, unshare, ip), or the witness is unresolved."""
    sandbox.require()


def _plan() -> DryRun:
    return rendered(v41_dry_run("supplied"), "the supplied inputs", 4)


def _seed(
    r: Rank,
    previous: bool,
    containers: tuple[Container, ...] = (),
    units: tuple[tuple[str, str], ...] = (),
    active: tuple[str, ...] = (),
    images: tuple[str, ...] | None = None,
    sources: tuple[str, ...] | None = None,
) -> HostSeed:
    """A host ready for the plan (image, mount sources, sshd running); with ``previous``,
    the previous V4.1 arm runs on it: same container name, older image, its unit active."""
    old = (
        Container(
            r.name,
            PREVIOUS_IMAGE,
            ("serve", "/old"),
            ("OLD=1",),
            (("gunbc.arm", ARM),),
            running=True,
        ),
    )
    own_unit = ((r.unit, previous_unit(r.name)),)
    return HostSeed(
        images=(r.image, PREVIOUS_IMAGE) if images is None else images,
        containers=(old if previous else ()) + containers,
        units=((SSHD, SSHD_UNIT),) + (own_unit if previous else ()) + units,
        active=(SSHD,) + ((r.unit,) if previous else ()) + active,
        enabled=(SSHD,) + ((r.unit,) if previous else ()),
        dirs=r.mount_sources if sources is None else sources,
        files=tuple(
            (f"{s}/README", "staged\n")
            for s in (r.mount_sources if sources is None else sources)[:1]
        ),
    )


def _hosts(ranks: tuple[Rank, ...]) -> tuple[Host, ...]:
    return tuple(Host(r.host, r.scripts, _seed(r, p)) for r, p in zip(ranks, PREVIOUS, strict=True))


def _runs(ranks: tuple[Rank, ...], stage: str, order: tuple[int, ...] = (0, 1, 2, 3)) -> list[Run]:
    return [Run(i, stage, (ranks[i].name,)) for i in order]


def _transaction(ranks: tuple[Rank, ...]) -> sandbox.Scenario:
    """Every stage on every host, head first; every host read back after commit too."""
    steps: list[sandbox.Step] = [run for stage in STAGES[:6] for run in _runs(ranks, stage)]
    steps += [Mark(), *_runs(ranks, "cleanup")]
    return sandbox.Scenario(_hosts(ranks), tuple(steps), (ranks[0].rail,))


def _image_vanishes(ranks: tuple[Rank, ...]) -> sandbox.Scenario:
    """Apply fails on rank 2 (its image vanished after preflight); every host rolls back.
    Rank 3's unit file had only half landed (an apply cut short while writing it)."""
    steps: list[sandbox.Step] = [
        *_runs(ranks, "preflight"),
        *_runs(ranks, "preserve"),
        *_runs(ranks, "apply", (0, 1)),
        Change(3, f"printf '[Unit]\\n' > {ranks[3].unit_path.lstrip('/')}.landing"),
        Change(2, f"rm state/images/{ranks[2].image}"),
        *_runs(ranks, "apply", (2,)),
        *_runs(ranks, "rollback", (3, 2, 1, 0)),
        Mark(),
        *_runs(ranks, "cleanup"),
    ]
    return sandbox.Scenario(_hosts(ranks), tuple(steps), (ranks[0].rail,))


def _readback_differs(ranks: tuple[Rank, ...]) -> sandbox.Scenario:
    """Readback fails on rank 1 (its command gained an argument); every host rolls back, and
    rank 1's rollback runs again (its connection dropped as it finished, so the coordinator
    could not know)."""
    box = f"state/containers/{ranks[1].name}"
    changed = sandbox.go_json((*ranks[1].serve_argv, "--enforce-eager"))
    steps: list[sandbox.Step] = [
        *_runs(ranks, "preflight"),
        *_runs(ranks, "preserve"),
        *_runs(ranks, "apply"),
        Change(1, f"printf '%s\\n' '{changed}' > {box}/cmd.json"),
        *_runs(ranks, "readback", (0, 1)),
        *_runs(ranks, "rollback", (3, 2, 1, 0, 1)),
        Mark(),
        *_runs(ranks, "cleanup"),
    ]
    return sandbox.Scenario(_hosts(ranks), tuple(steps), (ranks[0].rail,))


def _one(
    r: Rank, seed: HostSeed, stages: tuple[str, ...], name: str | None = None
) -> sandbox.Scenario:
    hosts = tuple(
        Host(r.host, r.scripts, seed) if i == r.rank else Host(f"idle{i}", ())
        for i in range(r.rank + 1)
    )
    args = () if name == "" else (name or r.name,)
    return sandbox.Scenario(hosts, tuple(Run(r.rank, s, args) for s in stages), (r.rail,))


def _few_sources_preflight(run: DryRun, n: int) -> tuple[tuple[str, ...], str]:
    """The head's preflight rendered for an arm that mounts only the first ``n`` of its
    mount sources: those sources, and the script."""
    call = v41_call("supplied")
    assert run.launch is not None
    reals = tuple(h.realization for h in run.hosts)
    sources = ranks_of(run)[0].mount_sources[:n]
    contexts = apply_contexts(
        run.launch,
        call.arm,
        reals,
        sources,
        call.container.rendezvous_port,
        call.route.serve_port,
    )
    return sources, stage_script(Stage.PREFLIGHT, contexts[0])


def _ownership_cases(r: Rank) -> list[tuple[str, sandbox.Scenario, str | None]]:
    """A mount source (the first) or a directory above it that another local user owns or
    may write, made so between seeding and preflight (owners and modes are no bytes: the
    host reads back unchanged); a root-owned sticky directory above it (/var/tmp) is none."""
    source = r.mount_sources[0]
    parent = source.rsplit("/", 1)[0]
    owned, writable = "is owned by uid 1234, not root", "is writable by group or others"
    cases = [
        ("a source another user owns", f"chown 1234 {source[1:]}", f"{source} {owned}"),
        (
            "a source others may write",
            f"chmod 0777 {source[1:]}",
            f"{source} {writable} (mode 777)",
        ),
        ("a sticky source", f"chmod 1777 {source[1:]}", f"{source} {writable} (mode 1777)"),
        ("a group-writable parent", f"chmod 0775 {parent[1:]}", f"{parent} {writable} (mode 775)"),
        ("a parent another user owns", f"chown 1234 {parent[1:]}", f"{parent} {owned}"),
        ("a root sticky parent", f"chmod 1777 {parent[1:]}", None),
    ]
    found: list[tuple[str, sandbox.Scenario, str | None]] = []
    for what, change, refusal in cases:
        one = _one(r, _seed(r, False), ("preflight",))
        steps = (Change(r.rank, change), *one.steps)
        message = None if refusal is None else f"mount source {source}: {refusal}"
        found.append((what, sandbox.Scenario(one.hosts, steps, one.addresses), message))
    return found


def _preflight_cases(
    ranks: tuple[Rank, ...], few: list[tuple[tuple[str, ...], str]]
) -> list[tuple[str, sandbox.Scenario, str | None]]:
    """(what is on the host, the scenario, the refusal or None when preflight passes)."""
    r = ranks[0]
    other_unit = "vllm-old.service"
    attach = (
        "[Unit]\nDescription=an older serving arm\n\n[Service]\n"
        "ExecStart=/usr/bin/docker start --attach vllm-old\n"
    )
    glm = Container("glm-native-tp4", PREVIOUS_IMAGE, ("serve",), (), (("gunbc.arm", OTHER_ARM),))
    cases: list[tuple[str, HostSeed, str | None]] = [
        ("the previous V4.1 arm (own container and unit)", _seed(r, True), None),
        ("another arm's stopped container", _seed(r, False, (glm,)), None),
        (
            "an inactive unit that attaches a container",
            _seed(r, False, units=((other_unit, attach),)),
            None,
        ),
        (
            "another arm's running container",
            _seed(r, False, (Container(**{**glm.__dict__, "running": True}),)),
            "host is occupied by another arm: glm-native-tp4",
        ),
        (
            "another active unit that attaches a container",
            _seed(r, False, units=((other_unit, attach),), active=(other_unit,)),
            f"host is occupied by another arm's unit {other_unit}",
        ),
        ("no image", _seed(r, False, images=(PREVIOUS_IMAGE,)), f"image {r.image} is not present"),
        (
            "an unlabelled container under the name",
            _seed(r, False, (Container(r.name, PREVIOUS_IMAGE, ("serve",)),)),
            f"container name {r.name} is taken by an unlabelled container",
        ),
        (
            "another arm's stopped container under the name",
            _seed(
                r,
                False,
                (Container(r.name, PREVIOUS_IMAGE, ("serve",), (), (("gunbc.arm", OTHER_ARM),)),),
            ),
            f"container name {r.name} is taken by {OTHER_ARM}",
        ),
        (
            "the unit file running another container",
            _seed(r, False, units=((r.unit, previous_unit("vllm-old")),)),
            f"unit {r.unit} exists and runs another container",
        ),
        (
            "an earlier preserve pending (its dir)",
            _seed(r, True, sources=(*r.mount_sources, r.preserve_dir)),
            f"an earlier preserve is pending in {r.preserve_dir}: roll back or commit it first",
        ),
        (
            "an earlier preserve pending (its renamed container)",
            _seed(r, True, (Container(f"{r.name}-preserved", PREVIOUS_IMAGE, ("serve", "/old")),)),
            f"{r.name}-preserved exists: an earlier preserve is pending",
        ),
    ]
    for source in r.mount_sources:
        kept = tuple(s for s in r.mount_sources if s != source)
        cases.append(
            (f"no {source}", _seed(r, False, sources=kept), f"mount source {source} does not exist")
        )
    scenarios = [(what, _one(r, seed, ("preflight",)), refusal) for what, seed, refusal in cases]
    scenarios += _ownership_cases(r)
    # an arm with one mount source (or two) checks each, present or the last missing
    for sources, script in few:
        alone = Rank(**{**r.__dict__, "scripts": (("preflight", script),)})
        for present in (True, False):
            seed = _seed(r, False, sources=sources if present else sources[:-1])
            refusal = None if present else f"mount source {sources[-1]} does not exist"
            what = f"{len(sources)} mount source(s), {'all present' if present else 'last missing'}"
            scenarios.append((what, _one(alone, seed, ("preflight",)), refusal))
    return scenarios


def _readback_cases(ranks: tuple[Rank, ...]) -> list[tuple[str, sandbox.Scenario, str | None]]:
    r = ranks[0]
    planned = r.planned()
    argv = planned.cmd
    port = argv.index("--port")
    variants: list[tuple[str, Container, str | None]] = [
        ("the planned container", planned, None),
        (
            "one extra argument",
            Container(**{**planned.__dict__, "cmd": (*argv, "--enforce-eager")}),
            "running command differs from the plan",
        ),
        (
            "one argument changed",
            Container(
                **{**planned.__dict__, "cmd": (*argv[: port + 1], "8001", *argv[port + 2 :])}
            ),
            "running command differs from the plan",
        ),
        (
            "the last argument dropped",
            Container(**{**planned.__dict__, "cmd": argv[:-1]}),
            "running command differs from the plan",
        ),
        (
            "another image",
            Container(**{**planned.__dict__, "image": PREVIOUS_IMAGE}),
            "running image differs from the plan",
        ),
        (
            "a stopped container",
            Container(**{**planned.__dict__, "running": False}),
            f"{r.name} is not running",
        ),
    ]
    for i, pair in enumerate(planned.env):
        key = pair.split("=", 1)[0]
        env = (*planned.env[:i], pair + "0", *planned.env[i + 1 :])
        variants.append(
            (
                f"{key} with a suffix",
                Container(**{**planned.__dict__, "env": env}),
                f"env {key} differs from the plan",
            )
        )
    # several differences at once: readback names the first, in the order it checks them
    other_cmd = (*argv, "--enforce-eager")
    suffixed = tuple(pair + "0" for pair in planned.env)
    variants += [
        (
            "stopped, with another command",
            Container(**{**planned.__dict__, "running": False, "cmd": other_cmd}),
            f"{r.name} is not running",
        ),
        (
            "another command and another image",
            Container(**{**planned.__dict__, "cmd": other_cmd, "image": PREVIOUS_IMAGE}),
            "running command differs from the plan",
        ),
        (
            "another image and every env value suffixed",
            Container(**{**planned.__dict__, "image": PREVIOUS_IMAGE, "env": suffixed}),
            "running image differs from the plan",
        ),
    ]
    for i in range(len(planned.env) - 1):
        key = planned.env[i].split("=", 1)[0]
        env = (*planned.env[:i], *suffixed[i : i + 2], *planned.env[i + 2 :])
        variants.append(
            (
                f"{key} and the next variable suffixed",
                Container(**{**planned.__dict__, "env": env}),
                f"env {key} differs from the plan",
            )
        )
    return [
        (what, _one(r, _seed(r, False, (container,)), ("readback",)), refusal)
        for what, container, refusal in variants
    ]


def _other_cases(ranks: tuple[Rank, ...]) -> dict[str, sandbox.Scenario]:
    head, follower = ranks[0], ranks[1]
    pending_container = Container(f"{head.name}-preserved", PREVIOUS_IMAGE, ("serve", "/old"))
    return {
        "preserve twice": _one(head, _seed(head, True), ("preserve", "preserve")),
        "preserved container pending": _one(
            head, _seed(head, True, (pending_container,)), ("preserve",)
        ),
        "preserve twice on an empty host": _one(head, _seed(head, False), ("preserve", "preserve")),
        "inactive unit file": _one(
            head,
            _seed(head, False, units=((head.unit, previous_unit(head.name)),)),
            ("preserve",),
        ),
        "another name": _one(head, _seed(head, True), ALL_STAGES, name=f"{head.name}-other"),
        "no name": _one(head, _seed(head, True), ALL_STAGES, name=""),
        "follower before the head": _one(follower, _seed(follower, False), ("apply",)),
        "rollback with nothing preserved": _one(head, _seed(head, True), ("rollback",)),
        "head not serving": _one(
            head,
            _seed(head, False, (Container(**{**head.planned().__dict__, "running": False}),)),
            ("front_door",),
        ),
        "follower unit inactive": _one(
            follower,
            _seed(follower, False, units=((follower.unit, follower.unit_text),)),
            ("front_door",),
        ),
    }


@dataclass(frozen=True)
class _Executed:
    ranks: tuple[Rank, ...]
    transaction: Outcome
    image_vanishes: Outcome
    readback_differs: Outcome
    preflight: list[tuple[str, str | None, Outcome]]
    readback: list[tuple[str, str | None, Outcome]]
    other: dict[str, Outcome]


def _executed() -> _Executed:
    """Plan afresh, then run (or recall from the sandbox's memo) every scenario at once."""
    run = _plan()
    ranks = ranks_of(run)
    preflight = _preflight_cases(ranks, [_few_sources_preflight(run, n) for n in (1, 2)])
    readback = _readback_cases(ranks)
    other = _other_cases(ranks)
    scenarios = [
        _transaction(ranks),
        _image_vanishes(ranks),
        _readback_differs(ranks),
        *(s for _, s, _ in preflight),
        *(s for _, s, _ in readback),
        *other.values(),
    ]
    out = sandbox.run(scenarios)
    n, m = 3 + len(preflight), 3 + len(preflight) + len(readback)
    return _Executed(
        ranks=ranks,
        transaction=out[0],
        image_vanishes=out[1],
        readback_differs=out[2],
        preflight=[(w, r, o) for (w, _, r), o in zip(preflight, out[3:n], strict=True)],
        readback=[(w, r, o) for (w, _, r), o in zip(readback, out[n:m], strict=True)],
        other=dict(zip(other, out[m:], strict=True)),
    )


def _effects(state: HostState, step: int) -> list[tuple[str, ...]]:
    """The calls of one step that change the host, in order."""
    return [argv for argv in state.calls_of(step) if argv[1] in EFFECTS.get(argv[0], set())]


def _preserve_parents(r: Rank) -> dict[str, bytes]:
    """The directories ``mkdir -p`` of the preserve dir leaves behind its removal."""
    return {f"{PRESERVE_ROOT}/": b"", f"{PRESERVE_ROOT}/{ARM}/": b""}


def _saved(r: Rank, previous: bool) -> dict[str, bytes]:
    """What preserve keeps: the unit file as it was (or the record that there was none),
    whether it was active, and the record that no container was there to set aside."""
    saved = {f"{r.preserve_dir}/": b""}
    if previous:
        saved[f"{r.preserve_dir}/unit"] = previous_unit(r.name).encode()
        saved[f"{r.preserve_dir}/unit-was-active"] = b""
    else:
        saved[f"{r.preserve_dir}/no-unit"] = b""
        saved[f"{r.preserve_dir}/no-container"] = b""
    return saved


def _waited(seconds: int) -> str:
    """What the sandbox's sleep stand-in says when it stops a script that waits."""
    return (
        f"sleep stand-in: a stage waited (sleep {seconds}) for something that cannot change "
        "in the sandbox\n"
    )


def _done(stage: str, r: Rank) -> str:
    """What a stage that succeeded tells the operator on stdout."""
    return {
        "preflight": PREFLIGHT_PASSED,
        "preserve": f"preserved into {r.preserve_dir}\n",
        "apply": f"applied: {r.unit} started {r.name}\n",
        "readback": f"readback: rank {r.rank} runs what was planned\n",
        "front_door": f"front door open; log at {r.log_path}\n",
        "commit": f"committed: {r.unit} enabled, preserved state dropped\n",
        "cleanup": "cleaned up\n",
    }[stage]


@claim(ClaimKind.PLANNED_SHAPE)
def a_full_transaction_leaves_every_host_running_its_plan() -> Verdict:
    """Preflight, preserve, apply (head first), readback, front door, commit and cleanup on
    all four hosts each succeed with their exact message, and leave every host running
    exactly its planned container (image, whole command, whole env, labels, the whole create
    argv), its unit file byte for byte the planned text and loaded as such, the unit active
    and enabled, no backup, no preserve dir, no ``.landing`` and nothing else changed."""
    ex = _executed()
    out = ex.transaction
    problems = []
    for step, result in zip(_transaction(ex.ranks).steps, out.results, strict=True):
        if not isinstance(step, Run):
            continue
        stage, r = step.stage, ex.ranks[step.host]
        assert result is not None
        newly_enabled = stage == "commit" and not PREVIOUS[r.rank]
        stderr = (
            f"Created symlink {UNIT_DIR}/multi-user.target.wants/{r.unit} → {r.unit_path}.\n"
            if newly_enabled
            else ""
        )
        problems += difference(
            f"{stage}@{r.rank}",
            (0, _done(stage, r), stderr),
            (result.returncode, result.stdout, result.stderr),
        )
    (committed,) = out.marks
    for r, before, mid, after in zip(ex.ranks, out.before, committed, out.after, strict=True):
        files = dict(before.files)
        files[r.unit_path] = r.unit_text.encode()
        files.update(_preserve_parents(r))
        # commit itself drops the backup and the preserve dir; cleanup finds nothing left
        for when, host in (("after commit", mid), ("after cleanup", after)):
            label = f"rank {r.rank} {when}"
            problems += difference(
                f"{label} files", sorted(files.items()), sorted(host.files.items())
            )
            problems += difference(
                f"{label} containers", {r.name: r.planned()}, dict(host.containers)
            )
            problems += difference(f"{label} loaded", r.unit_text.encode(), host.loaded.get(r.unit))
            problems += difference(f"{label} active", {r.unit, SSHD}, set(host.active))
            problems += difference(f"{label} enabled", {r.unit, SSHD}, set(host.enabled))
    return holds_unless(problems, "28 stages succeed; 4 hosts run exactly their planned arm")


def _expected_effects(r: Rank, previous: bool) -> dict[str, list[tuple[str, ...]]]:
    """What each stage changes on a host, in order, when everything before it succeeded."""
    name, unit = r.name, r.unit
    effects: dict[str, list[tuple[str, ...]]] = {
        "preflight": [],
        "preserve": [
            ("systemctl", "stop", unit),
            ("docker", "stop", "--time", str(STOP_GRACE_SECONDS), name),
            ("docker", "rename", name, f"{name}-preserved"),
        ]
        if previous
        else [],
        "apply": [
            ("docker", *r.create_argv[1:]),
            ("systemctl", "daemon-reload"),
            ("systemctl", "start", unit),
        ],
        "readback": [],
        "front_door": [],
        "commit": [
            ("systemctl", "enable", unit),
            *([("docker", "rm", f"{name}-preserved")] if previous else []),
        ],
        "rollback": [
            ("systemctl", "stop", unit),
            ("docker", "rm", "-f", name),
            *([("docker", "rename", f"{name}-preserved", name)] if previous else []),
            ("systemctl", "daemon-reload"),
            *([("systemctl", "start", unit)] if previous else []),
        ],
        "cleanup": [],
    }
    return effects


@claim(ClaimKind.PLANNED_SHAPE)
def each_stage_changes_its_host_in_order() -> Verdict:
    """The changes each stage makes, in order: preserve stops the unit, stops the container
    with the planned grace and renames it aside; apply creates the container with the whole
    planned argv, lands the unit file, reloads systemd, then starts the unit; commit enables
    it and removes only the backup; rollback stops the unit and removes the new container
    before renaming the preserved one back, reloads, and restarts the unit only where it was
    active; preflight, readback, front door and cleanup change nothing through docker or
    systemd."""
    ex = _executed()
    problems = []
    for k, step in enumerate(_transaction(ex.ranks).steps):
        if not isinstance(step, Run):
            continue
        r = ex.ranks[step.host]
        want = _expected_effects(r, PREVIOUS[step.host])[step.stage]
        problems += difference(
            f"{step.stage}@{r.rank}", want, _effects(ex.transaction.after[step.host], k)
        )
    for label, scenario, outcome in (
        ("image vanishes", _image_vanishes(ex.ranks), ex.image_vanishes),
        ("readback differs", _readback_differs(ex.ranks), ex.readback_differs),
    ):
        for k, again, step in _rollbacks(scenario):
            r = ex.ranks[step.host]
            want = [] if again else _expected_effects(r, PREVIOUS[step.host])["rollback"]
            problems += difference(
                f"{label}: rollback@{r.rank}{' again' * again}",
                want,
                _effects(outcome.after[step.host], k),
            )
    return holds_unless(
        problems, "every stage's changes, in order, on 4 hosts and 2 rollbacks (one run again)"
    )


def _rollbacks(scenario: sandbox.Scenario) -> list[tuple[int, bool, Run]]:
    """Each rollback step of ``scenario``: its index, whether its host rolled back before
    (a rollback run again changes nothing), and the step."""
    seen: set[int] = set()
    found = []
    for k, step in enumerate(scenario.steps):
        if isinstance(step, Run) and step.stage == "rollback":
            found.append((k, step.host in seen, step))
            seen.add(step.host)
    return found


@claim(ClaimKind.PLANNED_SHAPE)
def rollback_restores_every_host_byte_for_byte() -> Verdict:
    """When apply fails on rank 2 (its image vanished) or readback fails on rank 1 (its
    command differs), rolling back every host in reverse order (each saying so, with its
    preserve dir; rank 1's run again restores nothing more and says an earlier one did)
    restores each byte for byte:
    unit files, systemd's loaded units, containers, images, active and enabled units; the
    preserve dirs keep the saved unit (and rollback's ``restored`` mark) until cleanup, which
    removes them and any half-landed unit file."""
    ex = _executed()
    problems = []
    cases = (
        ("image vanishes", ex.image_vanishes, 2, "apply", 125, None),
        (
            "readback differs",
            ex.readback_differs,
            1,
            "readback",
            1,
            ex.ranks[1].fail("readback", "running command differs from the plan"),
        ),
    )
    for label, out, _rank, stage, code, message in cases:
        scenario = (
            _image_vanishes(ex.ranks) if label == "image vanishes" else _readback_differs(ex.ranks)
        )
        for k, again, step in _rollbacks(scenario):
            r, res = ex.ranks[step.host], out.results[k]
            if res is None:
                continue
            said = (
                "rolled back: an earlier rollback restored it\n"
                if again
                else f"rolled back: restored what preserve saved in {r.preserve_dir}\n"
            )
            problems += difference(
                f"{label}: rollback@{r.rank}{' again' * again}",
                (0, said, ""),
                (res.returncode, res.stdout, res.stderr),
            )
        failed = [(k, res) for k, res in enumerate(out.results) if res and res.returncode != 0]
        got = [(k, res.returncode) for k, res in failed]
        if len(failed) != 1 or failed[0][1].returncode != code:
            problems.append(f"{label}: expected one failure ({code}), got {got}")
        elif message is not None and failed[0][1].stderr != message:
            problems += difference(f"{label}: {stage} refusal", message, failed[0][1].stderr)
        (marked,) = out.marks
        for r, before, mid, after in zip(ex.ranks, out.before, marked, out.after, strict=True):
            images = set(before.images) - (
                {r.image} if label == "image vanishes" and r.rank == 2 else set()
            )
            expected_mid = {**before.files, **_preserve_parents(r), **_saved(r, PREVIOUS[r.rank])}
            # rollback marks its preserve dir restored (a rollback run again restores nothing)
            expected_mid[f"{r.preserve_dir}/restored"] = b""
            if label == "image vanishes" and r.rank == 3:
                expected_mid[f"{r.unit_path}.landing"] = b"[Unit]\n"  # cleanup removes it
            problems += difference(
                f"{label}: rank {r.rank} files before cleanup",
                sorted(expected_mid.items()),
                sorted(mid.files.items()),
            )
            expected_end = {**before.files, **_preserve_parents(r)}
            problems += difference(
                f"{label}: rank {r.rank} files",
                sorted(expected_end.items()),
                sorted(after.files.items()),
            )
            restored = (
                dict(before.containers),
                dict(before.loaded),
                set(before.active),
                set(before.enabled),
                images,
            )
            problems += difference(
                f"{label}: rank {r.rank} state",
                restored,
                (
                    dict(after.containers),
                    dict(after.loaded),
                    set(after.active),
                    set(after.enabled),
                    set(after.images),
                ),
            )
    return holds_unless(
        problems,
        "2 failed transactions rolled back on 4 hosts (one rollback run again), byte for byte",
    )


def _cut_preserves(r: Rank) -> list[tuple[str, str]]:
    """Rank ``r``'s preserve script cut after each of its lines from ``mkdir -p`` on: a
    preserve stopped there (its session dropped, its host lost power, a docker call refused)."""
    lines = dict(r.scripts)["preserve"].splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith("mkdir -p"))
    return [(f"preserve_cut_{n}", "".join(lines[:n])) for n in range(start + 1, len(lines))]


def _cut_preserve_cases(ranks: tuple[Rank, ...]) -> list[tuple[str, sandbox.Scenario]]:
    """Rank 0 (the previous arm runs there) and rank 2 (a fresh host): preflight, preserve
    cut short, rollback, cleanup."""
    cases = []
    for r in (ranks[0], ranks[2]):
        cuts = _cut_preserves(r)
        host = Host(r.host, r.scripts + tuple(cuts), _seed(r, PREVIOUS[r.rank]))
        for stage, _ in cuts:
            steps = tuple(Run(0, s, (r.name,)) for s in ("preflight", stage, "rollback", "cleanup"))
            cases.append((f"rank {r.rank} {stage}", sandbox.Scenario((host,), steps, (r.rail,))))
    return cases


@claim(ClaimKind.PLANNED_SHAPE)
def rollback_after_a_preserve_cut_short_puts_back_what_was_there() -> Verdict:
    """Wherever preserve stopped (after any of its lines, on a host running the previous arm
    and on a fresh one), rollback then cleanup succeed and leave the host as it was:
    containers, unit files, systemd's loaded, active and enabled units, byte for byte.
    Rollback never removes a container or unit file that preserve had not yet set aside."""
    cases = _cut_preserve_cases(ranks_of(_plan()))
    problems = []
    for (label, _), out in zip(cases, sandbox.run([s for _, s in cases]), strict=True):
        codes = [res.returncode if res else None for res in out.results]
        problems += difference(f"{label}: rollback and cleanup exit", [0, 0], codes[2:])
        before, after = out.before[0], out.after[0]
        problems += difference(
            f"{label}: state",
            (
                dict(before.containers),
                before.unit_files(),
                dict(before.loaded),
                set(before.active),
                set(before.enabled),
            ),
            (
                dict(after.containers),
                after.unit_files(),
                dict(after.loaded),
                set(after.active),
                set(after.enabled),
            ),
        )
    return holds_unless(problems, f"{len(cases)} preserves cut short, each rolled back exactly")


@claim(ClaimKind.PLANNED_SHAPE)
def preflight_refuses_occupancy_and_missing_inputs() -> Verdict:
    """Preflight passes on a host that runs this arm's own previous container and unit,
    another arm's stopped container or an inactive unit; it refuses, with its exact message
    and without changing the host, another arm's running container, another active unit
    that attaches a container, a missing image, each missing mount source (also when the
    arm mounts one source or two), a mount source another local user owns or may write (also
    sticky), or below a directory another user owns or may write (a root-owned sticky one
    above it is taken), the name taken by an unlabelled or another arm's container, the
    unit file running another container, and an earlier preserve still pending (its
    preserve dir, or its container renamed aside)."""
    ex = _executed()
    r = ex.ranks[0]
    problems = []
    for what, refusal, out in ex.preflight:
        result = out.results[-1]
        assert result is not None
        want = (
            (0, PREFLIGHT_PASSED, "") if refusal is None else (1, "", r.fail("preflight", refusal))
        )
        problems += difference(what, want, (result.returncode, result.stdout, result.stderr))
        host = out.after[0]
        problems += difference(f"{what}: host changed", out.before[0], host.without_calls())
        problems += difference(f"{what}: changes", [], _effects(host, len(out.results) - 1))
    return holds_unless(problems, f"{len(ex.preflight)} hosts: passes and refusals exact")


@claim(ClaimKind.PLANNED_SHAPE)
def readback_compares_whole_values() -> Verdict:
    """Readback passes the planned container as it runs and refuses, with its exact message,
    a command with one argument more, changed or missing, an env value with a suffix (each
    variable by name), another image and a stopped container; where several differ it names
    the first in the order it checks: running, command, image, then each env variable in
    the plan's order."""
    ex = _executed()
    r = ex.ranks[0]
    problems = []
    for what, refusal, out in ex.readback:
        (result,) = out.results
        assert result is not None
        want = (
            (0, f"readback: rank {r.rank} runs what was planned\n", "")
            if refusal is None
            else (1, "", r.fail("readback", refusal))
        )
        problems += difference(what, want, (result.returncode, result.stdout, result.stderr))
    return holds_unless(problems, f"{len(ex.readback)} containers read back against the plan")


@claim(ClaimKind.PLANNED_SHAPE)
def preserve_refuses_a_pending_backup() -> Verdict:
    """A second preserve refuses to overwrite the pending backup (its preserve dir, or the
    container already renamed aside) with its exact message and leaves the backup and the
    host as they were — also on a host that had nothing to back up, where the preserve dir
    alone is pending."""
    ex = _executed()
    r = ex.ranks[0]
    problems = []
    twice = ex.other["preserve twice"]
    first, second = twice.results
    assert first is not None and second is not None
    pending = f"an earlier preserve is pending in {r.preserve_dir}: roll back or commit it first"
    problems += difference(
        "first preserve",
        (0, f"preserved into {r.preserve_dir}\n", ""),
        (first.returncode, first.stdout, first.stderr),
    )
    problems += difference(
        "second preserve",
        (1, "", r.fail("preserve", pending)),
        (second.returncode, second.stdout, second.stderr),
    )
    host = twice.after[0]
    aside = Container(
        f"{r.name}-preserved", PREVIOUS_IMAGE, ("serve", "/old"), ("OLD=1",), (("gunbc.arm", ARM),)
    )
    problems += difference("backup", {f"{r.name}-preserved": aside}, dict(host.containers))
    problems += difference(
        "saved",
        _saved(r, True),
        host.under(r.preserve_dir) | {f"{r.preserve_dir}/": host.files.get(f"{r.preserve_dir}/")},
    )
    problems += difference("second preserve changes", [], _effects(host, 1))
    aside_out = ex.other["preserved container pending"]
    (result,) = aside_out.results
    assert result is not None
    message = r.fail("preserve", f"{r.name}-preserved exists: an earlier preserve is pending")
    problems += difference(
        "renamed aside", (1, "", message), (result.returncode, result.stdout, result.stderr)
    )
    problems += difference(
        "renamed aside: host changed", aside_out.before[0], aside_out.after[0].without_calls()
    )
    empty = ex.other["preserve twice on an empty host"]
    first, second = empty.results
    assert first is not None and second is not None
    problems += difference(
        "empty host: first preserve",
        (0, f"preserved into {r.preserve_dir}\n", ""),
        (first.returncode, first.stdout, first.stderr),
    )
    problems += difference(
        "empty host: second preserve",
        (1, "", r.fail("preserve", pending)),
        (second.returncode, second.stdout, second.stderr),
    )
    problems += difference("empty host: changes", [], _effects(empty.after[0], 1))
    return holds_unless(problems, "a pending backup is never overwritten")


@claim(ClaimKind.PLANNED_SHAPE)
def preserve_saves_the_unit_file_even_when_it_is_not_running() -> Verdict:
    """On a host whose unit file exists but is not active (and no container runs), preserve
    saves that unit file byte for byte into the preserve dir, records no ``unit-was-active``
    and that there was no container, stops and renames nothing, and says where it
    preserved."""
    ex = _executed()
    r = ex.ranks[0]
    out = ex.other["inactive unit file"]
    (result,) = out.results
    assert result is not None
    problems = difference(
        "preserve",
        (0, f"preserved into {r.preserve_dir}\n", ""),
        (result.returncode, result.stdout, result.stderr),
    )
    host = out.after[0]
    saved = {
        f"{r.preserve_dir}/unit": previous_unit(r.name).encode(),
        f"{r.preserve_dir}/no-container": b"",
    }
    problems += difference("saved", saved, host.under(r.preserve_dir))
    problems += difference("changes", [], _effects(host, 0))
    return holds_unless(problems, "an inactive unit file is preserved, nothing stopped")


@claim(ClaimKind.PLANNED_SHAPE)
def rollback_where_nothing_was_preserved_changes_nothing() -> Verdict:
    """Rollback on a host with no preserve dir (its preserve refused or never ran) says
    `rolled back: nothing was preserved here, so nothing changed`, exits 0 and leaves the
    host exactly as it was: the previous arm's container and unit stay, nothing is called
    that changes them."""
    ex = _executed()
    out = ex.other["rollback with nothing preserved"]
    (result,) = out.results
    assert result is not None
    said = "rolled back: nothing was preserved here, so nothing changed\n"
    problems = difference(
        "rollback", (0, said, ""), (result.returncode, result.stdout, result.stderr)
    )
    problems += difference("host", out.before[0], out.after[0].without_calls())
    problems += difference("changes", [], _effects(out.after[0], 0))
    return holds_unless(problems, "nothing preserved: rollback says so and changes nothing")


@claim(ClaimKind.PLANNED_SHAPE)
def scripts_refuse_a_container_they_were_not_planned_for() -> Verdict:
    """Every stage script run with another container name refuses with its exact message
    before touching docker or systemd; run with no name it stops with its usage."""
    ex = _executed()
    r = ex.ranks[0]
    problems = []
    other = f"{r.name}-other"
    named = ex.other["another name"]
    unnamed = ex.other["no name"]
    for k, stage in enumerate(ALL_STAGES):
        result = named.results[k]
        assert result is not None
        message = r.fail(stage, f"this script was planned for container {r.name}", other)
        problems += difference(
            f"{stage} {other}", (1, "", message), (result.returncode, result.stdout, result.stderr)
        )
        result = unnamed.results[k]
        assert result is not None
        usage = f"1: usage: {stage}.sh CONTAINER_NAME\n"
        if (result.returncode, result.stdout) != (1, "") or not result.stderr.endswith(usage):
            problems.append(f"{stage} with no name: {result}")
    for label, out in (("named", named), ("unnamed", unnamed)):
        problems += difference(f"{label}: calls", (), out.after[0].calls)
        problems += difference(f"{label}: host changed", out.before[0], out.after[0])
    return holds_unless(problems, "8 scripts refuse another container name and no name")


@claim(ClaimKind.PLANNED_SHAPE)
def followers_start_only_after_the_head_listens() -> Verdict:
    """A follower's apply waits for the head's rendezvous port at the head's rail address:
    in the full transaction each follower creates its container only after the head's
    started, and a follower applied before the head retries every 2 s within its deadline
    and creates nothing."""
    ex = _executed()
    problems = []
    early = ex.other["follower before the head"]
    (result,) = early.results
    assert result is not None
    # it checks its deadline and sleeps 2 s between tries; the sandbox stops it at the sleep
    problems += difference(
        "follower before the head",
        (124, "", _waited(2)),
        (result.returncode, result.stdout, result.stderr),
    )
    problems += difference("follower before the head: changes", [], _effects(early.after[1], 0))
    problems += difference(
        "follower before the head: host", early.before[1], early.after[1].without_calls()
    )
    return holds_unless(problems, "followers wait for the head's rendezvous")


@claim(ClaimKind.PLANNED_SHAPE)
def front_doors_open_only_when_the_rank_serves() -> Verdict:
    """The head's front door GETs /health on its rail address and serve port, a follower's
    asks systemd whether its unit is active; each passes once its rank serves and, while it
    does not, retries every 5 s within its deadline."""
    ex = _executed()
    problems = []
    for i, r in enumerate(ex.ranks):
        k = STAGES.index("front_door") * 4 + i
        calls = ex.transaction.after[i].calls_of(k)
        want = (
            [("curl", "-fsS", "--max-time", "5", f"http://{r.rail}:8000/health")]
            if r.rank == 0
            else [("systemctl", "is-active", "--quiet", r.unit)]
        )
        problems += difference(f"front door calls of rank {r.rank}", want, calls)
    for label in ("head not serving", "follower unit inactive"):
        out = ex.other[label]
        (result,) = out.results
        assert result is not None
        # it checks its deadline and retries every 5 s; the sandbox stops it at the sleep
        problems += difference(
            label, (124, "", _waited(5)), (result.returncode, result.stdout, result.stderr)
        )
    return holds_unless(problems, "front doors: 4 pass when serving, 2 fail when not")


RECIPE_NAMES = ("模型", "café", "<b>&</b>")
"""Served model names docker prints raw (non-ASCII, ``<>&``). A recipe arg holding a
character Go escapes beyond these (U+2028, a control) is refused when the recipe is read;
``apply_check`` holds ``go_json`` to Go's encoder over every string."""


def _recipe_head(names: tuple[str, ...]) -> RenderedHost:
    """Node rank 0 of the tiny recipe serving under ``names``."""
    run = tiny_recipe_plan(("--served-model-name", *names))
    if not run.hosts:
        raise AssertionError(f"the tiny recipe planned no host: {run.refusals}")
    return run.hosts[0]


@claim(ClaimKind.PLANNED_SHAPE)
def readback_takes_the_command_as_docker_prints_it() -> Verdict:
    """A recipe whose served model names are ``模型``, ``café`` and ``<b>&</b>`` is created,
    and then read back as docker 28 prints ``{{json .Config.Cmd}}`` (Go's encoder without
    HTML escaping: non-ASCII and ``<>&`` as they are): readback passes the container apply
    created, on its own and with all three names at once."""
    problems = []
    cases = [(name,) for name in RECIPE_NAMES] + [RECIPE_NAMES]
    scenarios = []
    for names in cases:
        head = _recipe_head(names)
        scripts = tuple((s.stage.value, s.script) for s in head.steps)
        steps = tuple(Run(0, s, ("tiny",)) for s in STAGES[:4])
        scenarios.append(
            sandbox.Scenario((Host("srv5", scripts, HostSeed(images=("tiny:local",))),), steps)
        )
    for names, out in zip(cases, sandbox.run(scenarios), strict=True):
        result = out.results[-1]
        assert result is not None
        want = (0, "readback: rank 0 runs what was planned\n", "")
        problems += difference(repr(names), want, (result.returncode, result.stdout, result.stderr))
    return holds_unless(problems, f"{len(cases)} recipe commands read back as docker prints them")


def _bare_probe(unit_file: Literal["absent", "other"]) -> HostProbe:
    """What the probe reads on a host with no unit file (or something else in its place),
    no container and nothing left over."""
    return HostProbe(
        unit_file=unit_file, unit=None, enabled=False, active=False, container=None,
        preserved_container=False, landing=False, backups=(),
    )  # fmt: skip


def _probe_cases(head: PlannedHost, r: Rank) -> dict[str, tuple[HostSeed, HostProbe]]:
    """Hosts seeded here, and what the check's probe must read on each: the head as planned,
    a bare host, one an earlier apply left things on (the preserved container, a landing
    unit file, backups; a directory where the unit file goes), and one whose unit file is
    larger than the probe reads."""
    unit = r.unit_text.encode()
    big = "".join(f"Line{n}={'x' * 90}\n" for n in range(200))
    stem = r.unit.removesuffix(".service")
    as_planned = HostSeed(
        images=(r.image,),
        containers=(Container(head.container_name, r.image, r.serve_argv, running=True),),
        units=((r.unit, r.unit_text),),
        active=(r.unit,),
        enabled=(r.unit,),
    )
    left_over = HostSeed(
        images=(PREVIOUS_IMAGE,),
        containers=(Container(f"{head.container_name}-preserved", PREVIOUS_IMAGE, ()),),
        dirs=(r.unit_path, *(f"{PRESERVE_ROOT}/{ARM}/{stem}/{n}" for n in (1, 2))),
        files=((f"{r.unit_path}.landing", "[Unit]\n"),),
    )
    bare = _bare_probe("absent")
    found = ProbedContainer(image=r.image, cmd_json=go_json(r.serve_argv), running="true")
    return {
        "as planned": (
            as_planned,
            bare.model_copy(
                update={
                    "unit_file": "present",
                    "unit": ProbedUnit(size=len(unit), head=unit),
                    "enabled": True,
                    "active": True,
                    "container": found,
                }
            ),
        ),
        "bare": (HostSeed(), bare),
        "left over": (
            left_over,
            bare.model_copy(
                update={
                    "unit_file": "other",
                    "preserved_container": True,
                    "landing": True,
                    "backups": (stem, f"{stem}/1", f"{stem}/2"),
                }
            ),
        ),
        "a unit file larger than is read": (
            HostSeed(units=((r.unit, big),), enabled=(r.unit,)),
            bare.model_copy(
                update={
                    "unit_file": "present",
                    "unit": ProbedUnit(size=len(big), head=big.encode()[:UNIT_READ_LIMIT]),
                    "enabled": True,
                }
            ),
        ),
    }


@claim(ClaimKind.PLANNED_SHAPE)
def the_check_probe_reads_each_host_as_it_holds_it() -> Verdict:
    """``planner apply --check``'s probe, run by bash on a host as its readback would be,
    changes nothing and prints what :func:`planner.check.parse_probe` reads as exactly what
    the host holds: the unit file (present and its bytes up to the read limit with its whole
    size, absent, or something else in its place: a directory, a link to nowhere), whether
    systemd has the unit enabled and active, the planned container (its image id, its
    command as docker prints it, running), and what an earlier apply left: the preserved
    container, a landing unit file, every entry under the arm's preserve root. Given another
    container's name, it exits 1 saying which it was planned for, and prints nothing."""
    run = _plan()
    head, r = planned_hosts(run)[0], ranks_of(run)[0]
    probe = Run(0, "check", (head.container_name,))
    # each case: the host's seed, the steps run on it, which of them is the probe, what it reads
    cases: dict[str, tuple[HostSeed, tuple[sandbox.Step, ...], int, HostProbe]] = {
        case: (seed, (probe,), 0, want) for case, (seed, want) in _probe_cases(head, r).items()
    }
    # the link goes again before the host is read back (the sandbox reads files, not links)
    link = (Change(0, f"ln -s /nowhere .{r.unit_path}"), probe, Change(0, f"rm .{r.unit_path}"))
    cases["a link to nowhere where the unit file goes"] = (
        HostSeed(),
        link,
        1,
        _bare_probe("other"),
    )
    host = Host(r.host, (("check", probe_script(head)),))
    scenarios = [
        *(
            sandbox.Scenario((replace(host, seed=seed),), steps)
            for seed, steps, *_ in cases.values()
        ),
        sandbox.Scenario((host,), (Run(0, "check", ("gunbc-other",)),)),
    ]
    *read, other = sandbox.run(scenarios)
    problems = []
    for (case, (_, _, step, want)), out in zip(cases.items(), read, strict=True):
        result = out.results[step]
        assert result is not None
        try:
            got: object = parse_probe(result.stdout)
        except ProbeUnreadable as exc:
            got = f"unreadable ({exc}); exit {result.returncode}: {result.stderr.strip()}"
        problems += difference(case, want, got)
        problems += difference(f"{case}: changing calls", [], _effects(out.after[0], step))
        before, after = out.before[0].without_calls(), out.after[0].without_calls()
        problems += difference(f"{case}: the host left as it was", True, before == after)
    refused = other.results[0]
    assert refused is not None
    said = f"check: this script was planned for container {head.container_name}\n"
    got_refused = (refused.returncode, refused.stdout, refused.stderr)
    problems += difference("another container's name", (1, "", said), got_refused)
    return holds_unless(problems, f"{len(cases)} hosts read as they are; another name refused")
