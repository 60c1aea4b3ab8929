"""The study runner: suite x protocol x grounder x seed, in parallel, resumable.

Every finished episode is appended at once to ``<out>/episodes.jsonl`` (one JSON
object a line, schema-versioned, flushed), so an interrupt loses nothing that
finished. Re-running the same command skips the episodes already in the file
and never writes one twice; a different configuration in the same folder is
refused. Each episode's randomness comes only from (seed, problem), so results do
not depend on the number of workers or their scheduling.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import multiprocessing
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

from benchmarks.suites import Split, resolve_suite
from toolkit.errors import PgtError
from toolkit.task import Task, load_domain_cached
from toolkit import loader
from toolkit import jsontext

SCHEMA = 1
PROTOCOLS = ("viplan-grounder", "viplan-planner", "pgt-grounder")
GROUNDERS = ("oracle", "noisy", "vlm", "replay")


@dataclass(frozen=True)
class RunConfig:
    """Everything that decides an episode's outcome (timings aside)."""

    suite: str
    protocol: str = "viplan-grounder"
    grounder: str = "noisy"
    accuracy: float | None = None
    calibration: str | None = None
    fp: float | None = None
    fn: float | None = None
    persistence: float = 0.0
    action_failure: float = 0.0
    seeds: int = 1
    domain: str | None = None
    max_steps: int | None = None
    planner: str = "default"
    model: str | None = None
    base_url: str | None = None
    cot: bool = False
    replay: str | None = None
    problems: int | None = None  # first N problems of each split (None: all)

    def noise_label(self) -> str:
        """What the grounder gets wrong, e.g. ``acc=0.97`` or ``cal=viplan-bw-cot-gpt-4.1``."""
        if self.grounder == "noisy":
            return (f"cal={calibration_name(self.calibration)}" if self.calibration else
                    f"fp={self.fp},fn={self.fn}" if self.fp is not None else f"acc={self.accuracy}")
        if self.grounder == "vlm":
            return f"model={self.model}" + (",cot" if self.cot else "")
        return self.grounder

    @property
    def suite_family(self) -> str:
        """The suite without its split selection: ``viplan-bw`` for ``viplan-bw/hard``."""
        return self.suite.split("/")[0]

    def label(self) -> str:
        """A short name for tables and plots."""
        fail = f",fail={self.action_failure}" if self.action_failure else ""
        return f"{self.protocol}[{self.noise_label()}{fail}]"


def calibration_name(name_or_path: str) -> str:
    """``viplan-bw-cot-gpt-4.1`` for that name or for ``.../viplan-bw-cot-gpt-4.1.toml`` (keeps the ``.1``)."""
    name = Path(name_or_path).name
    return name.rsplit(".", 1)[0] if name.endswith((".toml", ".json")) else name


@dataclass(frozen=True)
class EpisodeSpec:
    config: RunConfig
    split: str
    domain: str
    problem: str
    seed: int
    max_steps: int

    @property
    def id(self) -> str:
        return f"{self.split}/{Path(self.problem).stem}/seed{self.seed}"


def episode_specs(config: RunConfig) -> list[EpisodeSpec]:
    splits: list[Split] = resolve_suite(config.suite, config.domain, config.max_steps)
    return [EpisodeSpec(config, s.name, str(s.domain), str(p), seed, s.max_steps)
            for s in splits for p in s.problems[: config.problems] for seed in range(config.seeds)]


# ------------------------------------------------------------------ episode


@functools.lru_cache(maxsize=256)
def _task(domain: str, problem: str) -> Task:
    dom = load_domain_cached(domain)
    return Task(dom, loader.load_problem(problem, dom))


def _episode_seed(spec: EpisodeSpec) -> int:
    import zlib

    return zlib.crc32(f"{Path(spec.problem).stem}|{spec.seed}".encode())


