"""Laws of a feature's total win: Wald's closed forms (:mod:`.wald`), the
retrigger law (:mod:`.retrigger_law`) and exact laws truncated at a win cap
(:mod:`.capped`), and the law of the spins played and the retriggers
(:mod:`.spins_played`).  Derivations: ``docs/derivations.md`` sections 3, 6
and 13."""
