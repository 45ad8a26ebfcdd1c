"""The declared mutants of the witnesses in room ``transaction`` (``witnesses/transaction/``), file
for file."""
