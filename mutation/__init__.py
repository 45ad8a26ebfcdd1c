"""Mutation harness: declared mutants with exact kill sets, and the mutmut survey.

A declared mutant, in ``mutation/<witness>.py``::

    from mutation import mutant

    @mutant(
        replaces="planner.admission.hosts_held_by_subject",
        turns_red={"v41_group_a_launch.host_not_held_by_the_subject_is_refused"},
    )
    def held_host_conjunct_removed(state, group):
        \"\"\"Admission no longer checks that every host is held by the group's subject.\"\"\"
        return ()

``claims mutate W`` checks that each mutant turns exactly its declared claims red.
"""

from mutation.model import Mutant, combined, mutant
from mutation.patching import ForcedFailure

__all__ = ["ForcedFailure", "Mutant", "combined", "mutant"]
