import sys
sys.path.insert(0, "tests/model/mechanics")
import test_check_game as t
import analytic.model.mechanics.engines as e
e_check = e.check_game
e.check_game = lambda g: None
from analytic.model.loader import load_model_text
from analytic.solver.round import solve_round
for case, (text, key, _) in sorted(t.CASES.items()):
    g = load_model_text(text, path="v.toml")
    for m in g.modes:
        try:
            r = solve_round(g, m); print(case, m, "SOLVED", r.rtp)
        except Exception as ex:
            print(case, m, type(ex).__name__, str(ex)[:120])
