"""The statement-deletion operator's decisions, statement by statement, and its mutants as
mutmut's trampoline writer compiles them (the survey of them runs in
``test_mutation_generated``)."""

from __future__ import annotations

import ast
import textwrap

import libcst as cst
import pytest

from plugins.mutate.generated.deletion import add_deletions, function_sites


def _deleted(source: str) -> list[str]:
    """The statements deleted in the first function of ``source``, as written."""
    module = cst.parse_module(textwrap.dedent(source))
    function = next(s for s in module.body if isinstance(s, cst.FunctionDef))
    return [module.code_for_node(site.statement).strip() for site in function_sites(function)]


def test_docstrings_strings_pass_and_ellipsis_are_never_deleted() -> None:
    assert _deleted(
        '''
        def f(x: int) -> None:
            """Doc."""
            "a note"
            ...
            pass
            x += 1
        '''
    ) == ["x += 1"]


def test_the_return_that_ends_a_function_that_must_return_stays() -> None:
    assert _deleted(
        """
        def f(x: int) -> int:
            if x:
                return 1
            elif x > 2:
                raise ValueError(x)
            else:
                y = 2
                return y
        """
    ) == ["y = 2"]


def test_an_early_return_and_a_raise_in_a_loop_are_deleted() -> None:
    assert _deleted(
        """
        def f(xs: list[int]) -> int:
            for x in xs:
                if x:
                    return x
                raise ValueError(x)
            return 0
        """
    ) == ["return x", "raise ValueError(x)"]


def test_a_function_that_may_return_none_loses_its_returns_but_not_a_bare_last_one() -> None:
    assert _deleted(
        """
        def f(x):
            if x:
                return
            g(x)
            return x
        """
    ) == ["return", "g(x)", "return x"]
    assert _deleted(
        """
        def f(x: int) -> None:
            g(x)
            return
        """
    ) == ["g(x)"]


def test_declarations_imports_and_nested_definitions_stay_their_bodies_do_not() -> None:
    assert _deleted(
        """
        def f() -> int:
            global A
            import os
            from os import path
            y: int
            def inner() -> int:
                print(1)
                return 2
            class K:
                z = 1
            return inner()
        """
    ) == ["print(1)"]


def test_a_continue_that_ends_its_loop_is_a_no_op_but_one_before_a_statement_is_not() -> None:
    assert _deleted(
        """
        def f(xs: list[int]) -> None:
            for x in xs:
                if x:
                    continue
                g(x)
                continue
        """
    ) == ["continue", "g(x)"]


def _compiled(source: str) -> list[str]:
    """Every mutant function mutmut's writer makes of ``source``, with our deletions added."""
    from mutmut.mutation.file_mutation import combine_mutations_to_source, create_mutations

    module, mutations, classes, functions = create_mutations("m.py", textwrap.dedent(source))
    found = add_deletions("m.py", module, mutations, classes | functions)
    code = combine_mutations_to_source(module, mutations).code
    tree = ast.parse(code)  # every mutant compiles
    mutants = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    return [ast.unparse(mutants[name]).split("\n", 1)[1] for name in found]


def test_a_lone_statement_becomes_pass_and_one_with_siblings_goes() -> None:
    bodies = _compiled(
        """
        def f(x: int) -> int:
            if x:
                x += 1
            y = x; z = y
            return z
        """
    )
    assert bodies == [
        "    if x:\n        pass\n    y = x\n    z = y\n    return z",
        "    if x:\n        x += 1\n    z = y\n    return z",
        "    if x:\n        x += 1\n    y = x\n    return z",
    ]


@pytest.mark.parametrize(
    "decorators", [("property",), ("functools.cache",), ("staticmethod", "other")]
)
def test_functions_mutmut_leaves_alone_get_no_deletion(decorators: tuple[str, ...]) -> None:
    above = "".join(f"    @{d}\n" for d in decorators)
    assert _compiled(f"class K:\n{above}    def f(self) -> None:\n        g(self)\n") == []


def test_a_function_with_no_mutmut_mutant_is_not_trampolined_for_a_deletion() -> None:
    """The survey clears the planner's caches at every switch, through methods like this
    one: trampolined for a deletion alone, they would raise under ``fail``."""
    source = "class K:\n    def cache_clear(self) -> None:\n        self._kept.clear()\n"
    assert _compiled(source) == []
    assert _deleted("def cache_clear(self) -> None:\n    self._kept.clear()\n") != []


def test_deletions_are_numbered_after_mutmuts_own_mutants() -> None:
    from mutmut.mutation.file_mutation import create_mutations

    source = "def f(x: int) -> int:\n    g(x)\n    return x + 1\n"
    module, mutations, classes, functions = create_mutations("m.py", source)
    mutmut_own = len(mutations)
    found = add_deletions("m.py", module, mutations, classes | functions)
    assert list(found) == [f"x_f__mutmut_{mutmut_own + 1}"]
    assert found[f"x_f__mutmut_{mutmut_own + 1}"].before == "g(x)" and mutmut_own > 0
