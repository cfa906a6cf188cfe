"""Writing par sheets atomically, and the renderer registry.

:func:`write_reports` renders every requested format into a private folder
of the system's temporary directory (``analytic-report-PID-*``), and only
when all of them are rendered touches the output folder: it creates it if
missing, copies each file to ``OUT/.<stem>.<ext>.partial`` and moves all of
them into place with :func:`os.replace`.  If anything fails or the process is
interrupted (Ctrl-C, SIGTERM), every temporary file and a folder this run
created are removed and no report file is touched: an error never leaves a
half-written (or a half-updated set of) par sheets.

A process killed outright (SIGKILL) can leave only its staging folder in the
temporary directory, or, in the short copying step, ``OUT/.<stem>.<ext>.partial``
files (and the output folder it had just created); the next run writing the
same reports removes both.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from typing import Callable

from analytic.reports.model import ParSheet

__all__ = ["FORMATS", "MissingRenderer", "renderer", "write_reports"]

#: Format name -> file extension, in writing order.
FORMATS = {"md": "md", "json": "json", "xlsx": "xlsx", "pdf": "pdf"}


class MissingRenderer(ImportError):
    """A format's writer needs a package that is not installed (message: the format, the package, the extra)."""


def renderer(fmt: str) -> Callable[[ParSheet, str], None]:
    """The ``write(sheet, path)`` function of a format (imported lazily).

    Raises
    ------
    ValueError
        An unknown format.
    MissingRenderer
        The format's writer needs a package that is not installed (``xlsx``:
        openpyxl; ``pdf``: fpdf2 and matplotlib; all in the ``report`` extra).
    """
    try:
        if fmt == "md":
            from analytic.reports.markdown import write_markdown as w
        elif fmt == "json":
            from analytic.reports.json_ import write_json as w
        elif fmt == "xlsx":
            from analytic.reports.xlsx import write_xlsx as w
        elif fmt == "pdf":
            from analytic.reports.pdf import write_pdf as w
        else:
            raise ValueError(f"unknown report format {fmt!r}; known: {', '.join(FORMATS)}")
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.split(".")[0] == "analytic":
            raise
        raise MissingRenderer(f"the {fmt} format needs the Python package {exc.name.split('.')[0]!r}, which is "
                              f"not installed (pip install 'analytic[report]')") from None
    return w


def _umask() -> int:
    old = os.umask(0)
    os.umask(old)
    return old


#: Prefix of a staging folder in the system's temporary directory (then the process id).
STAGE_PREFIX = "analytic-report-"


def partial_name(stem: str, ext: str) -> str:
    """Name of a report's file while it is copied into the output folder."""
    return f".{stem}.{ext}.partial"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by another user
        return True
    return True


def _stages(prefix: str) -> list[str]:
    """Paths of the temporary directory's entries named ``prefix*`` (none if it cannot be listed)."""
    tmp = tempfile.gettempdir()
    try:
        names = os.listdir(tmp)
    except OSError:
        return []
    return [os.path.join(tmp, n) for n in names if n.startswith(prefix)]


def _clean_stale_stages() -> None:
    """Remove staging folders left by killed runs (their process is gone)."""
    for path in _stages(STAGE_PREFIX):
        pid = os.path.basename(path)[len(STAGE_PREFIX):].split("-", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _pid_alive(int(pid)):
            shutil.rmtree(path, ignore_errors=True)


def _remove_stages(prefix: str) -> None:
    """Remove this call's staging folder (every folder named ``prefix*``), however far it got."""
    for path in _stages(prefix):
        shutil.rmtree(path, ignore_errors=True)


def _missing_dirs(path: str) -> list[str]:
    """The folders :func:`os.makedirs` would create for ``path``, outermost first."""
    out = []
    p = os.path.abspath(path)
    while not os.path.exists(p):
        out.append(p)
        parent = os.path.dirname(p)
        if parent == p:
            break
        p = parent
    return out[::-1]


def write_reports(sheet: ParSheet, out_dir: str, formats=tuple(FORMATS), stem: str | None = None) -> list[str]:
    """Write the par sheet of ``sheet`` in ``formats`` to ``out_dir/<stem>.<ext>``.

    Parameters
    ----------
    sheet : ParSheet
    out_dir : str
        Created if missing (only once every format is rendered).
    formats : iterable of str
        Subset of :data:`FORMATS`.
    stem : str, optional
        File name stem; default the model file's stem.

    Returns
    -------
    list of str
        The paths written.

    Raises
    ------
    ValueError
        An unknown format (before anything is written).
    OSError
        The output folder cannot be created or written (nothing is left in it).
    """
    formats = list(dict.fromkeys(formats))
    writers = [(f, renderer(f)) for f in formats]
    stem = stem or sheet.stem
    _clean_stale_stages()
    # not TemporaryDirectory: a signal between its mkdtemp and its cleanup's registration would
    # orphan the folder; the prefix is unique to this call, so ``finally`` finds it in any case
    prefix = f"{STAGE_PREFIX}{os.getpid()}-{uuid.uuid4().hex[:12]}-"
    try:
        stage = tempfile.mkdtemp(prefix=prefix)
        rendered = []
        for fmt, write in writers:
            path = os.path.join(stage, f"{stem}.{FORMATS[fmt]}")
            write(sheet, path)
            rendered.append((path, fmt))
        # every format rendered: now, briefly, the output folder
        created = _missing_dirs(out_dir)
        for _path, fmt in rendered:  # a folder in the way would stop the moves half-way: check all first
            for name in (f"{stem}.{FORMATS[fmt]}", partial_name(stem, FORMATS[fmt])):
                p = os.path.join(out_dir, name)
                if os.path.isdir(p) and not os.path.islink(p):
                    raise IsADirectoryError(21, "a folder is where a report file goes", p)
        temps: list[tuple[str, str]] = []
        try:
            os.makedirs(out_dir, exist_ok=True)
            for fmt in FORMATS:  # a killed earlier run's partial copies
                try:
                    os.unlink(os.path.join(out_dir, partial_name(stem, FORMATS[fmt])))
                except OSError:
                    pass
            for path, fmt in rendered:
                final = os.path.join(out_dir, f"{stem}.{FORMATS[fmt]}")
                tmp = os.path.join(out_dir, partial_name(stem, FORMATS[fmt]))
                temps.append((tmp, final))
                shutil.copyfile(path, tmp)
                os.chmod(tmp, 0o666 & ~_umask())  # the usual mode of a new file
            for tmp, final in temps:
                os.replace(tmp, final)
        except BaseException:
            for tmp, _ in temps:
                try:
                    os.unlink(tmp)
                except FileNotFoundError:
                    pass
            for d in reversed(created):  # leave no empty folder behind either
                try:
                    os.rmdir(d)
                except OSError:
                    break
            raise
    finally:
        _remove_stages(prefix)
    return [final for _, final in temps]
