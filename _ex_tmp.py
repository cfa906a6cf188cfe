import time, sys
sys.path.insert(0, "tests/features/engines")
from pathlib import Path
import importlib.util
spec = importlib.util.spec_from_file_location("t", "tests/features/engines/test_revealed_wild_reels_retrigger.py")
t = importlib.util.module_from_spec(spec); spec.loader.exec_module(t)
from analytic.model import load_model_text
from analytic.solver.round import solve_round
txt = t._boce_variant("{ 3 = 10 }", cap=True)
open("/tmp/refusals_variant.toml","w").write(txt)
t0=time.time()
g = load_model_text(txt, path=str(t.MODELS / "variant.toml"))
print("load", time.time()-t0)
import cProfile, pstats
pr = cProfile.Profile(); pr.enable()
try:
    solve_round(g, "buy")
except Exception as e:
    print(type(e), e)
pr.disable()
print("total", time.time()-t0)
pstats.Stats(pr).sort_stats("cumulative").print_stats(40)
