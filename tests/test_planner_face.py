"""The planner's public face (``planner/__init__.py``): the face imports nothing until a name
is asked for, and the three lists it keeps (``__all__``, the type checker's imports, the lazy
homes) agree. That each name resolves to its module's object, and an unknown one is an
AttributeError, is a claim of witness ``planner_process``."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import planner

INIT = Path(planner.__file__)
ARM_OWNED = re.compile(r"V41|GLM|glm|deepseek|DEEPSEEK|v41")
"""Names an arm owns (``planner/arms/<arm>.py``): never the planner's face."""


def _homes() -> dict[str, str]:
    return {name: f"planner.{module}" for name, module in planner._HOME.items()}


def test_the_lists_agree() -> None:
    """``__all__``, the lazy homes and the imports the type checker reads name the same
    names from the same modules."""
    tree = ast.parse(INIT.read_text(encoding="utf-8"))
    guarded = next(n for n in tree.body if isinstance(n, ast.If))
    typed = {
        alias.name: node.module
        for node in guarded.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert sorted(planner.__all__) == sorted(_homes()) == sorted(typed)
    assert typed == _homes()


def test_no_arm_owned_name_is_public() -> None:
    assert [n for n in planner.__all__ if ARM_OWNED.search(n)] == []


def test_importing_the_face_imports_no_planner_module() -> None:
    """``import planner`` costs nothing: a name's module is imported when it is asked for."""
    probe = (
        "import sys, planner\n"
        "before = sorted(m for m in sys.modules if m.startswith('planner.'))\n"
        "planner.DryRun\n"
        "print(before, 'planner.arm_launch' in sys.modules)"
    )
    root = INIT.parent.parent
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=root, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[] True", done.stdout + done.stderr
