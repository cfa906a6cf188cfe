"""The Book of Ra Deluxe benchmark outside a checkout: one error line, exit 2 (it was a traceback)."""

from analytic.bench import book_of_ra_deluxe as bench


def test_missing_case_is_one_error_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(bench, "MODEL", tmp_path / "tests" / "cases" / "book_of_ra_deluxe_95.toml")
    assert bench.main() == 2
    cap = capsys.readouterr()
    lines = cap.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "checkout of the repository" in lines[0]
    assert cap.out == ""
