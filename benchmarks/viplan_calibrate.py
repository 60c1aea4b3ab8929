"""Calibrations fitted from ViPlan's released answers, not from the paper's tables.

``pgt import viplan-calibration RUN [RUN ...] --out DIR`` reads imported ViPlan
grounder runs (``pgt import viplan-results``) and writes one calibration file per
run (model x CoT x failure setting, every split): per split and predicate the
false-yes rate (``fp``: yes when the logged truth is no) and the false-no rate
(``fn``), from every yes/no answer the run logged (enumerations, preconditions,
effects); and the noise model the answers show.

The noise model comes from repeated questions: the same atom asked again in the
same state of the same episode (ViPlan's state changes only when an action runs,
so the number of actions run so far names the state). ``repeat_wrong`` is the
share of repeats that are wrong after a wrong answer. A temperature-0 model
repeats itself (``deterministic``); otherwise ``independent:persistence=p`` with
``p = (repeat_wrong - e) / (1 - e)``, e the run's error rate, since a persistent
wrong answer comes back with probability p and a fresh draw is wrong with
probability e. Replies that are neither yes nor no are counted and written down,
never turned into rates (pgt's noisy grounder always answers).

How unevenly the errors fall on episodes is fitted too, per split, as the
calibration's ``[clean]`` (:class:`grounders.calibration.ErrorModel`): the share c
of episodes answered without any error, the others wrong at ``p / (1 - c)``, ``p``
the split's rate. c is the share under which the expected number of error-free
episodes, ``sum_e c + (1 - c) (1 - p / (1 - c))^n_e`` over the released episodes'
first-answer counts ``n_e`` (a repeat in the same state left out), equals the
released number; 0 when evenly spread errors already leave as many clean.
The rates written for such a split are then the mean over episodes the noisy
grounder needs, not the mean over answers: ``(1 - c)`` times the rates among the
answers of the episodes that are not clean (every erring episode, and each
error-free one weighted by its chance of being an unlucky non-clean one,
``(1 - c)(1 - q)^n / (c + (1 - c)(1 - q)^n)`` with ``q = p / (1 - c)``). Erring
episodes run longer (replans, re-enumerations) and hold most of the answers, so
dividing the answer-mean rate by ``1 - c`` would make them about 1.4 times as wrong
as the released ones (GPT-4.1 CoT medium: 3.3% against 2.3%).

And how errors carry over states, as the noise model's ``sticky`` (the share of
each rate drawn once per atom and truth rather than per state): over atoms asked
in two successive enumerations of different states with the same truth, with
``b`` the share wrong in the later one after a right answer in the earlier and
``r`` the share wrong in the later one overall, ``sticky = 1 - b / r`` (a fresh
draw is wrong at ``(1 - sticky) r``, about).

And how an episode's errors gather on one object, as the noise model's ``focus``
(:mod:`benchmarks.viplan_focus`): the share of an episode's distinct wrong atoms
that mention its most-wrong object, matched by the noisy grounder's focus object.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from benchmarks.store import collect, read_records
from benchmarks.viplan_focus import EpisodeAtoms, episode_atoms, fit_focus
from toolkit.errors import PgtError

DOMAIN_TAG = {"blocksworld": "bw", "igibson": "hh"}
DETERMINISTIC_AT = 0.95  # repeat_wrong at or above this: the deterministic model


@dataclass
class Tally:
    """Answers of one predicate in one split: against the logged truth."""

    true_yes: int = 0
    true_no: int = 0  # fn
    false_yes: int = 0  # fp
    false_no: int = 0
    other: int = 0  # replies that were neither yes nor no

    def add(self, answer: str, truth: bool) -> None:
        if answer not in ("yes", "no"):
            self.other += 1
        elif truth:
            self.true_yes += answer == "yes"
            self.true_no += answer == "no"
        else:
            self.false_yes += answer == "yes"
            self.false_no += answer == "no"

    @property
    def answered(self) -> int:
        return self.true_yes + self.true_no + self.false_yes + self.false_no

    def fp(self) -> float:
        negatives = self.false_yes + self.false_no
        return self.false_yes / negatives if negatives else 0.0

    def fn(self) -> float:
        positives = self.true_yes + self.true_no
        return self.true_no / positives if positives else 0.0

    def accuracy(self) -> float:
        return (self.true_yes + self.false_no) / self.answered if self.answered else 1.0


@dataclass
class Fit:
    """What one run's answers say: rates per split and predicate, and how wrong answers repeat."""

    tallies: dict[str, dict[str, Tally]] = field(default_factory=lambda: defaultdict(dict))
    repeats: int = 0  # answers to an atom already answered in the same state (after a wrong answer)
    repeats_wrong: int = 0
    repeats_all: int = 0  # any repeat, whatever the first answer
    repeats_same: int = 0  # repeats with the same answer as the first
    episodes: list[tuple[str, int, int]] = field(default_factory=list)  # (split, first answers, wrong ones)
    # atoms of two successive enumerations in different states, truth unchanged: how many, and wrong in the later
    carried: int = 0
    carried_wrong: int = 0
    carried_after_right: int = 0  # ... of those answered right in the earlier one
    carried_after_right_wrong: int = 0
    distinct: list[EpisodeAtoms] = field(default_factory=list)  # per episode: its distinct answered atoms
    # episodes without a wrong answer: (split, first answers, per predicate (answers truth yes, truth no))
    error_free: list[tuple[str, int, dict[str, tuple[int, int]]]] = field(default_factory=list)
    _focus: float | None = field(default=None, repr=False)  # fitted once (a Monte Carlo fit, not free)
    # per split: replies neither yes nor no and all replies, in the episode's first question batch and later
    replies: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0, 0, 0]))
    # per split: each episode's replans whose enumeration went unlogged (a bad reply ended it), and the size
    # of its first logged enumeration (None: none logged); the sizes of every logged enumeration
    unlogged: list[tuple[str, int, int | None]] = field(default_factory=list)
    enumeration_sizes: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))

    def error_rate(self) -> float:
        wrong = sum(t.true_no + t.false_yes for s in self.tallies.values() for t in s.values())
        total = sum(t.answered for s in self.tallies.values() for t in s.values())
        return wrong / total if total else 0.0

    def repeat_wrong(self) -> float | None:
        return self.repeats_wrong / self.repeats if self.repeats else None

    def clean(self, split: str) -> float:
        """The share of clean episodes that explains one split's error-free episodes (module docstring)."""
        mine = [(n, x) for s, n, x in self.episodes if s == split]
        answered, wrong = sum(n for n, _ in mine), sum(x for _, x in mine)
        if not wrong:
            return 0.0
        p = wrong / answered
        observed = sum(x == 0 for _, x in mine)

        def expected(c: float) -> float:  # error-free episodes when a share c is clean, the rest at p / (1 - c)
            rest = max(0.0, 1.0 - p / (1.0 - c))
            return sum(c + (1.0 - c) * rest ** n for n, _ in mine)

        if expected(0.0) >= observed:
            return 0.0
        low, high = 0.0, min(0.99, 1.0 - p)
        for _ in range(60):
            mid = (low + high) / 2
            low, high = (mid, high) if expected(mid) < observed else (low, mid)
        return round(low, 3)

    def rates(self, split: str, predicate: str) -> tuple[float, float]:
        """(fp, fn) of one predicate as the noisy grounder's mean over episodes (module docstring): the
        released rates when no episode is clean, else (1 - c) times the rates among the answers of
        the episodes that are not clean (an error-free episode counted as clean with its posterior)."""
        tally = self.tallies[split][predicate]
        c = self.clean(split)
        if not c:
            return tally.fp(), tally.fn()
        mine = [(n, x) for s, n, x in self.episodes if s == split]
        q = min(1.0, sum(x for _, x in mine) / sum(n for n, _ in mine) / (1.0 - c))
        positives = tally.true_yes + tally.true_no
        negatives = tally.false_yes + tally.false_no
        for s, n, counts in self.error_free:
            if s != split or predicate not in counts:
                continue
            lucky = (1.0 - c) * (1.0 - q) ** n
            clean_share = c / (c + lucky)  # P(clean | no error in n answers)
            positives -= clean_share * counts[predicate][0]
            negatives -= clean_share * counts[predicate][1]
        fp = (1.0 - c) * tally.false_yes / negatives if negatives > 0 else 0.0
        fn = (1.0 - c) * tally.true_no / positives if positives > 0 else 0.0
        return min(1.0, fp), min(1.0, fn)

    def neither(self, split: str) -> tuple[float, float]:
        """Shares of replies neither yes nor no in the episode's first question batch and in later ones.

        The first batch is the run of answers before anything else happens (Blocksworld:
        the initial enumeration; household, which starts from the true state: the first
        action's check).

        A replan whose enumeration ViPlan never logged ended on such a reply
        (:func:`benchmarks.viplan_episodes.grounder_episode`: ``logged: False``); it
        counts as one among as many replies as the episode's first logged
        enumeration held (else the split's mean logged enumeration).
        """
        first_other, first_all, later_other, later_all = self.replies[split]
        sizes = self.enumeration_sizes[split]
        mean = sum(sizes) / len(sizes) if sizes else 1.0
        for where, count, size in self.unlogged:
            if where == split and count:
                later_other += count
                later_all += count * (size if size is not None else mean)
        return (first_other / first_all if first_all else 0.0, later_other / later_all if later_all else 0.0)

    def sticky(self) -> float:
        """The share of the error rate tied to the atom across states (module docstring); 0 without evidence."""
        if not self.carried_wrong or not self.carried_after_right:
            return 0.0
        fresh = self.carried_after_right_wrong / self.carried_after_right
        return round(max(0.0, min(1.0, 1.0 - fresh / (self.carried_wrong / self.carried))), 3)

    def focus(self) -> float:
        """The share of the error rate on one object per episode (:mod:`benchmarks.viplan_focus`)."""
        def rate(split: str, predicate: str, truth: bool) -> float:
            tally = self.tallies.get(split, {}).get(predicate)
            return 0.0 if tally is None else tally.fn() if truth else tally.fp()

        if self._focus is None:
            self._focus = fit_focus(self.distinct, rate)
        return self._focus

    def noise(self) -> str:
        """The noise model the repeats, the successive enumerations and the wrong atoms' objects show
        (see the module docstring)."""
        rw = self.repeat_wrong()
        extra = [f"{name}={value:g}" for name, value in (("sticky", self.sticky()), ("focus", self.focus())) if value]
        if rw is None or rw >= DETERMINISTIC_AT:
            return "deterministic" + (":" + ",".join(extra) if extra else "")
        e = self.error_rate()
        persistence = max(0.0, min(1.0, (rw - e) / (1 - e))) if e < 1 else 1.0
        return ",".join([f"independent:persistence={round(persistence, 3):g}", *extra])


