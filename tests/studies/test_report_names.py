"""Plots over one protocol on several domains name each series by what it ran on (labels alone repeat)."""

from __future__ import annotations

from benchmarks.report import Run, _distinct_names
from benchmarks.study_config import RunConfig


def _run(name: str, **config) -> Run:
    cfg = RunConfig(protocol="pgt-grounder", grounder="noisy", **{"accuracy": 0.97, **config})
    return Run(name, cfg.label(), [{"config": cfg.to_dict()}])


def test_repeated_labels_get_the_domain_or_suite_in_front() -> None:
    runs = [_run("pgt", suite="/x/ferry/problems", domain="/x/ferry/domain.pddl"),
            _run("pgt", suite="/x/tsp/problems", domain="/x/tsp/domain.pddl"),
            _run("bw", suite="viplan-bw/hard")]
    assert _distinct_names(runs) == ["ferry: pgt-grounder[acc=0.97]", "tsp: pgt-grounder[acc=0.97]",
                                     "viplan-bw/hard: pgt-grounder[acc=0.97]"]


def test_distinct_labels_stay_as_they_are() -> None:
    runs = [_run("a", suite="viplan-bw"), _run("b", suite="viplan-bw", accuracy=0.9)]
    assert _distinct_names(runs) == [r.label for r in runs]
