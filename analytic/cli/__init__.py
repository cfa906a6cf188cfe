"""Command-line interface: ``analytic COMMAND ...`` (also ``python -m analytic``).

Each command lives in its own module of this package with two functions,
``add_parser(subparsers)`` and ``run(args) -> int``; :data:`COMMANDS` lists
them in help order.  Errors of the model (:class:`analytic.errors.ModelError`)
print ``error: FILE: KEY: REASON`` and exit with code 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from analytic import __version__
from analytic.errors import AnalyticError, ModelError

__all__ = ["main", "COMMANDS"]

#: Command modules (``analytic.cli.<name>``) in help order.
COMMANDS = ("solve", "simulate", "verify", "tune", "report")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="analytic",
        description="Exact slot-game mathematics: solve, simulate, verify, tune, report.",
    )
    p.add_argument("--version", action="version", version=f"analytic {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMANDS:
        try:
            mod = importlib.import_module(f"analytic.cli.{name}")
        except ModuleNotFoundError as exc:  # a command not built yet
            if exc.name == f"analytic.cli.{name}":
                continue
            raise
        sp = mod.add_parser(sub)
        sp.set_defaults(_run=mod.run)
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the process exit code (0 ok, 2 bad input, 1 other error)."""
    args = _parser().parse_args(argv)
    try:
        return int(args._run(args) or 0)
    except ModelError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except AnalyticError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # output piped into head & co.
        sys.stderr.close()
        return 0