def fit_records(records: Iterable[dict[str, Any]]) -> Fit:
    """Tally every answer event of the records (pgt's or imported ViPlan ones) against its truth."""
    fit = Fit()
    for record in records:
        first: dict[tuple[int, str], str] = {}
        wrong_first = 0
        batch: tuple[Any, Any] | None = None  # (phase, step) of the episode's first question batch
        for event in record.get("events", ()):
            if "atom" not in event or "truth" not in event:
                if batch is not None:
                    batch = ("done", None)  # a plan, an action, a replan: the first batch is over
                continue
            atom, answer, truth = str(event["atom"]), str(event.get("answer")), bool(event["truth"])
            predicate = atom.strip("()").split(" ", 1)[0].lower()
            fit.tallies[record["split"]].setdefault(predicate, Tally()).add(answer, truth)
            if batch is None:
                batch = (event.get("phase"), event.get("step"))
            later = 0 if batch == (event.get("phase"), event.get("step")) else 2
            fit.replies[record["split"]][later] += answer not in ("yes", "no")
            fit.replies[record["split"]][later + 1] += 1
            if answer not in ("yes", "no"):
                continue
            key = (int(event.get("step", 0)), atom)
            wrong = (answer == "yes") != truth
            if key in first:
                fit.repeats_all += 1
                fit.repeats_same += first[key] == answer
                if (first[key] == "yes") != truth:
                    fit.repeats += 1
                    fit.repeats_wrong += wrong
            else:
                first[key] = answer
                wrong_first += wrong
        if first:
            fit.episodes.append((str(record["split"]), len(first), wrong_first))
            _error_free(fit, record)
        _carry(fit, record.get("events", ()))
        _enumerations(fit, record)
        fit.distinct.append(episode_atoms(str(record["split"]), record.get("events", ())))
    return fit