def make_environment(task: Task, spec: EpisodeSpec, seed: int):
    from scene_graphs.registry import WORLDS, make_world
    from toolkit.simulator import SymbolicEnvironment

    if task.domain.name.lower() in WORLDS:
        return make_world(task, failure_prob=spec.config.action_failure, seed=seed)
    return SymbolicEnvironment(task, spec.config.action_failure, seed)


def make_grounder(task: Task, spec: EpisodeSpec, seed: int):
    from grounders.factory import build_grounder

    return build_grounder(spec.config, task, spec.split, seed)


@functools.lru_cache(maxsize=8)
def make_planner(name: str):
    """One planner (with its plan cache) per process and name."""
    from toolkit.planners import DEFAULT_PLANNER, get_planner

    return get_planner(DEFAULT_PLANNER if name == "default" else name)


@functools.lru_cache(maxsize=256)
def predictions_needed(domain: str, problem: str, max_steps: int) -> int:
    """Questions the ViPlan protocol asks with a perfect grounder (the x axis of ViPlan's Figure 2)."""
    from grounders.oracle import Oracle
    from toolkit.agents.viplan import ViPlanGrounderConfig, run_viplan_grounder
    from toolkit.simulator import SymbolicEnvironment

    task = _task(domain, problem)
    result = run_viplan_grounder(SymbolicEnvironment(task), Oracle(privileged=True), make_planner("default"),
                                 ViPlanGrounderConfig(max_steps=max_steps))
    return result.ledger.questions


def run_episode(spec: EpisodeSpec) -> dict[str, Any]:
    """Run one episode and return its JSON record (never raises for a failed episode)."""
    task = _task(spec.domain, spec.problem)
    seed = _episode_seed(spec)
    record: dict[str, Any] = {
        "schema": SCHEMA, "id": spec.id, "suite": spec.config.suite, "split": spec.split,
        "problem": Path(spec.problem).stem, "seed": spec.seed, "label": spec.config.label(),
        "config": dataclasses.asdict(spec.config),
    }
    try:
        env = make_environment(task, spec, seed)
        protocol = PROTOCOL_RUNNERS[spec.config.protocol]
        result = protocol(task, env, spec, seed)
        record["predictions_needed"] = predictions_needed(spec.domain, spec.problem, spec.max_steps)
        record.update(result.to_json())
    except PgtError as exc:
        record.update(success=False, stop_reason="error", error=str(exc))
    return record


def _viplan_grounder(task: Task, env, spec: EpisodeSpec, seed: int):
    from toolkit.agents.viplan import ViPlanGrounderConfig, run_viplan_grounder

    return run_viplan_grounder(env, make_grounder(task, spec, seed), make_planner(spec.config.planner),
                               ViPlanGrounderConfig(max_steps=spec.max_steps), seed)


def _viplan_planner(task: Task, env, spec: EpisodeSpec, seed: int):
    from grounders.factory import build_proposer
    from toolkit.agents.vlm_planner import ViPlanPlannerConfig, run_viplan_planner
    from toolkit.questions import QuestionBook

    book = QuestionBook.for_task(task)
    return run_viplan_planner(env, build_proposer(spec.config, task, seed),
                              ViPlanPlannerConfig(spec.max_steps, spec.config.cot), seed, goal_text=book.goal_text)


def _pgt_grounder(task: Task, env, spec: EpisodeSpec, seed: int):
    from toolkit.agents.belief_agent import BeliefAgentConfig, run_belief_agent

    return run_belief_agent(env, make_grounder(task, spec, seed), make_planner(spec.config.planner),
                            BeliefAgentConfig(max_steps=spec.max_steps), seed)


PROTOCOL_RUNNERS: dict[str, Callable[..., Any]] = {
    "viplan-grounder": _viplan_grounder,
    "viplan-planner": _viplan_planner,
    "pgt-grounder": _pgt_grounder,
}

# -------------------------------------------------------------------- files


