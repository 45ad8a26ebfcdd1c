"""Room ``surfaces``: what an operator touches — the ``planner`` command line in-process and
as a process, ``planner apply``'s dry run, saved plans and ``--check``."""
