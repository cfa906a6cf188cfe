"""``python -m analytic``: the same as the ``analytic`` command."""

import sys

try:
    from analytic.cli import main

    code = main()
except KeyboardInterrupt:  # Ctrl-C while the modules load, before main() handles it
    print("error: interrupted; nothing was written", file=sys.stderr)
    code = 130
sys.exit(code)
