"""Writing a tuned model file: the original text with one reel set replaced.

The model file is edited with tomlkit so that every comment, design reason
and rule switch of the designer's file survives; the replaced reel set gets
a comment listing the count changes.  A reel set read from a CSV gets a new
CSV beside the output file.  Writing is atomic (temporary file, then
``os.replace``), so an error leaves nothing half-written; a process killed
outright (SIGKILL) can leave ``.<name>.partial``, which the next run removes.
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

import tomlkit

from analytic.model.game import Game

__all__ = ["write_tuned_model", "atomic_write", "partial_path"]


def partial_path(path: Path) -> Path:
    """The temporary name of ``path`` while it is written: ``.<name>.partial`` beside it."""
    path = Path(path)
    return path.with_name(f".{path.name}.partial")


def atomic_write(path: Path, text: str, mode: int | None = None) -> None:
    """Write ``text`` to ``path`` through ``.<name>.partial`` in the same folder, then rename.

    The new file gets the usual mode (0666 less the umask), or ``mode`` (permission bits, e.g. those
    of the file it replaces) when given.  An error or an interruption removes the partial file; one
    left by a killed process is replaced by the next write of the same file.
    """
    path = Path(path)
    tmp = partial_path(path)
    try:
        os.unlink(tmp)  # a killed run's leftover (never followed if it is a link)
    except FileNotFoundError:
        pass
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o666)
    try:
        if mode is not None:
            os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_tuned_model(source: str | Path, out: str | Path, game: Game, reel_set: str, note: list[str],
                      mode: int | None = None) -> None:
    """Write ``source`` to ``out`` with ``game``'s ``reel_set`` strips.

    Parameters
    ----------
    source : path
        The model file the tuning started from (read, never modified unless
        ``out`` is the same path).
    out : path
    game : Game
        Holds the tuned strips.
    reel_set : str
    note : list of str
        Lines for the comment above the reel set (what changed, figures).
    mode : int, optional
        Permission bits of the model file written (``--in-place``: the input's); default 0666 less
        the umask.
    """
    source, out = Path(source), Path(out)
    doc = tomlkit.parse(source.read_text(encoding="utf-8-sig"))  # as the loader: a byte order mark is not text
    strips = game.reel_sets[reel_set]
    reels = doc["reels"]
    old = reels[reel_set]
    if isinstance(old, dict) and "csv" in old:
        csv_path = out.with_name(f"{out.stem}_{reel_set}.csv")
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        # "reel 1": a space is in no symbol name, so the loader always reads this row as the header
        # ("reel1" was read as a row of stops in a game with symbols of those names)
        w.writerow([f"reel {i + 1}" for i in range(len(strips))])
        for i in range(max(len(s) for s in strips)):
            w.writerow([s[i] if i < len(s) else "" for s in strips])
        atomic_write(csv_path, buf.getvalue())
        new = tomlkit.inline_table()
        new["csv"] = csv_path.name
    else:
        new = tomlkit.array()
        new.multiline(True)
        for s in strips:
            a = tomlkit.array()
            a.extend(list(s))
            new.append(a)
    reels[reel_set] = new
    for line in reversed(note):
        reels.value.body.insert(0, (None, tomlkit.comment(line)))
    atomic_write(out, tomlkit.dumps(doc), mode=mode)