def _enumerations(fit: Fit, record: dict[str, Any]) -> None:
    """Note the episode's logged enumeration sizes and its replans whose enumeration went unlogged."""
    events = record.get("events", ())
    sizes: dict[int, int] = {}
    for event in events:
        if event.get("phase") == "enumerate":
            step = int(event.get("step", 0))
            sizes[step] = sizes.get(step, 0) + 1
    split = str(record["split"])
    fit.enumeration_sizes[split].extend(sizes.values())
    unlogged = sum(1 for e in events if e.get("phase") == "replan" and e.get("logged") is False)
    fit.unlogged.append((split, unlogged, next(iter(sizes.values()), None)))


def _error_free(fit: Fit, record: dict[str, Any]) -> None:
    """Note an episode none of whose yes/no answers is wrong: its first answers and per-predicate counts."""
    counts: dict[str, list[int]] = {}
    firsts: set[tuple[int, str]] = set()
    for event in record.get("events", ()):
        if "atom" not in event or "truth" not in event or event.get("answer") not in ("yes", "no"):
            continue
        truth = bool(event["truth"])
        if (event["answer"] == "yes") != truth:
            return
        firsts.add((int(event.get("step", 0)), str(event["atom"])))
        predicate = str(event["atom"]).strip("()").split(" ", 1)[0].lower()
        counts.setdefault(predicate, [0, 0])[0 if truth else 1] += 1
    fit.error_free.append((str(record["split"]), len(firsts), {p: (a, b) for p, (a, b) in counts.items()}))


