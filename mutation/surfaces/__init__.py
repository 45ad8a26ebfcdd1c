"""The declared mutants of the witnesses in room ``surfaces`` (``witnesses/surfaces/``), file
for file."""
