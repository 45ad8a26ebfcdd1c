"""The claims about :mod:`postage`, and the mutants that show each claim can fail."""
