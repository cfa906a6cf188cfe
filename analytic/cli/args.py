"""Checked command-line values: argparse ``type=`` functions and output-path checks.

Every function here either returns the parsed value or raises
:class:`argparse.ArgumentTypeError` (argparse turns it into the one-line
``error: argument --X: reason``, exit code 2) or :class:`UsageError` (the CLI
prints ``error: --X: reason``, exit code 2).  All of them run before a model is
solved or simulated, so a bad command line costs no work.
"""

from __future__ import annotations

import argparse
import os
import re
import tempfile
from fractions import Fraction
from pathlib import Path

from analytic.errors import AnalyticError
from analytic.limits import MAX_EXPONENT, MAX_NUMBER_CHARS, MAX_ROUNDS, MAX_SEED

__all__ = [
    "UsageError", "int_type", "rounds", "seed", "workers", "stake", "scheduler_address",
    "rate", "probability", "tolerance", "check_out_dir", "check_out_file", "require_extra", "check_local_workers",
    "model_inputs", "check_not_an_input", "writable", "check_name_lengths",
    "add_solve_options", "solve_workspace",
]


class UsageError(AnalyticError):
    """A command-line value that is wrong for this model or this machine (exit code 2)."""


def _exact(text: str, what: str) -> Fraction:
    """``text`` as an exact number (integer, decimal, ``p/q``), bounded like model strings."""
    t = text.strip()
    m = re.fullmatch(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE]([+-]?[0-9]+))?|[+-]?[0-9]+/[0-9]+", t)
    if m is None or len(t) > MAX_NUMBER_CHARS:
        raise argparse.ArgumentTypeError(f"{what} must be a number such as 250, 0.5 or 1/2, got {text[:40]!r}")
    if m.group(1) is not None and abs(int(m.group(1))) > MAX_EXPONENT:
        raise argparse.ArgumentTypeError(f"decimal exponent must be within -{MAX_EXPONENT} .. {MAX_EXPONENT}, "
                                         f"got {text[:40]!r}")
    try:
        return Fraction(t)
    except ZeroDivisionError:
        raise argparse.ArgumentTypeError(f"{what} has the denominator 0: {text[:40]!r}") from None


def int_type(lo: int, hi: int, what: str = "value"):
    """An argparse type: a whole number (digits 0-9) in ``[lo, hi]``."""

    def parse(text: str) -> int:
        t = text.strip().replace("_", "")
        if not re.fullmatch(r"[+-]?[0-9]{1,40}", t):
            raise argparse.ArgumentTypeError(f"{what} must be a whole number, got {text[:40]!r}")
        v = int(t)
        if v < lo or v > hi:
            raise argparse.ArgumentTypeError(f"{what} must be between {lo:,} and {hi:,}, got {v:,}")
        return v

    parse.__name__ = what  # argparse names the type in some messages
    return parse


#: ``--rounds``: 1 .. :data:`~analytic.limits.MAX_ROUNDS`.
rounds = int_type(1, MAX_ROUNDS, "rounds")
#: ``--seed``: 0 .. :data:`~analytic.limits.MAX_SEED` (numpy seeds are non-negative).
seed = int_type(0, MAX_SEED, "seed")
#: ``--workers``: 1 .. 1024 processes (and at most :func:`check_local_workers` on this machine).
workers = int_type(1, 1024, "workers")


#: Worker processes per core a command starts at most on this machine (and at least :data:`MIN_WORKER_CAP`):
#: each is a Python process holding the game's tables, so 1,000 of them on a few cores ran the machine
#: out of memory instead of going faster.
WORKERS_PER_CORE = 4
MIN_WORKER_CAP = 8


def check_local_workers(n: int, flag: str = "--workers", hint: str = "") -> None:
    """Refuse more worker processes than this machine can run (before any work).

    Parameters
    ----------
    n : int
        Worker processes asked for (a local dask cluster of ``simulate`` / ``verify``, or the
        solver's processes).
    flag : str
        The option (or environment variable) named in the error.
    hint : str
        Appended to the error (``simulate``: how to use a larger cluster).

    Raises
    ------
    UsageError
        ``n`` above ``max(MIN_WORKER_CAP, WORKERS_PER_CORE * cores)`` (the cores this process may use).
    """
    from analytic.workspace import core_count

    cores = core_count()
    cap = max(MIN_WORKER_CAP, WORKERS_PER_CORE * cores)
    if n > cap:
        raise UsageError(f"{flag}: {n:,} worker processes on {cores} cores (each a Python process holding the "
                         f"game's tables): at most {cap} here ({WORKERS_PER_CORE} per core, at least "
                         f"{MIN_WORKER_CAP}){hint}")


