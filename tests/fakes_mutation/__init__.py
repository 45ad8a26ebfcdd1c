"""A purpose-built planner, witness and mutants for the mutation harness's own tests."""
