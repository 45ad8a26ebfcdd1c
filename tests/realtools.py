"""Validators that run the real tools on what the planner renders. Nothing is mocked.

- `docker_create_accepts`: the real docker client's flag parser, with no daemon.
- `systemd_unit_verifies`: `systemd-analyze verify` inside a throwaway `--root`.
- `bash_parses`, `shellcheck_clean`: `bash -n` and `shellcheck -s bash` (severity
  warning and up, plus the unquoted-expansion notes SC2086/SC2046).
- `vllm_serve_parses`: vLLM 0.33.0's own `vllm serve` parser, run by
  `tools/vllm_parse.py` in the separate venv that `tools/make-vllm-venv` builds.

The tools come from `tools/install-ci-deps` (Debian packages) and
`tools/make-vllm-venv`. A missing tool raises `ToolMissing`, never a pass.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

REPO_ROOT = Path(__file__).resolve().parent.parent
VLLM_PARSE_SCRIPT = REPO_ROOT / "tools" / "vllm_parse.py"
TOOL_TIMEOUT_S = 120.0
VLLM_TIMEOUT_S = 600.0

# A socket path that cannot exist: the docker client parses its flags, then fails
# to reach this "daemon". Nothing is ever contacted.
NO_DAEMON_HOST = "unix:///nonexistent/realtools-no-daemon/docker.sock"
# What the client says once it has parsed every flag and goes for the daemon
# (docker 20.10-28.x; later clients word it as the second).
DOCKER_NO_DAEMON = ("Cannot connect to the Docker daemon", "failed to connect to the docker API")


class ToolMissing(RuntimeError):
    """A real tool is not installed; run tools/install-ci-deps or tools/make-vllm-venv."""


class VllmHarnessError(RuntimeError):
    """tools/vllm_parse.py failed for reasons that say nothing about the argv."""


@dataclass(frozen=True)
class ToolResult:
    """What one run of a real tool said about one artifact."""

    tool: str
    command: tuple[str, ...]
    ok: bool
    returncode: int
    stdout: str
    stderr: str
    reason: str

    @property
    def output(self) -> str:
        """The tool's stdout and stderr, in that order."""
        return "\n".join(part for part in (self.stdout.rstrip(), self.stderr.rstrip()) if part)

    def __str__(self) -> str:
        verdict = "accepted" if self.ok else "rejected"
        text = f"{self.tool} {verdict}: {self.reason}"
        return f"{text}\n{self.output}" if self.output else text


@dataclass(frozen=True)
class VllmParse:
    """What vLLM's serve parser made of one argv (see tools/vllm_parse.py)."""

    argv: tuple[str, ...]
    ok: bool
    stage: str | None
    error: str | None
    warnings: tuple[str, ...]
    abbreviated: tuple[str, ...]
    explicit: Mapping[str, object]
    values: Mapping[str, object]

    def __str__(self) -> str:
        if self.ok:
            return f"vllm serve accepted {list(self.argv)}"
        return f"vllm serve rejected {list(self.argv)} at {self.stage}: {self.error}"


@dataclass(frozen=True)
class VllmFacts:
    """What this vLLM accepts, read from its own registries and parser."""

    vllm_version: str
    tokenizer_modes: tuple[str, ...]
    tool_call_parsers: tuple[str, ...]
    reasoning_parsers: tuple[str, ...]
    kv_cache_dtypes: tuple[str, ...]
    options: tuple[str, ...]
    actions: tuple[tuple[str, tuple[str, ...]], ...]
    append_dests: tuple[str, ...]
    config_fields: tuple[tuple[str, str, tuple[str, ...]], ...]


def _which(tool: str, *candidates: str) -> str:
    for candidate in candidates:
        if os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which(tool)
    if found is None:
        raise ToolMissing(f"{tool} is not installed; run tools/install-ci-deps")
    return found


def _run(
    command: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | Path | None = None,
    stdin: str | None = None,
    timeout: float = TOOL_TIMEOUT_S,
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(command),
        input=stdin,
        capture_output=True,
        text=True,
        env=dict(env) if env is not None else None,
        cwd=cwd,
        timeout=timeout,
        check=False,
    )


