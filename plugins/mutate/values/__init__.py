"""The value survey: boundaries (:mod:`.boundaries`) whose returned values are mutated
(:mod:`.operators`) in the survey worker (:mod:`.survey`), driven by :mod:`.command` and
reported by :mod:`.report`. It reuses the generated survey's workers and selection."""
