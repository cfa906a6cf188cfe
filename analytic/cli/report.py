"""``analytic report MODEL [--out reports/] [--formats pdf,xlsx,md,json] [--vi-z 1.645|1.65]``.

Solves every bet mode of the model and writes one par sheet per format to
``OUT/<model stem>.<ext>`` atomically (see :mod:`analytic.reports.write`).
Exit codes: 0 written, 2 bad model or bad arguments (nothing written),
1 another error (e.g. a feature kind without an exact solver).
"""

from __future__ import annotations

import os
import sys

__all__ = ["add_parser", "run"]


def add_parser(sub):
    p = sub.add_parser("report", help="write par sheets (PDF, XLSX, Markdown, JSON) of a model",
                       description="Solve every bet mode of a model and write its par sheet "
                                   "(one file per format, OUT/<model stem>.<ext>), atomically: an error "
                                   "leaves no half-written file. Nothing is printed until the files are "
                                   "written: expect seconds for a tiny game, a minute or more for a large one "
                                   "(most of it the sessions part, 100 to 10,000 rounds from 100 bets per bet "
                                   "mode).")
    p.add_argument("model", help="model file (.toml)")
    p.add_argument("--out", default="reports", help="output directory (default: reports/; in the analytic repository that is the folder "
                                                        "of the committed par sheets, which a run there replaces)")
    p.add_argument("--formats", default="pdf,xlsx,md,json",
                   help="comma-separated subset of pdf,xlsx,md,json (default: all)")
    p.add_argument("--vi-z", choices=("1.645", "1.65"), default=None,
                   help="z of the 90%% volatility index (z x sd), as the test lab rounds the 90%% normal "
                        "quantile; default the quantile itself (1.6448536...); printed in the sheet")
    from analytic.cli.args import add_solve_options

    add_solve_options(p)
    return p


def run(args) -> int:
    from analytic.model.loader import load_model
    from analytic.reports.model import build_sheet
    from analytic.reports.write import FORMATS, write_reports

    formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    bad = [f for f in formats if f not in FORMATS]
    if bad or not formats:
        from analytic.cli.args import UsageError  # one line, escaped, exit 2 (cli.main)

        raise UsageError(f"--formats: unknown {', '.join(bad) or '(empty)'}; known: {', '.join(FORMATS)}")
    from analytic.cli.args import UsageError, check_not_an_input, check_out_dir
    from analytic.reports.write import MissingRenderer, partial_name, renderer

    for f in formats:  # before any solve: a writer whose package is missing
        try:
            renderer(f)
        except MissingRenderer as exc:
            raise UsageError(f"--formats: {exc}") from None

    stem = os.path.splitext(os.path.basename(args.model))[0]
    names = [n for f in formats for n in (f"{stem}.{FORMATS[f]}", partial_name(stem, FORMATS[f]))]
    # before any solve: a file, a path under a file, a read-only folder, a folder where a sheet goes
    check_out_dir(args.out, files=names)
    for n in names:  # a CSV file of the model's reels where a sheet goes (the model itself: below)
        if os.path.realpath(os.path.join(args.out, n)) != os.path.realpath(args.model):
            check_not_an_input(os.path.join(args.out, n), args.model)
    model = os.path.realpath(args.model)
    for n in names:
        if os.path.realpath(os.path.join(args.out, n)) == model:
            print(f"error: --out: the par sheet {os.path.join(args.out, n)!r} would replace the model file "
                  f"{args.model!r}; choose another --out folder (or name the model .toml)", file=sys.stderr)
            return 2
    from analytic.cli.args import solve_workspace
    from analytic.solver.round import solve_game

    game = load_model(args.model)
    vi_z = None if args.vi_z is None else float(args.vi_z)
    ws = solve_workspace(game, args)
    sheet = build_sheet(game, solve_game(game, workspace=ws), vi_z=vi_z, workers=ws.workers)
    try:
        paths = write_reports(sheet, args.out, formats)
    except OSError as exc:  # e.g. the disk filled up; nothing is left behind
        print(f"error: --out: cannot write the reports into {args.out!r}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    for path in paths:
        print(path)
    return 0
