"""``python -m mutation.merge -o OUT A.json B.json ...``: merge shard reports into one.

The same as ``claims mutate --merge-reports A.json B.json --report OUT``, for a CI step that
only has the reports and the package: shards of one survey hold disjoint mutants, so the
merge is their union (a mutant in two reports must agree on its status), and the summary it
prints is the one the unsharded survey prints.
"""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path

from claims import ClaimsError
from claims.cli import internal_error_line
from claims.errors import EXIT_INTERNAL
from mutation.generated import DEFAULT_REPORT, merge_command


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m mutation.merge",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("reports", nargs="+", type=Path, metavar="REPORT")
    parser.add_argument("-o", "--output", type=Path, default=DEFAULT_REPORT, metavar="FILE")
    parser.add_argument("--debug", action="store_true", help="print the traceback of a bug")
    args = parser.parse_args(argv)
    try:
        return merge_command(args.reports, args.output)
    except ClaimsError as error:
        print(f"mutation.merge: error: {error}", file=sys.stderr)
        return error.exit_code
    except Exception as error:  # a bug, not bad input: exit 70 in one located line
        if args.debug:
            traceback.print_exc(file=sys.stderr)
        print(internal_error_line(error, "mutation.merge"), file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
