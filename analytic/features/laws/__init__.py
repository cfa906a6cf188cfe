"""Laws of a feature's total win: Wald's closed forms (:mod:`.wald`), the
retrigger law (:mod:`.retrigger_law`) and exact laws truncated at a win cap
(:mod:`.capped`).  Derivations: ``docs/derivations.md`` sections 3 and 6."""
