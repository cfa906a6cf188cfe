"""Model text of Book of Ra Deluxe (case 09) for one of its reel sets."""

import json
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[2]
_SHARED = next((p for p in (_ROOT.parent / "shared", Path("/work/shared")) if p.is_dir()), _ROOT.parent / "shared")
CASE = _SHARED / "cases" / "case_09_slotopol_book_of_ra_deluxe.json"
NAMES = {1: "explorer", 2: "mummy", 3: "statue", 4: "scarab", 5: "ace", 6: "king", 7: "queen",
         8: "jack", 9: "ten", 10: "book"}


def load_case() -> dict:
    return json.loads(CASE.read_text())


def _strips(reels) -> str:
    return "[\n" + "".join("  [" + ", ".join(f'"{NAMES[s]}"' for s in r) + "],\n" for r in reels) + "]"


def bor_toml(set_index: int, case: dict | None = None) -> str:
    """TOML of Book of Ra Deluxe with regular reel set ``set_index`` (0..6)."""
    case = case or load_case()
    rs = case["regular_reel_sets"][set_index]
    pays = "\n".join(
        f"{NAMES[int(k)]} = {{ " + ", ".join(f"{i + 1} = {p}" for i, p in enumerate(v) if p) + " }"
        for k, v in case["line_pays"].items() if any(v))
    lines = ", ".join("[" + ", ".join(str(r - 1) for r in case["paylines"][str(i)]) + "]" for i in range(1, 11))
    syms = "\n".join(f'{NAMES[i]} = "regular"' for i in range(1, 10))
    choose = ", ".join(f'"{NAMES[i]}"' for i in range(1, 10))
    return f'''# Book of Ra Deluxe (slotopol/server reel sets), regular set {rs["rtp_key_pct"]}
# Generated from ../shared/cases/case_09_slotopol_book_of_ra_deluxe.json
[game]
name = "Book of Ra Deluxe ({rs["rtp_key_pct"]})"
reels = 5
rows = 3
total_bet = 10

[symbols]
{syms}
book = {{ role = "wild_scatter" }}

[paytable]
{pays}

[scatter]
symbols = ["book"]
pays = {{ 3 = 2, 4 = 20, 5 = 200 }}

[paylines]
lines = [{lines}]

[reels]
base = {_strips(rs["reels"])}
free = {_strips(case["free_spin_reels"])}

[modes.base]
cost = 1
reels = "base"

[features.free_spins]
kind = "free_spins"
reels = "free"
trigger = {{ symbols = ["book"], counts = {{ 3 = 10, 4 = 10, 5 = 10 }} }}
retrigger = {{ symbols = ["book"], counts = {{ 3 = 10, 4 = 10, 5 = 10 }} }}
expanding_symbol = {{ choose_from = [{choose}] }}

[rules]
line_wild_pay = "first_non_wild"
expanding_count = "cells"
expanding_line_win = "wild_led_only"

[design]
"rules.line_wild_pay" = "slotopol fixes a book-led line's symbol at its first non-book cell"
"rules.expanding_count" = "slotopol counts the cells showing the expanding symbol"
"rules.expanding_line_win" = "slotopol pays a line led by the expanding symbol only through the expansion"
'''


if __name__ == "__main__":
    Path(__file__).with_name("book_of_ra_deluxe_95.toml").write_text(bor_toml(3))
