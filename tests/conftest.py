"""Suite-wide settings.

The suite already runs in parallel (``pytest -n 2``), so the Book of Power cap
bounds are solved in the test process itself (``ANALYTIC_WORKERS=1``) unless a
test asks for workers (``tests/features/test_book_of_power_reglow.py`` does).
"""

import os

os.environ.setdefault("ANALYTIC_WORKERS", "1")
