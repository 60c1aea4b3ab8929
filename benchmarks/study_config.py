"""What a study is: its settings (:class:`RunConfig`) and the episodes they name (:class:`EpisodeSpec`).

A study is a suite x protocol x grounder x seed grid; each episode's randomness
comes only from (seed, problem), so an episode is named by its spec alone and
results do not depend on the number of workers or their scheduling.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, ClassVar

from benchmarks.suites import Split, resolve_suite
from toolkit.errors import PgtError
from toolkit.redact import redact_url
from toolkit.task import Task


PROTOCOLS = ("viplan-grounder", "viplan-planner", "pgt-grounder")
GROUNDERS = ("oracle", "noisy", "vlm", "replay")


@dataclass(frozen=True)
class RunConfig:
    """A study's settings: the fields that decide an episode's outcome, then execution options.

    Execution options (:attr:`EXECUTION_FIELDS`) say *how* a study runs, not what
    its episodes turn out to be, so a resume may change them (a fixed endpoint URL,
    a longer timeout). Scope fields (:attr:`SCOPE_FIELDS`) choose *which* episodes
    run (more seeds, more problems), so they may change too. Every other field is
    result-deciding: a resume with a different value is refused. A new execution
    flag is a new field with a default plus its name in ``EXECUTION_FIELDS``.
    """

    suite: str
    protocol: str = "viplan-grounder"
    grounder: str = "noisy"
    accuracy: float | None = None
    calibration: str | None = None
    fp: float | None = None
    fn: float | None = None
    persistence: float = 0.0
    noise: str | None = None  # noisy grounder: the noise model's text (grounders/noise), resolved when built
    action_failure: float = 0.0
    seeds: int = 1
    # (problem stem, seeds) pairs: problem p runs seeds 0..n-1 and problems not named run none (None: every problem
    # runs `seeds`); a released run's episodes exactly, where ViPlan runs a household problem once per scene instance
    seeds_per_problem: tuple[tuple[str, int], ...] | None = None
    domain: str | None = None
    max_steps: int | None = None
    planner: str = "default"
    model: str | None = None
    cot: bool = False
    replay: str | None = None
    problems: int | None = None  # first N problems of each split (None: all)
    plan_wrong: float | None = None  # simulated VLM-as-planner: P(an action is replaced by a random one)
    plan_missing: float | None = None  # ... P(an action is left out)
    plan_extra: float | None = None  # ... P(a random action is inserted before an action)
    render_mode: str = "schematic"  # household images: schematic or pictorial (images and visibility differ)
    labels: bool = True  # household images: object names written in the image
    world: str | None = None  # a user's world, module:Class (None: plug-in, shipped or generic world by domain)
    ask_static: str = "auto"  # ask about predicates no action changes: yes, no, auto (see asks_static)
    # ---- execution options (see EXECUTION_FIELDS): how a study runs, never what it finds
    base_url: str | None = None
    timeout: float | None = None  # VLM client: seconds per request (None: the client's default)
    max_retries: int | None = None  # VLM client: retries of a failed request (None: the client's default)
    max_reply_bytes: int | None = None  # VLM client: largest reply body read (None: the client's default, 4 MiB)
    cache: str | None = None  # VLM reply cache file (None: PGT_VLM_CACHE or ./.pgt-cache/vlm-replies.sqlite)
    no_cache: bool = False  # VLM: call the endpoint for every question
    answer_log: str | None = None  # VLM grounder: where its answers are logged for --grounder replay
    max_inflight: int | None = None  # VLM: most endpoint requests open at once, study-wide (None: the default)
    rpm: float | None = None  # VLM: endpoint requests per minute, study-wide (None: no limit)
    tpm: float | None = None  # VLM: prompt + completion tokens per minute, study-wide (None: no limit)
    # The rules the protocols named after ViPlan follow: 2 = ViPlan's code (loop stop, attempt cap, ...);
    # records without it were made under 1 (the paper's description), and a resume never mixes the two.
    protocol_rules: int = 2
    executor: str = "local"  # where episodes run: local worker processes or "ray" (benchmarks/executors.py)
    address: str | None = None  # executor ray: the cluster's address (None: RAY_ADDRESS or a new local cluster)

    EXECUTION_FIELDS: ClassVar[tuple[str, ...]] = ("base_url", "timeout", "max_retries", "max_reply_bytes", "cache",
                                                   "no_cache",
                                                   "answer_log", "max_inflight", "rpm", "tpm", "executor", "address")
    SCOPE_FIELDS: ClassVar[tuple[str, ...]] = ("seeds", "seeds_per_problem", "problems")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunConfig:
        """A config from a record's or ``config.json``'s dict; keys of other versions are ignored."""
        names = {f.name for f in dataclasses.fields(cls)}
        fields = {k: v for k, v in data.items() if k in names}
        fields.setdefault("protocol_rules", 1)
        if fields.get("planner", "default") == "default":
            fields["planner"] = "auto"  # what "default" meant before the ViPlan protocols planned through UP
        if "noise" not in data and data.get("grounder", "noisy") == "noisy" and \
                data.get("protocol", "viplan-grounder") != "viplan-planner":
            fields["noise"] = "independent"  # recorded before noise models: every draw was independent
        return cls(**fields)

    def __post_init__(self) -> None:
        if self.seeds_per_problem is not None:  # config.json holds it as a list of [stem, n] lists
            pairs = tuple((str(stem), int(n)) for stem, n in self.seeds_per_problem)
            object.__setattr__(self, "seeds_per_problem", pairs)
        if self.ask_static not in ASK_STATIC:
            raise PgtError(f"--ask-static {self.ask_static}: choose {', '.join(ASK_STATIC)}")
        if self.planner == "default":  # recorded resolved: what "default" means may change, a record must not
            object.__setattr__(self, "planner", default_planner(self.protocol))
        # The noise model is decided once and recorded (a calibration's default may change later).
        if self.grounder != "noisy" or self.protocol == "viplan-planner":
            if self.noise is not None:
                raise PgtError(f"--noise {self.noise}: only for --grounder noisy with a grounder protocol")
            return
        from grounders.noise import resolve_noise

        model = resolve_noise(self.noise, self.calibration, self.persistence)
        object.__setattr__(self, "noise", model.text)
        object.__setattr__(self, "persistence", model.persistence)

    def to_dict(self) -> dict[str, Any]:
        """The config as written to ``config.json`` and every record: the base URL without its secrets."""
        data = dataclasses.asdict(self)
        data["base_url"] = redact_url(self.base_url)
        return data

    def result_fields(self) -> dict[str, Any]:
        """The fields a resume must agree on (neither execution options nor scope)."""
        skip = set(self.EXECUTION_FIELDS) | set(self.SCOPE_FIELDS)
        return {k: v for k, v in self.to_dict().items() if k not in skip}

    def noise_label(self) -> str:
        """What the grounder gets wrong, e.g. ``acc=0.97`` or ``cal=viplan-bw-cot-gpt-4.1``."""
        if self.grounder == "noisy" and self.protocol == "viplan-planner":
            return f"wrong={self.plan_wrong or 0.0},missing={self.plan_missing or 0.0},extra={self.plan_extra or 0.0}"
        if self.grounder == "noisy":
            rates = (f"cal={calibration_name(self.calibration)}" if self.calibration else
                     f"fp={self.fp},fn={self.fn}" if self.fp is not None else f"acc={self.accuracy}")
            return rates if self.noise in (None, "independent") else f"{rates},noise={self.noise}"
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


ASK_STATIC = ("auto", "yes", "no")


def asks_static(config: RunConfig, task: Task) -> bool:
    """Whether the study's protocol asks about known facts (:mod:`toolkit.known_facts`) on ``task``.

    ``--ask-static yes`` / ``no`` decide. ``auto``: ``pgt-grounder`` reads them from the
    problem; the ViPlan grounder protocol asks every atom of its state on ViPlan's own
    domains, as ViPlan's code does (``get_enumeration_questions`` enumerates ``leftof`` /
    ``rightof`` with ``on``), and on any other domain reads them from the problem, so a
    study on an IPC domain does not fail on ``connected`` facts no action changes.
    """
    if config.ask_static != "auto":
        return config.ask_static == "yes"
    if config.protocol == "viplan-grounder":
        from toolkit.domains import shipped_twin

        return shipped_twin(task.domain) in ("blocksworld", "household")
    return False


def default_planner(protocol: str) -> str:
    """The protocols named after ViPlan plan as ViPlan's code does (UP's OneshotPlanner); pgt's own, optimally."""
    return "up-oneshot" if protocol.startswith("viplan-") else "auto"


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

    @functools.cached_property
    def id(self) -> str:  # cached: the writer looks an episode up by id several times (a Path per call)
        return f"{self.split}/{Path(self.problem).stem}/seed{self.seed}"


def episode_specs(config: RunConfig) -> list[EpisodeSpec]:
    splits: list[Split] = resolve_suite(config.suite, config.domain, config.max_steps)
    seeds = _seed_counts(config, splits)
    return [EpisodeSpec(config, s.name, str(s.domain), str(p), seed,
                        s.planner_max_steps if config.protocol == "viplan-planner" else s.max_steps)
            for s in splits for p in s.problems[: config.problems] for seed in range(seeds(p))]


def _seed_counts(config: RunConfig, splits: list[Split]) -> Callable[[Path], int]:
    """How many seeds a problem file runs: ``config.seeds``, or its entry in ``config.seeds_per_problem``
    (a name no problem of the suite has is an error, not a silently smaller study)."""
    if config.seeds_per_problem is None:
        return lambda problem: config.seeds
    counts = dict(config.seeds_per_problem)
    stems = {Path(p).stem for s in splits for p in s.problems}
    unknown = sorted(set(counts) - stems)
    if unknown:
        raise PgtError(f"seeds per problem: no problem {', '.join(unknown)} in suite {config.suite} "
                       f"(it has {', '.join(sorted(stems))})")
    return lambda problem: counts.get(Path(problem).stem, 0)
