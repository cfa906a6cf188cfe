"""Writing par sheets atomically, and the renderer registry.

:func:`write_reports` renders every requested format into a temporary file
in the target directory, then moves all of them into place with
:func:`os.replace`.  If any renderer fails, every temporary file is removed
and no report file is touched: an error never leaves a half-written (or a
half-updated set of) par sheets.
"""

from __future__ import annotations

import os
import tempfile
from typing import Callable

from analytic.reports.model import ParSheet

__all__ = ["FORMATS", "renderer", "write_reports"]

#: Format name -> file extension, in writing order.
FORMATS = {"md": "md", "json": "json", "xlsx": "xlsx", "pdf": "pdf"}


def renderer(fmt: str) -> Callable[[ParSheet, str], None]:
    """The ``write(sheet, path)`` function of a format (imported lazily)."""
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
    return w


def _umask() -> int:
    old = os.umask(0)
    os.umask(old)
    return old


def write_reports(sheet: ParSheet, out_dir: str, formats=tuple(FORMATS), stem: str | None = None) -> list[str]:
    """Write the par sheet of ``sheet`` in ``formats`` to ``out_dir/<stem>.<ext>``.

    Parameters
    ----------
    sheet : ParSheet
    out_dir : str
        Created if missing.
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
    """
    formats = list(dict.fromkeys(formats))
    writers = [(f, renderer(f)) for f in formats]
    stem = stem or sheet.stem
    created = not os.path.isdir(out_dir)
    os.makedirs(out_dir, exist_ok=True)
    temps: list[tuple[str, str]] = []
    try:
        for fmt, write in writers:
            final = os.path.join(out_dir, f"{stem}.{FORMATS[fmt]}")
            fd, tmp = tempfile.mkstemp(prefix=f".{stem}.", suffix=f".{FORMATS[fmt]}.tmp", dir=out_dir)
            os.close(fd)
            temps.append((tmp, final))
            write(sheet, tmp)
            os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give the usual mode
        for tmp, final in temps:
            os.replace(tmp, final)
    except BaseException:
        for tmp, _ in temps:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
        if created:  # leave no empty folder behind either
            try:
                os.rmdir(out_dir)
            except OSError:
                pass
        raise
    return [final for _, final in temps]
