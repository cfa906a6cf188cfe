"""Command-line interface: ``analytic COMMAND ...`` (also ``python -m analytic``).

Each command lives in its own module of this package with two functions,
``add_parser(subparsers)`` and ``run(args) -> int``; :data:`COMMANDS` lists
them in help order.  Errors of the model (:class:`analytic.errors.ModelError`)
print ``error: FILE: KEY: REASON`` and exit with code 2.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import os
import signal
import sys
import threading
import unicodedata
import warnings

from analytic import __version__
from analytic.cli.args import UsageError
from analytic.errors import AnalyticError, ModelError, ModelWarning

__all__ = ["main", "COMMANDS"]

_default_showwarning = warnings.showwarning

#: Command modules (``analytic.cli.<name>``) in help order.
COMMANDS = ("solve", "simulate", "verify", "tune", "report", "graph", "session")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="analytic",
        description="Exact slot-game mathematics: solve, simulate, verify, tune, report, graph.",
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


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error (``error: argument --X: reason``), exit code 2."""

    def error(self, message: str):
        self.exit(2, f"error: {message.splitlines()[0] if message else 'bad arguments'} "
                     f"(see: {self.prog} --help)\n")


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread so that every ``finally`` and cleanup runs."""


def _on_sigterm(owner: int, signum, frame):
    """SIGTERM in the CLI's process raises :class:`_Terminated`; a worker process forked from it
    (whose pool is being shut down) ends as SIGTERM ends a process, quietly."""
    if os.getpid() != owner:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
        return
    raise _Terminated()


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """Warnings of the model as one line each: ``warning: FILE: KEY: reason``."""
    if issubclass(category, ModelWarning):
        print(f"warning: {_one_line(str(message))}", file=sys.stderr)
    else:
        _default_showwarning(message, category, filename, lineno, file, line)


def _one_line(text: str) -> str:
    """``text`` with its control characters escaped (``\\n``, ``\\x1b``): an error stays one line
    whatever a file name holds."""
    return "".join(repr(ch)[1:-1] if unicodedata.category(ch) == "Cc" else ch for ch in text)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the process exit code.

    0 ok, 2 bad input (model file or command line, one line ``error: ...`` on
    stderr, nothing written), 1 another error, 3/4 as documented per command,
    130 interrupted (Ctrl-C), 143 terminated (SIGTERM); an interrupted command
    leaves no temporary file behind.
    """
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a bad argument (already printed)
        return exc.code if isinstance(exc.code, int) else 2
    from analytic.memory import use_small_pages

    use_small_pages()  # the same bits, far less time in page faults (analytic/memory.py)
    old_term = None
    if threading.current_thread() is threading.main_thread():
        old_term = signal.signal(signal.SIGTERM, functools.partial(_on_sigterm, os.getpid()))
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            return int(args._run(args) or 0)
    except (ModelError, UsageError) as exc:
        print(f"error: {_one_line(str(exc))}", file=sys.stderr)
        return 2
    except AnalyticError as exc:
        print(f"error: {_one_line(str(exc))}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # output piped into head & co.
        sys.stderr.close()
        return 0
    except _Terminated:
        print("error: terminated (SIGTERM); nothing was written", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print("error: interrupted; nothing was written", file=sys.stderr)
        return 130
    finally:
        if old_term is not None:
            signal.signal(signal.SIGTERM, old_term)