def _base_env(**extra: str) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/root"),
        "LC_ALL": "C.UTF-8",
        "LANG": "C.UTF-8",
    }
    env.update(extra)
    return env


# --- docker ---------------------------------------------------------------------


def docker_create_accepts(argv: Sequence[str]) -> ToolResult:
    """Whether the real docker client's parser accepts this `docker create` argv.

    Exit 125 is a flag error (rejected). Exit 1 with "Cannot connect to the
    Docker daemon" means every flag parsed and the client went for the daemon
    (accepted). Anything else is rejected with the client's output. Values only
    a daemon checks (`--restart sometimes`) pass here.
    """
    argv = tuple(argv)
    tool = "docker create"
    if len(argv) < 2 or Path(argv[0]).name != "docker" or argv[1] != "create":
        return ToolResult(
            tool, argv, False, -1, "", "", f"argv must start with 'docker', 'create': {argv[:2]}"
        )
    docker = _which("docker", "/usr/local/bin/docker")
    command = (docker, *argv[1:])
    with tempfile.TemporaryDirectory(prefix="realtools-docker-") as config:
        env = _base_env(DOCKER_HOST=NO_DAEMON_HOST, DOCKER_CONFIG=config)
        proc = _run(command, env=env, cwd=config)
    if proc.returncode == 1 and any(text in proc.stderr for text in DOCKER_NO_DAEMON):
        ok, reason = True, "flags parsed; the client then looked for the (absent) daemon"
    elif proc.returncode == 125:
        ok, reason = False, "flag parse error (exit 125)"
    else:
        ok, reason = False, f"unexpected exit {proc.returncode} without reaching for the daemon"
    return ToolResult(tool, command, ok, proc.returncode, proc.stdout, proc.stderr, reason)


# --- systemd-analyze verify -----------------------------------------------------

_UNIT_NAME = re.compile(r"^[A-Za-z0-9:_.\\@-]+\.(service|socket|target|timer|mount|path)$")
_STUB_DOCKER_SERVICE = """\
[Unit]
Description=Stub docker.service for systemd-analyze verify

[Service]
Type=notify
ExecStart=/usr/bin/dockerd

[Install]
WantedBy=multi-user.target
"""
_STUB_EXECUTABLE = "#!/bin/sh\nexit 0\n"
# Targets that units pull in through DefaultDependencies=yes and common
# After=/Wants= lines; written as empty units when the host has no copy.
_FALLBACK_TARGETS = (
    "basic.target",
    "default.target",
    "multi-user.target",
    "network-online.target",
    "network.target",
    "paths.target",
    "shutdown.target",
    "slices.target",
    "sockets.target",
    "sysinit.target",
    "timers.target",
)
_HOST_UNIT_DIRS = (Path("/usr/lib/systemd/system"), Path("/lib/systemd/system"))


@functools.cache
def _systemd_analyze_flags() -> tuple[str, ...]:
    """The verify flags this machine's systemd-analyze supports, from its --help."""
    analyze = _which("systemd-analyze")
    text = _run([analyze, "--help"], env=_base_env()).stdout
    if "--root" not in text:
        raise ToolMissing(f"{analyze} has no --root option; install a newer systemd")
    flags = ["--no-pager"] if "--no-pager" in text else []
    if "--man" in text:
        flags.append("--man=no")  # do not look for man pages named in Documentation=
    if "--generators" in text:
        flags.append("--generators=no")  # generators need privileges and a real /
    if "--recursive-errors" in text:
        # Errors in the unit and in all it pulls in: a Requires= on a missing unit fails.
        flags.append("--recursive-errors=yes")
    return tuple(flags)


