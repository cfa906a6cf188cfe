"""The feature engine: a declared feature's exact solve.

* :mod:`.engines` -- the solvers an engine name is bound to (chosen at load from the
  declared mechanics, :mod:`analytic.model.mechanics.engines`);
* :mod:`.graph` -- state graphs: the absorbing chain, per-spin outcome classes, the export;
* :mod:`.laws` -- laws of the total win: Wald's closed forms, the retrigger law, capped laws;
* :mod:`.result` -- what a feature solver returns, and the solver registries;
* :mod:`.catalog` -- importing it registers every engine.

Where a free-spin state is defined: the mechanics' declarations in
:mod:`analytic.model.mechanics`, the states an engine walks in its module.
"""
