"""``python -m mutation.merge -o OUT A.json B.json ...``: merge shard reports into one.

The same as ``claims mutate --merge-reports A.json B.json --report OUT``, for a CI step that
only has the reports and the package: shards of one survey hold disjoint mutants, so the
merge is their union (a mutant in two reports must agree on its status), and the summary it
prints is the one the unsharded survey prints.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from claims import ClaimsError
from mutation.generated import DEFAULT_REPORT, merge_command


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m mutation.merge",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("reports", nargs="+", type=Path, metavar="REPORT")
    parser.add_argument("-o", "--output", type=Path, default=DEFAULT_REPORT, metavar="FILE")
    args = parser.parse_args(argv)
    try:
        return merge_command(args.reports, args.output)
    except ClaimsError as error:
        print(f"mutation.merge: error: {error}", file=sys.stderr)
        return error.exit_code


if __name__ == "__main__":
    sys.exit(main())