def add_solve_options(p, precision_default: str | None = "standard") -> None:
    """Add the solve's ``--cap-precision`` and ``--workers`` options to the subcommand parser ``p``.

    ``precision_default``: the value of ``--cap-precision`` when not given (None: the caller tells
    "not given" from "standard", e.g. to refuse it beside a saved round law, and
    :func:`solve_workspace` reads None as 'standard').
    """
    from analytic.workspace import CAP_PRECISIONS

    p.add_argument("--cap-precision", choices=CAP_PRECISIONS, default=precision_default,
                   help="precision of the certified cap interval where a feature's cap cut is bounded "
                        "(engine drawn_expanding without a ladder, e.g. the seed model book_of_power's regular Free "
                        "Spins): standard (default), certify (narrower, about 1.6x the time) or quick (wider, "
                        "on the seed model 2e-6 to 1e-5 of RTP, no lower bound of the cut; about a third of "
                        "the time)")
    p.add_argument("--workers", type=workers, default=None,
                   help="worker processes of the solve (default: ANALYTIC_WORKERS if set, else the cores "
                        "this process may use); changes the speed only, never a figure")


def solve_workspace(game, args):
    """The :class:`~analytic.workspace.Workspace` of ``game`` for the parsed ``args``.

    ``args.cap_precision`` and ``args.workers`` (see :func:`add_solve_options`);
    without ``--workers`` the environment variable ``ANALYTIC_WORKERS`` (a
    speed setting only), else the core count.

    Raises
    ------
    UsageError
        ``ANALYTIC_WORKERS`` is not a whole number from 1 to 1024; ``--workers`` (or
        ``ANALYTIC_WORKERS``) beyond this machine (:func:`check_local_workers`).
    """
    from analytic.workspace import Workspace, core_count

    n = args.workers
    if n is None:
        env = os.environ.get("ANALYTIC_WORKERS", "").strip()
        if env:
            try:
                n = workers(env)
            except argparse.ArgumentTypeError as exc:
                raise UsageError(f"ANALYTIC_WORKERS: {exc}") from None
            check_local_workers(n, "ANALYTIC_WORKERS")
        else:
            n = core_count()
    else:
        check_local_workers(n)
    return Workspace(game, precision=args.cap_precision or "standard", workers=n)


def stake(text: str) -> Fraction:
    """``--stake``: a total stake per round in currency, > 0."""
    v = _exact(text, "stake")
    if v <= 0:
        raise argparse.ArgumentTypeError(f"stake must be more than 0 (currency per round), got {text[:40]!r}")
    return v


def scheduler_address(text: str) -> str:
    """``--scheduler``: a dask scheduler address ``PROTOCOL://HOST:PORT`` (``tcp://10.0.0.5:8786``)."""
    if not re.fullmatch(r"(tcp|tls|ucx|ws|wss)://[A-Za-z0-9.\-\[\]:]+:[0-9]{1,5}", text.strip()):
        raise argparse.ArgumentTypeError(f"not a scheduler address such as tcp://host:8786: {text[:60]!r}")
    return text.strip()


def rate(text: str, what: str = "target") -> Fraction:
    """An RTP or hit-frequency target: a percentage (``94``, ``94.5%``) or a fraction (``0.94``).

    A bare number above 2 is read as a percentage; ``%`` always is.  The
    result must lie in (0, 1] (0 % .. 100 %).
    """
    t = text.strip()
    is_pct = t.endswith("%")
    v = _exact(t.rstrip("%"), what)
    if is_pct or v > 2:
        v = v / 100
    if v <= 0 or v > 1:
        hint = (f"; a bare number is a percentage only above 2: for {t[:40]} % write {t[:40]}%"
                if not is_pct and 1 < v <= 2 else "")
        raise argparse.ArgumentTypeError(f"{what} must be above 0 % and at most 100 % "
                                         f"(e.g. 94.5 or 0.945), got {text[:40]!r}{hint}")
    return v


def probability(text: str) -> Fraction:
    """A feature-frequency target: a probability per round in (0, 1].

    ``1/150`` (one in 150), ``0.0067`` or ``0.67%``.  A bare number above 1 is
    refused (it is neither a probability nor, unmarked, a percentage).
    """
    t = text.strip()
    is_pct = t.endswith("%")
    v = _exact(t.rstrip("%"), "feature frequency")
    if is_pct:
        v = v / 100
    if v <= 0 or v > 1:
        hint = f" (for one in {text.strip()} write 1/{text.strip()})" if v > 1 and not is_pct else ""
        raise argparse.ArgumentTypeError(f"feature frequency must be a probability per round above 0 and at "
                                         f"most 1, such as 1/150 or 0.5%, got {text[:40]!r}{hint}")
    return v


def tolerance(text: str) -> Fraction:
    """An absolute tolerance: a fraction (``0.00005``) or a percentage with ``%``, in (0, 1)."""
    t = text.strip()
    v = _exact(t.rstrip("%"), "tolerance")
    v = v / 100 if t.endswith("%") else v
    if v <= 0 or v >= 1:
        raise argparse.ArgumentTypeError(f"tolerance must be above 0 and below 1, got {text[:40]!r}")
    return v


