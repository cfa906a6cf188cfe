"""Feature state graphs: the absorbing chain (:mod:`.chain`), the per-spin outcome
classes from the joint line walk (:mod:`.spin_outcomes`) and the export a
regulator inspects (:mod:`.export`, ``analytic graph``)."""
