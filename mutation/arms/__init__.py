"""The declared mutants of the witnesses in room ``arms`` (``witnesses/arms/``), file
for file."""
