"""Size limits on what ``analytic`` reads and what each report format presents.

Every limit is checked before any long work starts; a model or command line
beyond one is refused with ``error: FILE: KEY.PATH: reason`` (exit code 2).
The limits are stated in ``README.md`` (Limits) and ``docs/model-format.md``.

Reading (model files and the CSV files they name)
    At most :data:`MAX_REELS` reels and :data:`MAX_ROWS` rows, a cycle of at
    most :data:`MAX_CYCLE_DIGITS` digits per reel set; :data:`MAX_FILE_BYTES` per file, regular files only, CSV files inside the
    model's folder after resolving symbolic links; :data:`MAX_NESTING` levels
    of nested tables and lists; :data:`MAX_TEXT_CHARS` characters per string
    and :data:`MAX_KEY_CHARS` per key, no control characters (a tab or line
    break only inside free text); integers of at most :data:`MAX_INTEGER`
    in absolute value; a trigger's award at most :data:`MAX_AWARD` spins; a
    pick bonus at most :data:`MAX_PICK_PRIZES` prizes (picks x prizes per pick), a
    pick-until-collect board at most :data:`MAX_BOARD_STATES` states and
    :data:`MAX_BOARD_TILES` tiles; a spin's largest possible win at most :data:`MAX_SPIN_WIN`
    total bets; exact-number strings of at most
    :data:`MAX_NUMBER_CHARS` characters with a decimal exponent within
    +/- :data:`MAX_EXPONENT`.

Command lines
    ``--rounds`` at most :data:`MAX_ROUNDS`; ``--seed`` 0 .. :data:`MAX_SEED`.

Reports
    The stop-by-stop strip table is written to the PDF only up to
    :data:`PDF_MAX_STOPS` stops and :data:`PDF_MAX_REELS` reels (per-reel
    tables too), to the XLSX workbook up to :data:`XLSX_MAX_STOPS` stops;
    beyond that the sheet says where to find it (Markdown and JSON always
    hold every stop).
"""

from __future__ import annotations

__all__ = [
    "MAX_REELS", "MAX_ROWS", "MAX_CYCLE_DIGITS", "MAX_FILE_BYTES", "MAX_NESTING", "MAX_TEXT_CHARS", "MAX_KEY_CHARS", "MAX_INTEGER",
    "MAX_NUMBER_CHARS", "MAX_EXPONENT", "MAX_AWARD", "MAX_PICK_PRIZES", "MAX_BOARD_STATES", "MAX_BOARD_TILES", "MAX_COUNT_DIGITS", "MAX_SPIN_WIN", "MAX_WALK_ENTRIES", "MAX_GIFT_OUTCOMES", "MAX_GIFT_SPIN_CLASSES", "MAX_ROUNDS", "MAX_SEED",
    "PDF_MAX_STOPS", "PDF_MAX_REELS", "XLSX_MAX_STOPS", "MAX_SHOWN_CHARS",
]

#: Most reels of a game.
MAX_REELS = 1000
#: Most rows of a game's window.
MAX_ROWS = 1000
#: Most decimal digits of a reel set's cycle (the product of its strip lengths); Python turns an
#: integer of more than 4,300 digits into text only with the limit lifted.
MAX_CYCLE_DIGITS = 1000
#: Bytes of one model file or one CSV strip file (64 MiB).
MAX_FILE_BYTES = 64 * 1024 * 1024
#: Levels of nested tables and lists (a dotted key ``a.b.c`` is three levels).
MAX_NESTING = 32
#: Characters of one string value (a name, a description, a design reason).
MAX_TEXT_CHARS = 2000
#: Characters of one table key.
MAX_KEY_CHARS = 200
#: Largest absolute value of a TOML integer (a pay, weight, count or cost).
MAX_INTEGER = 10**18
#: Characters of an exact-number string (``"401/2"``, ``"0.25"``).
MAX_NUMBER_CHARS = 64
#: Largest absolute decimal exponent in an exact-number string (``"1e-30"``).
MAX_EXPONENT = 30
#: Largest award of a trigger or retrigger count (free spins): the exact solve's time grows with it
#: (Atkins Diet's free spins: 10,000 spins about 1 s, 1,000,000 about 15 s, 10^8 minutes).
MAX_AWARD = 10_000
#: Most prizes a pick bonus reveals (most picks x most prizes per pick): the exact law's time grows
#: with it (Lobstermania's prize table: 12 prizes 0.5 s, 30 about 5 s, 39 about 10 s).
MAX_PICK_PRIZES = 40
#: Most states of a pick-until-collect board's exact recursion (product over the distinct prize and
#: multiplier tiles of copies + 1): its time and memory grow with it.
MAX_BOARD_STATES = 20_000
#: Most tiles on a pick-until-collect board (collect tiles included): the exact law's factorials grow with it.
MAX_BOARD_TILES = 500
#: Largest win one spin (or one pick bonus) could pay, in total-bet multiples, bounded from the model
#: (the largest pay times the wild multipliers over every reel, the lines, the feature's multipliers):
#: every figure is also given as a float64 (at most 1.8e308), among them the second moment of a round,
#: the square of its win; a 20-reel line of x10^18 wilds (a win of 10^378) stopped with an
#: ``OverflowError`` traceback after the solve.
MAX_SPIN_WIN = 10**100
#: Most entries of one array of the joint line walk (:mod:`analytic.engine.linewalk`): the live lines of
#: the joint states after a reel, a reel's distinct outcomes, the distinct partial states (int64 each,
#: 800 MB): 20,000 paylines on a 5x100 window grew the walk past 17 GB of memory and ended in a
#: ``SystemError``; the largest seen in a sane game, 800 paylines on 5x100, is 3.8e7.
MAX_WALK_ENTRIES = 10**8
#: Most gift classes a gift pick's exact law may tell apart, bounded from the model: the multisets of
#: ``picks`` gifts from the gift entries, ``C(entries + picks, picks)`` (the law is built entry by entry;
#: 20 spin gifts picked 3 at a time enumerated 4^20 tuples and never ended).
MAX_GIFT_OUTCOMES = 10**6
#: Most free-spin classes (wild reels, wild symbols, expanding symbol) a gift pick can start, bounded
#: from the model: each is an exact walk of the free reel set (10 wild-symbol and 5 wild-reel gifts
#: picked 5 at a time: 4,944 walks).
MAX_GIFT_SPIN_CLASSES = 500
#: Digits of a count used as a table key (``{ 3 = 10 }``).
MAX_COUNT_DIGITS = 9
#: Most rounds one ``simulate`` / ``verify`` run plays (about 5 hours at 600,000 rounds/s on one core).
MAX_ROUNDS = 10**10
#: Largest ``--seed`` (numpy's SeedSequence takes any integer >= 0; 2**128 - 1 keeps it one word pair).
MAX_SEED = 2**128 - 1
#: Longest strip whose stop table the PDF par sheet prints.
PDF_MAX_STOPS = 1000
#: Most reels the PDF par sheet prints per-reel tables for (an A4 page's width).
PDF_MAX_REELS = 12
#: Longest strip whose stop table the XLSX par sheet writes.
XLSX_MAX_STOPS = 100_000
#: Characters of a value quoted in an error message (longer values are cut, with "...").
MAX_SHOWN_CHARS = 60
