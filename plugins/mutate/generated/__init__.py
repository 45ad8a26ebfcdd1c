"""The generated survey: mutmut generates mutants of the planner into ``mutants/``
(:mod:`.mutmut_bridge`), survey workers run the claims under each (:mod:`.survey` in the
worker, :mod:`.workers` watching them), and :mod:`.command` drives it and writes the report
(:mod:`.survey_report`); :mod:`.selection` picks shards and changed functions."""
