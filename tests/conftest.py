"""What every test module shares: hypothesis examples without a deadline.

hypothesis's default fails an example that takes longer than 200 ms, and calls the test flaky
when the rerun is quicker: a timed assertion, which a test must not make on a loaded CI
machine (speed is measured by ``make bench``, as ratios in one run). Examples stay random
between runs, as they were; a test that sets its own ``@settings`` keeps them.
"""

from __future__ import annotations

from hypothesis import settings

settings.register_profile("tests", deadline=None)
settings.load_profile("tests")