def _carry(fit: Fit, events: Iterable[dict[str, Any]]) -> None:
    """Tally atoms asked in two successive enumerations of different states with the same truth."""
    previous: dict[str, tuple[bool, bool, int]] | None = None
    block: dict[str, tuple[bool, bool, int]] = {}
    for event in [*events, {"phase": "end"}]:
        if event.get("phase") == "enumerate" and "truth" in event:
            if event.get("answer") in ("yes", "no"):
                truth = bool(event["truth"])
                block[str(event["atom"])] = (truth, (event["answer"] == "yes") != truth, int(event.get("step", 0)))
            continue
        if not block:
            continue
        if previous is not None:
            for atom, (truth, wrong, step) in block.items():
                before = previous.get(atom)
                if before is None or before[0] != truth or before[2] == step:
                    continue
                fit.carried += 1
                fit.carried_wrong += wrong
                if not before[1]:
                    fit.carried_after_right += 1
                    fit.carried_after_right_wrong += wrong
        previous, block = block, {}


def calibration_text(fit: Fit, meta: dict[str, Any], source: str) -> str:
    """The calibration file (TOML) with its provenance: run, counts, noise evidence."""
    splits = [s for s in ("simple", "medium", "hard") if s in fit.tallies] + \
        sorted(s for s in fit.tallies if s not in ("simple", "medium", "hard"))
    rw = fit.repeat_wrong()
    lines = [
        f"# Noisy-oracle calibration fitted from ViPlan's released answers: {meta['model']} on ViPlan's "
        f"{meta['domain']} grounder runs, {'with' if meta['cot'] else 'without'} chain of thought"
        + (f", action failures {meta['fail']:g}" if meta["fail"] else "") + ".",
        "# Written by `pgt import viplan-calibration` (benchmarks/viplan_calibrate.py): fp = P(yes | logged truth no),",
        "# fn = P(no | logged truth yes) over every yes/no answer the run logged (enumerations, preconditions,",
        "# effects); replies that were neither yes nor no are counted below, not turned into rates. Where a",
        "# split has clean episodes, its rates are (1 - clean) x the rates among the answers of the other",
        "# episodes, so the grounder's 1 / (1 - clean) gives those episodes' released rates back.",
        f"# Repeats (same atom, same state, same episode): {fit.repeats_all}, same answer {fit.repeats_same}; "
        f"after a wrong answer {fit.repeats}, wrong again {fit.repeats_wrong}"
        + (f" ({rw:.3f})" if rw is not None else "") + f"; error rate {fit.error_rate():.4f}.",
        f'model = "{meta["model"]}"',
        f'domain = "{"household" if meta["domain"] == "igibson" else meta["domain"]}"',
        f"chain_of_thought = {str(meta['cot']).lower()}",
        f'source = "{source}"',
        'conversion = "fitted: per-predicate fp and fn from the logged answers and truth"',
        f"action_failure = {meta['fail']:g}",
    ]
    if rw is not None:  # no repeat after a wrong answer: no evidence either way, the default model stays
        lines.append(f"repeat_wrong = {round(rw, 4)}")
    for split in splits:
        lines += ["", f"[accuracy.{split}]"]
        lines += [f"{p} = {t.accuracy():.4f}  # {t.answered} answers, {t.other} neither yes nor no"
                  for p, t in sorted(fit.tallies[split].items())]
    for split in splits:
        for p in sorted(fit.tallies[split]):
            fp, fn = fit.rates(split, p)
            lines += ["", f"[rates.{split}.{p}]", f"fp = {fp:.4f}", f"fn = {fn:.4f}"]
    lines += ["", "[clean]  # share of episodes without any error; the others are wrong at rates / (1 - clean)"]
    lines += [f"{split} = {fit.clean(split):g}" for split in splits]
    neither = {split: fit.neither(split) for split in splits}
    if any(any(pair) for pair in neither.values()):
        lines += ["", "[neither]  # per split: share of replies neither yes nor no [first question batch, later ones]; "
                  "a replan enumeration ViPlan never logged (a reply ended it) counts as one among its atoms"]
        lines += [f"{split} = [{first:.4g}, {later:.4g}]" for split, (first, later) in neither.items()]
    noise = fit.noise()
    kind, _, params = noise.partition(":")
    lines += ["", "[noise]", f'kind = "{kind}"']
    for item in filter(None, params.split(",")):
        name, _, value = item.partition("=")
        lines.append(f"{name} = {value}")
    return "\n".join(lines) + "\n"


