"""Declared mutants: the model (:mod:`.model`), loading them and the floor they keep
(:mod:`.loading`), running them in child processes (:mod:`.runs`), judging the runs
(:mod:`.harness`) and the kill-matrix tables (:mod:`.tables`)."""
