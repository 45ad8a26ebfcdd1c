"""The declared mutants of the witnesses in room ``rules`` (``witnesses/rules/``), file
for file."""