def _populate_root(root: Path, stub_binaries: Sequence[str]) -> None:
    unit_dir = root / "etc" / "systemd" / "system"
    unit_dir.mkdir(parents=True)
    vendor_dir = root / "usr" / "lib" / "systemd" / "system"
    vendor_dir.mkdir(parents=True)
    # The host's own target units, so default dependencies resolve as on a real host.
    for host_dir in _HOST_UNIT_DIRS:
        if host_dir.is_dir():
            for target in sorted(host_dir.glob("*.target")):
                dest = vendor_dir / target.name
                if not dest.exists() and target.is_file():
                    shutil.copyfile(target, dest)
    for name in _FALLBACK_TARGETS:
        dest = vendor_dir / name
        if not dest.exists():
            dest.write_text(f"[Unit]\nDescription=Stub {name}\n")
    (unit_dir / "docker.service").write_text(_STUB_DOCKER_SERVICE)
    for binary in ("/usr/bin/dockerd", *stub_binaries):
        path = root / binary.lstrip("/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_STUB_EXECUTABLE)
        path.chmod(0o755)


def systemd_unit_verifies(
    unit_name: str,
    unit_text: str,
    stub_binaries: Sequence[str] = ("/usr/bin/docker",),
) -> ToolResult:
    """Whether `systemd-analyze verify` accepts this unit, with no stderr at all.

    The unit is verified inside a fresh `--root` directory that holds it under
    etc/systemd/system/, a stub docker.service, the host's target units, and a
    stub executable at each path in `stub_binaries` (the binaries the target
    host is known to have). systemd-analyze exits 0 on unknown keys and
    unparsable values, printing only "...ignoring" lines, so any stderr line
    fails the unit, as does a non-zero exit (missing ExecStart binary, missing
    required unit, no ExecStart=).
    """
    tool = "systemd-analyze verify"
    if not _UNIT_NAME.match(unit_name) or unit_name == "docker.service":
        return ToolResult(tool, (), False, -1, "", "", f"bad unit name {unit_name!r}")
    for binary in stub_binaries:
        if not binary.startswith("/") or ".." in Path(binary).parts:
            raise ValueError(f"stub binary must be an absolute path: {binary!r}")
    analyze = _which("systemd-analyze")
    flags = _systemd_analyze_flags()
    with tempfile.TemporaryDirectory(prefix="realtools-systemd-") as tmp:
        root = Path(tmp)
        _populate_root(root, stub_binaries)
        (root / "etc" / "systemd" / "system" / unit_name).write_text(unit_text)
        command = (analyze, "verify", f"--root={root}", *flags, unit_name)
        proc = _run(command, env=_base_env(SYSTEMD_LOG_COLOR="0", SYSTEMD_PAGER="cat"), cwd=root)
    stderr = proc.stderr.replace(str(root), "<root>")
    stdout = proc.stdout.replace(str(root), "<root>")
    if proc.returncode != 0:
        ok, reason = False, f"exit {proc.returncode}"
    elif stderr.strip():
        ok, reason = False, "exit 0 but stderr is not empty (systemd ignores bad lines)"
    else:
        ok, reason = True, "verified with no diagnostics"
    return ToolResult(tool, command, ok, proc.returncode, stdout, stderr, reason)


# --- bash -n and shellcheck -----------------------------------------------------


def _script_file(directory: str, name: str, script: str) -> Path:
    if "/" in name or name in ("", ".", ".."):
        raise ValueError(f"script name must be a plain file name: {name!r}")
    path = Path(directory) / name
    path.write_text(script)
    return path


def bash_parses(script: str, name: str = "script.sh") -> ToolResult:
    """Whether `bash -n` parses the script with no diagnostics.

    `bash -n` exits 0 on some defects (a here-document cut off by end of file)
    and only warns; any stderr fails the script. Messages name `name`.
    """
    bash = _which("bash", "/bin/bash", "/usr/bin/bash")
    with tempfile.TemporaryDirectory(prefix="realtools-bash-") as tmp:
        _script_file(tmp, name, script)
        command = (bash, "-n", name)
        proc = _run(command, env=_base_env(), cwd=tmp)
    if proc.returncode != 0:
        ok, reason = False, f"syntax error (exit {proc.returncode})"
    elif proc.stderr.strip():
        ok, reason = False, "exit 0 with warnings"
    else:
        ok, reason = True, "parses"
    return ToolResult("bash -n", command, ok, proc.returncode, proc.stdout, proc.stderr, reason)


# shellcheck files unquoted expansions (SC2086 `rm $x`, SC2046 `rm $(ls)`) at
# severity "info", below "warning"; in generated scripts they are real defects.
QUOTING_CODES: frozenset[int] = frozenset({2046, 2086})
_FAILING_LEVELS = frozenset({"error", "warning"})


def shellcheck_clean(
    script: str, name: str = "script.sh", also_fail: frozenset[int] = QUOTING_CODES
) -> ToolResult:
    """Whether shellcheck (as bash) finds nothing at severity warning or above.

    Findings at level error or warning fail the script, and so do the info-level
    codes in `also_fail` (by default the unquoted-expansion codes SC2086 and
    SC2046, which shellcheck ranks as info). Other info and style notes are
    listed in the output but do not fail. Output lines read
    `name:line:column: level: message [SCnnnn]`.
    """
    shellcheck = _which("shellcheck")
    with tempfile.TemporaryDirectory(prefix="realtools-shellcheck-") as tmp:
        _script_file(tmp, name, script)
        command = (shellcheck, "--norc", "-s", "bash", "-S", "info", "-f", "json1", name)
        proc = _run(command, env=_base_env(), cwd=tmp)
    if proc.returncode not in (0, 1):
        reason = f"shellcheck failed to run (exit {proc.returncode})"
        return ToolResult("shellcheck", command, False, proc.returncode, "", proc.stderr, reason)
    comments = json.loads(proc.stdout)["comments"]
    lines: list[str] = []
    failing: list[str] = []
    for c in comments:
        where = f"{c['file']}:{c['line']}:{c['column']}"
        lines.append(f"{where}: {c['level']}: {c['message']} [SC{c['code']}]")
        if c["level"] in _FAILING_LEVELS or c["code"] in also_fail:
            failing.append(f"SC{c['code']}")
    if failing:
        ok, reason = False, f"findings that fail: {', '.join(sorted(set(failing)))}"
    else:
        ok, reason = True, "no findings at severity warning or above, no unquoted expansions"
    stdout = "\n".join(lines)
    return ToolResult("shellcheck", command, ok, proc.returncode, stdout, proc.stderr, reason)


# --- vLLM's serve parser ----------------------------------------------------------


def vllm_venv_python() -> Path | None:
    """The interpreter of the vLLM venv (VLLM_VENV or .venv-vllm), if it is built."""
    venv = Path(os.environ.get("VLLM_VENV", REPO_ROOT / ".venv-vllm"))
    if not venv.is_absolute():
        venv = REPO_ROOT / venv
    python = venv / "bin" / "python"
    if python.exists() and (venv / ".vllm-parser-stamp").exists():
        return python
    return None


def _vllm_env() -> dict[str, str]:
    # No hub, no telemetry: the parser never needs the network.
    return _base_env(
        VLLM_TARGET_DEVICE="cpu",
        HF_HUB_DISABLE_TELEMETRY="1",
        DO_NOT_TRACK="1",
        VLLM_NO_USAGE_STATS="1",
        TOKENIZERS_PARALLELISM="false",
    )


def _run_vllm_parse(args: Sequence[str], stdin: str | None) -> str:
    python = vllm_venv_python()
    if python is None:
        raise ToolMissing("the vLLM venv is not built; run tools/make-vllm-venv")
    proc = _run(
        [str(python), str(VLLM_PARSE_SCRIPT), *args],
        env=_vllm_env(),
        cwd=REPO_ROOT,
        stdin=stdin,
        timeout=VLLM_TIMEOUT_S,
    )
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.splitlines()[-20:])
        raise VllmHarnessError(f"tools/vllm_parse.py exited {proc.returncode}:\n{tail}")
    return proc.stdout