def read_records(path: Path) -> list[dict[str, Any]]:
    """Complete records of an episodes file; a torn last line (killed mid-write) is dropped."""
    if not path.is_file():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            rec = jsontext.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(rec, dict) and rec.get("schema") == SCHEMA:
            out.append(rec)
    return out


def _prepare_out(out: Path, config: RunConfig) -> set[str]:
    out.mkdir(parents=True, exist_ok=True)
    cfg_path = out / "config.json"
    wanted = dataclasses.asdict(config)
    if cfg_path.is_file():
        have = json.loads(cfg_path.read_text(encoding="utf-8"))
        diff = [k for k in wanted if have.get(k) != wanted[k] and k != "seeds"]
        if diff:
            detail = ", ".join(f"{k}: {have.get(k)!r} there, {wanted[k]!r} now" for k in diff)
            raise PgtError(f"{out} holds a run with another configuration ({detail}); use another --out")
    cfg_path.write_text(json.dumps(wanted, indent=2) + "\n", encoding="utf-8")
    episodes = out / "episodes.jsonl"
    records = read_records(episodes)
    if episodes.is_file():  # rewrite without a torn last line, so appends stay line-aligned
        text = episodes.read_text(encoding="utf-8")
        if text and not text.endswith("\n"):
            episodes.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return {r["id"] for r in records}


class Progress:
    """A one-line progress bar on stderr (silent when stderr is not a terminal, except at the end)."""

    def __init__(self, total: int, done: int, label: str) -> None:
        self.total, self.done, self.label = total, done, label
        self.new, self.successes, self.start = 0, 0, time.perf_counter()
        self.tty = sys.stderr.isatty()

    def update(self, record: dict[str, Any]) -> None:
        self.done += 1
        self.new += 1
        self.successes += bool(record.get("success"))
        if self.tty:
            self._draw()

    def _draw(self, end: str = "") -> None:
        rate = self.new / max(time.perf_counter() - self.start, 1e-9)
        left = (self.total - self.done) / rate if rate else 0.0
        width = 24
        filled = int(width * self.done / max(self.total, 1))
        bar = "#" * filled + "." * (width - filled)
        sr = self.successes / self.new if self.new else 0.0
        print(f"\r{self.label} [{bar}] {self.done}/{self.total} success {sr:.2f} {rate:.1f} ep/s eta {left:.0f}s ",
              end=end, file=sys.stderr, flush=True)

    def close(self) -> None:
        self._draw("\n")


def preflight(config: RunConfig) -> list[EpisodeSpec]:
    """The study's episodes, after loading every problem and building its grounder once.

    Bad PDDL or a bad noise setting fails here with one clear error, before a run
    folder is made or any episode runs.
    """
    specs = episode_specs(config)
    for key in dict.fromkeys((s.domain, s.problem) for s in specs):
        _task(*key)
    if specs and config.grounder == "noisy":
        make_grounder(_task(specs[0].domain, specs[0].problem), specs[0], 0)
    return specs


def run_study(config: RunConfig, out: Path, workers: int = 1, progress: bool = True) -> Path:
    """Run (or resume) a study; returns the episodes file."""
    specs = preflight(config)
    done = _prepare_out(out, config)
    todo = [s for s in specs if s.id not in done]
    episodes = out / "episodes.jsonl"
    bar = Progress(len(specs), len(specs) - len(todo), config.label()) if progress else None
    with episodes.open("a", encoding="utf-8") as fh:
        for record in _execute(todo, workers):
            fh.write(json.dumps(record) + "\n")
            fh.flush()
            if bar:
                bar.update(record)
    if bar:
        bar.close()
    return episodes


def _execute(specs: list[EpisodeSpec], workers: int) -> Iterator[dict[str, Any]]:
    if workers <= 1 or len(specs) <= 1:
        for spec in specs:
            yield run_episode(spec)
        return
    ctx = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    pool = ctx.Pool(workers)
    try:
        yield from pool.imap_unordered(run_episode, specs, chunksize=1)
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()
