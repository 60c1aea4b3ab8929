"""Scoring of model outputs the way the sibling benchmarks do it, on the toolkit's own core.

One package, four families of metrics, all reduced to the same symbolic machinery
(``check_plan``, ``Task`` stepping, a planner for optimal lengths):

* :mod:`toolkit.scoring.predict`: LLM-BabyBench *Predict* (final-state prediction:
  exact match, atom precision/recall/F1, set distance).
* :mod:`toolkit.scoring.plan`: LLM-BabyBench *Plan* (success, efficiency ratio),
  pgt's goal partial credit, ActPlan-1K (LCS, normalized LCS).
* :mod:`toolkit.scoring.babybench_batch`: LLM-BabyBench's Predict/Plan/Decompose items on
  BabyAI levels, as its ``evaluators/`` compute them (``babybench_tasks``, ``babybench_decompose``).
* :mod:`toolkit.scoring.lohoravens`: LoHoRavens' partial reward and success, as its
  ``Task.reward()`` / ``done()`` compute them (task families in ``lohoravens_families``).
* :mod:`toolkit.scoring.graph`: LookPlanGraph/GraSIF scene-graph tasks (success,
  plan precision, count goals).
* :mod:`toolkit.scoring.batch`: the JSON Lines batch forms and mean ± standard
  error summaries (Markdown, CSV).

:mod:`toolkit.scoring.metrics` holds the pure functions, with the conventions for
empty inputs written down once.
"""