def _probe(folder: Path, flag: str) -> None:
    """Fail unless a file can be created in ``folder`` (created and removed at once)."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=".analytic-probe.", dir=folder)
        os.close(fd)
        os.unlink(tmp)
    except OSError as exc:
        raise UsageError(f"{flag}: cannot write into the folder {str(folder)!r}: {exc.strerror or exc}") from None


def writable(path: Path) -> bool:
    """An existing file may be replaced: the process may write it and some write permission bit is set
    (the superuser's access ignores the bits; a file made read-only stays so for everyone).  Output files
    are written beside and renamed, and a rename needs only the folder's permission: without this check a
    read-only file was replaced, and came back writable."""
    try:
        return os.access(path, os.W_OK) and bool(os.stat(path).st_mode & 0o222)
    except OSError:
        return False


def _read_only(path, flag: str) -> UsageError:
    return UsageError(f"{flag}: {str(path)!r} is read-only; make it writable (or remove it) to replace it, or "
                      "write elsewhere")


def model_inputs(model: str) -> dict:
    """The files a model reads: ``{real path: what}`` -- the model file (``'the model file'``) and each
    CSV file its ``[reels]`` name (``'the CSV file reels.NAME reads'``).  A file that cannot be read or
    parsed names no CSV file (the loader has refused it by then)."""
    import tomllib

    from analytic.model.loader import read_limited

    out = {os.path.realpath(model): "the model file"}
    try:  # size-limited, regular files only (a named pipe is never opened: it would wait for a writer)
        raw = tomllib.loads(read_limited(Path(model), model, "", "the model file").decode("utf-8-sig"))
    except (AnalyticError, ValueError, RecursionError):
        return out
    reels = raw.get("reels")
    if isinstance(reels, dict):
        base = os.path.dirname(os.path.abspath(model))
        for name, spec in reels.items():
            if isinstance(spec, dict) and isinstance(spec.get("csv"), str) and "\0" not in spec["csv"]:
                out.setdefault(os.path.realpath(os.path.join(base, spec["csv"])), f"the CSV file reels.{name} reads")
    return out


def check_not_an_input(path: str, model: str, flag: str = "--out") -> None:
    """Refuse an output file that is a file the model reads (the model itself, a CSV file of its reels):
    written, it would replace that input (``tune --out strips.csv`` broke the model and the tuned one).

    Raises
    ------
    UsageError
        ``path`` (symbolic links and ``..`` resolved; a hard link too when it exists) is one of
        :func:`model_inputs`.
    """
    inputs = model_inputs(model)
    real = os.path.realpath(path)
    what = inputs.get(real)
    if what is None and os.path.exists(path):
        what = next((w for f, w in inputs.items() if os.path.exists(f) and os.path.samefile(f, path)), None)
    if what is not None:
        raise UsageError(f"{flag}: {path!r} is {what} of {model!r} (it would be replaced); choose another file")


def _nearest_existing(p: Path) -> Path:
    """``p`` or its nearest folder that exists (the current folder for a relative path that has none)."""
    q = Path(os.path.abspath(p))
    while True:
        try:
            if q.exists() or q.parent == q:
                return q
        except OSError:  # a name too long to look up: its folder decides
            pass
        q = q.parent


def _name_limits(p: Path) -> tuple[int, int]:
    """The longest file name and path (bytes) of the file system ``p`` is on (255 and 4096 if not told)."""
    q = _nearest_existing(p)
    out = []
    for key, default in (("PC_NAME_MAX", 255), ("PC_PATH_MAX", 4096)):
        try:
            out.append(int(os.pathconf(q, key)))
        except (OSError, ValueError, AttributeError):
            out.append(default)
    return out[0], out[1]


def check_name_lengths(path: str, flag: str, names=()) -> None:
    """Refuse a path the file system cannot hold, before any work: a part of ``path`` (or one of the
    ``names`` written in its folder, such as the ``.<name>.partial`` a file is written through) longer
    than the file system's longest name, or the whole path longer than its longest path.

    Without it a 300-character ``--out`` name was a traceback (``OSError: File name too long``), and a
    name that fits whose temporary ``.partial`` name does not failed only after the solve, with exit 1.

    Raises
    ------
    UsageError
        The name or path in bytes (as the file system counts: UTF-8) above the limits of
        :func:`os.pathconf` (``PC_NAME_MAX``, ``PC_PATH_MAX``) of the nearest existing folder.
    """
    p = Path(path)
    name_max, path_max = _name_limits(p)
    full = len(os.fsencode(os.path.abspath(p)))
    if full >= path_max:
        raise UsageError(f"{flag}: the path {path[:60]!r}... is {full:,} bytes long; this file system allows "
                         f"{path_max - 1:,}")
    for part in p.parts:
        n = len(os.fsencode(part))
        if n > name_max:
            raise UsageError(f"{flag}: the name {part[:60]!r}... is {n:,} bytes long; this file system allows "
                             f"{name_max} (choose a shorter name)")
    for name in names:
        n = len(os.fsencode(name))
        if n > name_max:
            raise UsageError(f"{flag}: the file {name[:60]!r}... written in {str(p)[:60]!r} is {n:,} bytes long "
                             f"(with the temporary name it is written through); this file system allows "
                             f"{name_max}: choose a shorter name")


def _check_path_text(path: str, flag: str) -> Path:
    if "\0" in path or not path.strip():
        raise UsageError(f"{flag}: not a usable path: {path[:60]!r}")
    check_name_lengths(path, flag)
    return Path(path)


def check_out_dir(path: str, flag: str = "--out", files=()) -> None:
    """Check an output folder before any work: a writable folder, or one that can be created.

    Nothing is created: the folder itself is made only when the files are
    written.

    Parameters
    ----------
    path : str
    flag : str
        The option named in the error.
    files : iterable of str
        Names the command will write (or move through) in the folder; none of
        them may be a folder (a file or a link there is replaced).

    Raises
    ------
    UsageError
        ``path`` is a file, lies under a file, or its nearest existing folder
        is not writable; one of ``files`` is a folder, or a read-only file.
    """
    p = _check_path_text(path, flag)
    check_name_lengths(path, flag, files)
    if p.exists() and not p.is_dir():
        raise UsageError(f"{flag}: {path!r} is a file, not a folder")
    if p.is_symlink() and not p.exists():
        raise UsageError(f"{flag}: {path!r} is a symbolic link to nothing")
    for name in files:
        f = p / name
        if f.is_dir() and not f.is_symlink():
            raise UsageError(f"{flag}: {str(f)!r} is a folder, where the file {name!r} goes; move or rename it")
        if f.is_file() and not f.is_symlink() and not writable(f):
            raise _read_only(f, flag)
    q = p
    while not q.exists():
        if q.parent == q:
            break
        q = q.parent
    if not q.is_dir():
        raise UsageError(f"{flag}: {path!r} lies under {str(q)!r}, which is a file, not a folder")
    _probe(q, flag)


def check_out_file(path: str, flag: str = "--out", example: str = "tuned.toml") -> None:
    """Check an output file before any work: its folder exists and is writable, and it is not a folder.

    Parameters
    ----------
    path : str
        The output file.
    flag : str
        The option named in an error.
    example : str
        A file name suggested when ``path`` is a folder.

    Raises
    ------
    UsageError
        ``path`` is a symbolic link, a folder or another non-regular file, a
        read-only file, its folder is missing or a file, or not writable; or the temporary
        ``.<name>.partial`` it is written through is a folder.
    """
    p = _check_path_text(path, flag)
    check_name_lengths(str(p.parent), flag, [f".{p.name}.partial"])  # analytic.tuner.write.partial_path
    if p.is_symlink():  # the file is written beside and renamed: it would replace the link, not write through
        raise UsageError(f"{flag}: {path!r} is a symbolic link; give the path of a file (the link would be "
                         "replaced by the file, not written through)")
    if p.is_dir():
        raise UsageError(f"{flag}: {path!r} is a folder; give a file name such as {str(p / example)!r}")
    if p.exists() and not p.is_file():
        raise UsageError(f"{flag}: {path!r} is not a regular file")
    if p.exists() and not writable(p):
        raise _read_only(path, flag)
    tmp = p.with_name(f".{p.name}.partial")  # analytic.tuner.write.partial_path: written first, then renamed
    if tmp.is_dir() and not tmp.is_symlink():
        raise UsageError(f"{flag}: {str(tmp)!r}, where {p.name!r} is written before its rename, is a folder; "
                         "move it")
    parent = p.parent
    if not parent.exists():
        raise UsageError(f"{flag}: the folder {str(parent)!r} does not exist")
    if not parent.is_dir():
        raise UsageError(f"{flag}: {path!r} lies under {str(parent)!r}, which is a file, not a folder")
    _probe(parent, flag)


def require_extra(module: str, extra: str, what: str) -> None:
    """Fail with the extra to install when ``module`` cannot be imported.

    Raises
    ------
    UsageError
        E.g. ``--workers 2 needs dask: pip install 'analytic[sim]'``.
    """
    import importlib.util

    try:
        found = importlib.util.find_spec(module) is not None
    except ImportError:  # a missing parent package ("dask" of "dask.distributed")
        found = False
    if not found:
        raise UsageError(f"{what} needs the {module} package: install the '{extra}' extra "
                         f"(pip install 'analytic[{extra}]')")
