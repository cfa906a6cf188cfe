"""``python -m analytic``: the same as the ``analytic`` command."""

import sys

from analytic.cli import main

sys.exit(main())