def _str_tuple(value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise VllmHarnessError(f"expected a list of strings, got {value!r}")
    return tuple(value)


def _str_or_none(value: object) -> str | None:
    if value is not None and not isinstance(value, str):
        raise VllmHarnessError(f"expected a string or null, got {value!r}")
    return value


def _mapping(value: object) -> Mapping[str, object]:
    if not isinstance(value, dict):
        raise VllmHarnessError(f"expected an object, got {value!r}")
    return MappingProxyType({str(k): v for k, v in value.items()})


def vllm_serve_parses(argvs: Sequence[Sequence[str]]) -> list[VllmParse]:
    """Parse each argv (what follows `vllm serve`, model first) with vLLM's own parser.

    One subprocess for all argvs (importing vLLM takes ~7 s). A result whose
    stage is "harness" (a package missing from the venv, a gap in the stub
    model config) raises `VllmHarnessError`: it says nothing about the argv.
    """
    wanted = [list(argv) for argv in argvs]
    if not wanted:
        return []
    stdout = _run_vllm_parse([], json.dumps(wanted))
    lines = [line for line in stdout.splitlines() if line.strip()]
    if len(lines) != len(wanted):
        raise VllmHarnessError(f"expected {len(wanted)} results, got {len(lines)}:\n{stdout}")
    results = []
    for argv, line in zip(wanted, lines, strict=True):
        raw = json.loads(line)
        if not isinstance(raw, dict):
            raise VllmHarnessError(f"not a JSON object: {line}")
        if raw.get("argv") != argv:
            raise VllmHarnessError(f"result out of order: {raw.get('argv')} != {argv}")
        parsed = VllmParse(
            argv=tuple(argv),
            ok=raw.get("ok") is True,
            stage=_str_or_none(raw.get("stage")),
            error=_str_or_none(raw.get("error")),
            warnings=_str_tuple(raw.get("warnings")),
            abbreviated=_str_tuple(raw.get("abbreviated")),
            explicit=_mapping(raw.get("explicit")),
            values=_mapping(raw.get("values")),
        )
        if parsed.stage == "harness":
            raise VllmHarnessError(str(parsed))
        results.append(parsed)
    return results


def vllm_serve_parser_facts() -> VllmFacts:
    """Tokenizer modes, parser names, kv-cache dtypes and options of this vLLM."""
    raw = json.loads(_run_vllm_parse(["--facts"], None))
    if not isinstance(raw, dict):
        raise VllmHarnessError(f"--facts printed {raw!r}")
    version = raw.get("vllm_version")
    if not isinstance(version, str):
        raise VllmHarnessError(f"--facts printed no version: {raw!r}")
    return VllmFacts(
        vllm_version=version,
        tokenizer_modes=_str_tuple(raw.get("tokenizer_modes")),
        tool_call_parsers=_str_tuple(raw.get("tool_call_parsers")),
        reasoning_parsers=_str_tuple(raw.get("reasoning_parsers")),
        kv_cache_dtypes=_str_tuple(raw.get("kv_cache_dtypes")),
        options=_str_tuple(raw.get("options")),
        actions=_actions(raw.get("actions")),
        append_dests=_str_tuple(raw.get("append_dests")),
        config_fields=_config_fields(raw.get("config_fields")),
    )


def _config_fields(value: object) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    if not isinstance(value, list):
        raise VllmHarnessError(f"expected a list of config flags, got {value!r}")
    found = []
    for item in value:
        if (
            not isinstance(item, list)
            or len(item) != 3
            or not all(isinstance(i, str) for i in item[:2])
        ):
            raise VllmHarnessError(f"expected [dest, class, [fields]], got {item!r}")
        found.append((item[0], item[1], _str_tuple(item[2])))
    return tuple(found)


def _actions(value: object) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not isinstance(value, list):
        raise VllmHarnessError(f"expected a list of actions, got {value!r}")
    found = []
    for item in value:
        if not isinstance(item, list) or len(item) != 2 or not isinstance(item[0], str):
            raise VllmHarnessError(f"expected [dest, [option strings]], got {item!r}")
        found.append((item[0], _str_tuple(item[1])))
    return tuple(found)
