import sys, importlib.util, time
spec = importlib.util.spec_from_file_location("t", "tests/features/engines/test_wald_max_spins.py")
t = importlib.util.module_from_spec(spec); spec.loader.exec_module(t)
from analytic.model.loader import load_model_text
from analytic.solver.round import solve_round
from analytic.solver import cap as capmod
from analytic.errors import ModelError
txt = t.RETRIG + "\n[cap]\ntotal_bet_multiple = 5\n"
g = load_model_text(txt)
print(capmod.check_round_cap.__doc__[:30])
orig = capmod.check_round_cap
# bypass precheck to see the late behaviour
import analytic.solver.round as r
try:
    capmod_check = capmod.check_round_cap
    capmod.check_round_cap = lambda *a, **k: None
    res = solve_round(g)
    print("late: solved", res.rtp)
except ModelError as e:
    print("late:", e)
capmod.check_round_cap = capmod_check
try:
    solve_round(g); print("early: solved")
except ModelError as e:
    print("early:", e)