def calibration_name(meta: dict[str, Any]) -> str:
    """``viplan-logs-bw-cot-gpt-4.1``: where a fitted calibration is written."""
    fail = f"-fail{meta['fail']:g}" if meta["fail"] else ""
    return f"viplan-logs-{DOMAIN_TAG.get(meta['domain'], meta['domain'])}{'-cot' if meta['cot'] else ''}{fail}-{meta['model']}"


def fit_run(folder: str | Path, out: str | Path) -> Path:
    """Fit one imported grounder run and write its calibration file into ``out``; returns the path."""
    folder = Path(folder)
    records = collect(read_records(folder / "episodes.jsonl")).judged
    if not records:
        raise PgtError(f"{folder}: no episodes (import ViPlan results first: pgt import viplan-results)")
    first = records[0]
    imported = first.get("imported")
    if not isinstance(imported, dict) or first.get("config", {}).get("protocol") != "viplan-grounder":
        raise PgtError(f"{folder}: not an imported ViPlan grounder run (pgt import viplan-results writes those)")
    domain = "igibson" if "igibson" in str(first["config"].get("domain", "")) else "blocksworld"
    meta = {"model": first["config"]["model"], "domain": domain, "cot": bool(imported.get("cot")),
            "fail": float(imported.get("fail_probability") or 0.0)}
    files = sorted({str(r["imported"]["file"]) for r in records})
    source = f"ViPlan's released results (merlerm/ViPlan): {', '.join(files)}"
    path = Path(out) / f"{calibration_name(meta)}.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(calibration_text(fit_records(records), meta, source), encoding="utf-8")
    return path


def register_kind(kinds: argparse._SubParsersAction) -> None:
    c = kinds.add_parser("viplan-calibration",
                         help="fit noisy-oracle calibrations from imported ViPlan grounder runs' answers")
    c.add_argument("runs", nargs="+", help="run folders written by pgt import viplan-results (grounder runs)")
    c.add_argument("--out", required=True, help="folder for the calibration files")
    c.set_defaults(func=calibration_cmd)


def calibration_cmd(args: argparse.Namespace) -> int:
    for folder in args.runs:
        path = fit_run(folder, args.out)
        print(f"{path}: fitted from {folder}")
    return 0


def summary(path: Path) -> dict[str, Any]:
    """A fitted file's header numbers (for benchmarks and docs)."""
    import tomllib

    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return {k: data[k] for k in ("model", "domain", "chain_of_thought", "repeat_wrong") if k in data} | {
        "noise": json.dumps(data.get("noise", {}))}
