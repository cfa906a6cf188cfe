"""numpy's huge-page advice is off in the ``analytic`` command's process (analytic/memory.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from analytic.cli import main
from analytic.memory import use_small_pages

multiarray = pytest.importorskip("numpy._core.multiarray")
if not hasattr(multiarray, "_get_madvise_hugepage"):  # pragma: no cover - numpy without the switch
    pytest.skip("this numpy has no huge-page switch", allow_module_level=True)

DATA = Path(__file__).parent / "data"


@pytest.fixture
def advice_restored():
    before = multiarray._get_madvise_hugepage()
    yield
    multiarray._set_madvise_hugepage(before)


def test_use_small_pages_turns_the_advice_off_and_says_what_it_was(advice_restored):
    multiarray._set_madvise_hugepage(True)
    assert use_small_pages() is True
    assert multiarray._get_madvise_hugepage() is False
    assert use_small_pages() is False  # already off


def test_the_command_solves_with_small_pages(advice_restored, capsys):
    multiarray._set_madvise_hugepage(True)
    assert main(["solve", str(DATA / "two_reels.toml")]) == 0
    assert multiarray._get_madvise_hugepage() is False
    assert "RTP" in capsys.readouterr().out


def test_a_bad_command_line_leaves_the_advice_alone(advice_restored, capsys):
    multiarray._set_madvise_hugepage(True)
    assert main(["solve", "--no-such-option"]) == 2
    assert multiarray._get_madvise_hugepage() is True
