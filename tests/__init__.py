"""Tests of the kernel, plugins and planner.

A fact about the planner that a claim states lives in that claim's witness, not here (claims
are pytest items already): tests/ keeps the framework, the rigs, and planner internals no
claim should state. Folded so far: the arms' call sites and dry runs (witnesses/arms/:
arm_launch.py, v41_group_a_launch.py, glm_group_b_launch.py, arm_registry.py), admission
(rules/authority_admission.py), the dry-run command line and its report
(surfaces/dry_run_cli.py), each host's create argv and unit (planner.realize:
arms/arm_launch.py), the data root (rules/fabric_inventory.py) and ``planner apply``'s command
line (surfaces/coordinator_cli.py); each thinned test file names the witness that states its
removed facts.
"""
