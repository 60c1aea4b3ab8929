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
import gc
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, ClassVar, Iterator

from benchmarks.store import (SCHEMA, Appender, Episodes, Finished, Record, StudyLock, collect, complete_tail,
                              read_records, repair, write_config)
from benchmarks.suites import Split, resolve_suite
from toolkit.errors import PgtError
from toolkit.known_facts import known_facts
from toolkit.redact import redact, redact_url
from toolkit.task import Task, load_domain_cached
from toolkit import loader

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


# ------------------------------------------------------------------ episode


@functools.lru_cache(maxsize=256)
def _task(domain: str, problem: str) -> Task:
    dom = load_domain_cached(domain)
    return Task(dom, loader.load_problem(problem, dom))


def _episode_seed(spec: EpisodeSpec) -> int:
    import zlib

    return zlib.crc32(f"{Path(spec.problem).stem}|{spec.seed}".encode())


def load_episode_code() -> None:
    """Import the modules an offline episode loads on first use: the worlds (networkx), the simulator, the agents.

    Local workers are forked from the writer, which itself needs none of them: importing
    them once just before the fork lets every worker share them instead of each importing
    networkx again (about 0.1 s of CPU per worker, far more on a busy machine).
    """
    import scene_graphs.registry  # noqa: F401
    import toolkit.agents.belief_agent  # noqa: F401
    import toolkit.agents.viplan  # noqa: F401
    import toolkit.simulator  # noqa: F401


def make_environment(task: Task, spec: EpisodeSpec, seed: int):
    """The episode's world: ``--world``, a plug-in, the domain's shipped world, else the generic one (renders any state).

    A replay of a run whose records carry the environment they met (``world``: an imported
    ViPlan run) meets that environment again (:class:`toolkit.replayed_world.ReplayedWorld`).
    """
    from scene_graphs.registry import make_world

    if spec.config.grounder == "replay" and spec.config.replay:
        script = recorded_worlds(spec.config.replay).get(spec.id)
        if script is not None:
            from toolkit.replayed_world import ReplayedWorld, WorldScript

            return ReplayedWorld(task, WorldScript.from_json(script), f"the replayed run {spec.config.replay}")
    return make_world(task, failure_prob=spec.config.action_failure, seed=seed, render_mode=spec.config.render_mode,
                      labels=spec.config.labels, world=spec.config.world)


@functools.lru_cache(maxsize=4)
def recorded_worlds(replay: str) -> dict[str, dict[str, Any]]:
    """Episode id -> the world script its record carries, for the run ``--replay`` names (its folder or a file in it)."""
    from benchmarks.store import collect, read_records

    path = Path(replay)
    file = path / "episodes.jsonl" if path.is_dir() else path.parent / "episodes.jsonl"
    if not file.is_file():
        return {}
    return {r["id"]: r["world"] for r in collect(read_records(file)).judged if isinstance(r.get("world"), dict)}


def episode_environment(task: Task, spec: EpisodeSpec, seed: int) -> tuple[Any, dict[str, list[str]] | None]:
    """The episode's world, and the known facts the protocol is given instead of asking (None: none given).

    ``pgt-grounder`` reads them from the problem itself (``BeliefAgentConfig.ask_static``).
    """
    env = make_environment(task, spec, seed)
    if spec.config.protocol == "viplan-planner" or asks_static(spec.config, task):
        return env, None
    known = known_facts(task)
    return env, (known.to_json() if known.predicates else None)


def needs_images(config: RunConfig) -> bool:
    """Whether the study's model looks at pictures (a VLM grounder, or a VLM planner)."""
    return config.grounder == "vlm"


def check_world(config: RunConfig, spec: EpisodeSpec) -> None:
    """Build the study's world once; refuse a VLM study whose world draws no picture (one line naming it).

    A ``--world`` plug-in that cannot be loaded fails here too, before the run folder exists.
    """
    from scene_graphs.registry import world_source

    task = _task(spec.domain, spec.problem)
    env = make_environment(task, spec, 0)
    obs = env.reset(0)
    if needs_images(config) and getattr(obs, "render", None) is None:
        raise PgtError(f"--grounder vlm needs a picture of every state, and the world of domain {task.domain.name} "
                       f"({world_source(task, config.world)}) draws none; give it a renderer, or drop --world "
                       "to use the generic one (docs/your-domain.md)")


def make_grounder(task: Task, spec: EpisodeSpec, seed: int):
    from grounders.factory import build_grounder

    return _EndOnError(build_grounder(spec.config, task, spec.split, seed, spec.id))


class EndpointFailure(Exception):
    """A grounder answer with status ``error``: the episode cannot be judged, so it ends here."""

    error_kind = "endpoint"


class ReplayGap(EndpointFailure):
    """A replayed log has no answer for what this episode asked: the replay cannot go on.

    Not an endpoint failure: the next episode may well be in the log, so a replay
    study is never stopped for a run of these (see :func:`_stop_reason`).
    """

    error_kind = "replay"


class _EndOnError:
    """Ends an episode at its first unanswered question (status ``error``) instead of playing on.

    The agents treat such answers as "no evidence" and carry on, which is right for
    one-off use but wastes endpoint calls in a study: the episode is recorded as an
    error and retried on resume whatever happens next. Also, a dead endpoint then
    shows after one batch of questions, not after a whole episode of retries.
    """

    def __init__(self, grounder) -> None:
        self.inner = grounder
        self.name = grounder.name

    def ask(self, observation, atoms, **options):
        answers = self.inner.ask(observation, atoms, **options)  # options: e.g. the noisy grounder's questions
        for answer in answers:
            if answer.status == "error":
                if self.name == "replay":
                    raise ReplayGap(f"the replayed log never answered {answer.atom}: {answer.raw}")
                raise EndpointFailure(f"{self.name} could not answer '{answer.question}': {answer.raw}")
        return answers


@functools.lru_cache(maxsize=8)
def make_planner(name: str):
    """One planner (with its plan cache) per process and name.

    Its own A* counts its time limit in CPU seconds: by the wall clock, a search
    that proves a noisy belief unsolvable in 7 s of CPU ran past the agents' 30 s
    on a loaded machine, so the same episode recorded ``no_plan:timeout`` in one
    worker and ``no_plan:unsolvable`` in another.
    """
    from toolkit.planners import DEFAULT_PLANNER, AStarPlanner, get_planner

    planner = get_planner(DEFAULT_PLANNER if name == "default" else name)
    primary = getattr(planner, "primary", planner)  # auto-sat: auto, then fd-lama on its timeout
    for search in (planner, primary, getattr(primary, "own", None)):  # astar/bfs, or auto's own search
        if isinstance(search, AStarPlanner):
            search.cpu_time = True
    return planner


@functools.lru_cache(maxsize=256)
def predictions_needed(domain: str, problem: str, max_steps: int, planner: str = "up-oneshot") -> int:
    """Questions the ViPlan protocol asks with a perfect grounder (the x axis of ViPlan's Figure 2)."""
    from grounders.oracle import Oracle
    from toolkit.agents.viplan import ViPlanGrounderConfig, run_viplan_grounder
    from toolkit.simulator import SymbolicEnvironment

    task = _task(domain, problem)
    result = run_viplan_grounder(SymbolicEnvironment(task), Oracle(privileged=True), make_planner(planner),
                                 ViPlanGrounderConfig(max_steps=max_steps))
    return result.ledger.questions


def episode_header(spec: EpisodeSpec) -> dict[str, Any]:
    """The fields every record of ``spec`` starts with, whatever became of the episode."""
    label, config = _config_fields(spec.config)
    return {"schema": SCHEMA, "id": spec.id, "suite": spec.config.suite, "split": spec.split,
            "problem": Path(spec.problem).stem, "seed": spec.seed, "label": label, "config": dict(config)}


@functools.lru_cache(maxsize=64)
def _config_fields(config: RunConfig) -> tuple[str, dict[str, Any]]:
    """A config's label and dict, once per process (``dataclasses.asdict`` per episode cost a study's writer)."""
    return config.label(), config.to_dict()


def run_episode(spec: EpisodeSpec) -> dict[str, Any]:
    """Run one episode and return its JSON record; never raises for a failed or broken episode.

    ``outcome`` is ``success``, ``failure`` (``cause``: why the agent stopped) or
    ``error`` when the episode could not be judged: an exception of any kind
    (``error_kind`` configuration or crash), or an endpoint that left questions
    unanswered (``error_kind`` endpoint). ``error`` holds the scrubbed text and
    ``fatal`` says that retrying the study as it stands is pointless.
    """
    record = episode_header(spec)
    try:
        return _judge(spec, record)
    finally:
        _settle_after_warm_up(spec)


def _judge(spec: EpisodeSpec, record: dict[str, Any]) -> dict[str, Any]:
    try:
        task = _task(spec.domain, spec.problem)
        seed = _episode_seed(spec)
        env, given = episode_environment(task, spec, seed)
        if given:
            record["given"] = given
        result = PROTOCOL_RUNNERS[spec.config.protocol](task, env, spec, seed)
        record["predictions_needed"] = predictions_needed(spec.domain, spec.problem, spec.max_steps,
                                                          spec.config.planner)
        record.update(result.to_json())
        benchmark_metrics = getattr(env, "benchmark_metrics", None)  # a world scored by its benchmark's own rules
        if callable(benchmark_metrics):
            record["world_metrics"] = benchmark_metrics()
    except Exception as exc:  # noqa: BLE001 - any crash is this episode's error record, never the study's end
        fatal = bool(getattr(exc, "fatal", False))  # set by the VLM clients on errors no retry will fix
        kind = getattr(exc, "error_kind", None) or ("endpoint" if fatal or _is_endpoint(exc) else
                                                    "configuration" if isinstance(exc, PgtError) else "crash")
        text = str(exc) if isinstance(exc, PgtError) else f"{type(exc).__name__}: {exc}"
        record.update(success=False, outcome="error", stop_reason="error", error_kind=kind, error=scrub(text),
                      fatal=fatal)
        return record
    for event in record.get("events", ()):
        if event.get("status") == "error":  # endpoint error texts may quote a request: no secrets in the file
            for key in ("error", "reply"):
                if isinstance(event.get(key), str):
                    event[key] = scrub(event[key])
    endpoint = _first_endpoint_error(record)
    if endpoint is not None:  # a replayed planner run that ran out of replies is a replay gap, not an endpoint
        kind = "replay" if spec.config.grounder == "replay" else "endpoint"
        record.update(outcome="error", error_kind=kind, error=scrub(endpoint), fatal=False)
    else:
        record.update(outcome="success" if record["success"] else "failure")
        if not record["success"]:
            record["cause"] = record["stop_reason"]
    return record


_SETTLED: set[tuple[str, str]] = set()  # tasks whose caches this process has moved out of the collector's sight


def _settle_after_warm_up(spec: EpisodeSpec) -> None:
    """After a task's first episode in this process: collect once, then freeze what is left (its caches).

    The caches a task's warm-up builds (parsed model, plans, question counts) live as
    long as the process, yet each full collection walked them all again: a one-process
    oracle run of viplan-bw (75 tasks) spent 2.2 of its 18.2 s in the collector, its full
    collections growing to 0.13 s each; frozen, they are walked no more (0.86 s in all).
    """
    key = (spec.domain, spec.problem)
    if key not in _SETTLED:
        _SETTLED.add(key)
        gc.collect()
        gc.freeze()


def _is_endpoint(exc: BaseException) -> bool:
    """An exception from talking to an endpoint (the openai client's, or the network's)."""
    return isinstance(exc, (OSError, TimeoutError)) or type(exc).__module__.split(".")[0] in ("openai", "httpx")


def _first_endpoint_error(record: dict[str, Any]) -> str | None:
    """The first endpoint error text among an episode's events (grounder answers or plan proposals)."""
    if not record.get("grounder_errors"):
        return None
    for event in record.get("events", ()):
        if event.get("status") == "error":
            return str(event.get("error") or event.get("reply") or "the endpoint gave no answer")
    return "the endpoint gave no answer"


def scrub(text: str) -> str:
    """An error text fit for a record: no secrets (:func:`toolkit.redact.redact`), at most 2000 characters."""
    return redact(text)[:2000]


def _viplan_grounder(task: Task, env, spec: EpisodeSpec, seed: int, grounder=None):
    from toolkit.agents.viplan import ViPlanGrounderConfig, run_viplan_grounder

    from toolkit.known_facts import known_facts

    known = None if asks_static(spec.config, task) else known_facts(task)
    return run_viplan_grounder(env, grounder or make_grounder(task, spec, seed), make_planner(spec.config.planner),
                               ViPlanGrounderConfig(max_steps=spec.max_steps, known=known), seed)


def _recorded(config: RunConfig) -> dict[str, list[str]] | None:
    """The replies of the ``--replay`` run that ``--grounder replay`` replays (None for other grounders)."""
    from benchmarks.store import recorded_replies

    return recorded_replies(config.replay) if config.grounder == "replay" and config.replay else None


def _viplan_planner(task: Task, env, spec: EpisodeSpec, seed: int, proposer=None):
    from grounders.factory import build_proposer, image_object_names
    from toolkit.agents.viplan_goals import goal_text_viplan, goal_with_names
    from toolkit.agents.vlm_planner import ViPlanPlannerConfig, run_viplan_planner
    from toolkit.questions import QuestionBook

    # pictorial images: the goal also says how each object looks, with the names actions take
    names = image_object_names(spec.config, task)
    book = QuestionBook(task, objects=names) if names else None
    return run_viplan_planner(env, proposer or build_proposer(spec.config, task, spec.id, seed, _recorded(spec.config)),
                              ViPlanPlannerConfig(spec.max_steps, spec.config.cot), seed,
                              goal_text=(lambda t: goal_with_names(t, book)) if book else goal_text_viplan)


def _pgt_grounder(task: Task, env, spec: EpisodeSpec, seed: int, grounder=None):
    from toolkit.agents.belief_agent import BeliefAgentConfig, run_belief_agent

    return run_belief_agent(env, grounder or make_grounder(task, spec, seed), make_planner(spec.config.planner),
                            BeliefAgentConfig(max_steps=spec.max_steps, ask_static=asks_static(spec.config, task)),
                            seed)


# (task, env, spec, seed[, grounder or proposer]) -> EpisodeResult; the last argument replaces the study's own
PROTOCOL_RUNNERS: dict[str, Callable[..., Any]] = {
    "viplan-grounder": _viplan_grounder,
    "viplan-planner": _viplan_planner,
    "pgt-grounder": _pgt_grounder,
}

# -------------------------------------------------------------------- files


def _prepare_out(out: Path, config: RunConfig) -> list[Record]:
    """Check ``config`` against the folder's, record it, repair a torn tail; the records so far, in file order.

    Call with the folder's :class:`StudyLock` held.
    """
    cfg_path = out / "config.json"
    wanted = config.result_fields()
    if cfg_path.is_file():
        try:
            have = RunConfig.from_dict(json.loads(cfg_path.read_text(encoding="utf-8"))).result_fields()
        except (ValueError, TypeError, UnicodeDecodeError) as exc:
            raise PgtError(f"{cfg_path} is not a run configuration ({exc}); use another --out") from None
        diff = [k for k in wanted if have.get(k) != wanted[k]]
        if diff:
            detail = ", ".join(f"{k}: {have.get(k)!r} there, {wanted[k]!r} now" for k in diff)
            hint = f" or --noise {have['noise']} to resume it" if "noise" in diff and have.get("noise") else ""
            raise PgtError(f"{out} holds a run with another configuration ({detail}); use another --out{hint}")
    write_config(cfg_path, config.to_dict())
    episodes = out / "episodes.jsonl"
    if complete_tail(episodes):  # a whole record that lacks only its newline is kept, not dropped as torn
        print(f"{episodes}: the last record had no newline; kept it and added one", file=sys.stderr)
    dropped = repair(episodes)  # appends must start on a fresh line
    if dropped:
        print(f"{episodes}: dropped a torn last line ({dropped} bytes) left by an interrupted run",
              file=sys.stderr)
    return read_records(episodes)


class StudyStopped(PgtError):
    """A fatal error (a rejected key, an unknown model, an endpoint that stays down) stopped a study."""


class Progress:
    """A one-line progress bar on stderr (silent when stderr is not a terminal, except at the end).

    Errors are printed as they happen, bar or not, so a broken study never looks busy.
    """

    def __init__(self, total: int, done: int, label: str, bar: bool = True, judged: int = 0,
                 successes: int = 0) -> None:
        """``judged``/``successes``: the study's episodes judged before this invocation (a resumed run),
        so the success rate shown is the whole study's, as the closing summary's is."""
        self.total, self.done, self.label = total, done, label
        self.judged, self.successes = judged, successes
        self.new, self.errors, self.start = 0, 0, time.perf_counter()
        self.questions, self.tokens = 0, 0  # over this invocation's episodes
        self.bar = bar
        self.tty = bar and sys.stderr.isatty()
        self.limiter: Any = None  # a VLM study's EndpointLimiter: its 429s and (clamped) pauses are shown

    def update(self, record: dict[str, Any]) -> None:
        self.done += 1
        self.new += 1
        self.successes += record.get("outcome") == "success"
        self.judged += record.get("outcome") in ("success", "failure")
        self.questions += int(record.get("questions") or 0)
        self.tokens += int(record.get("prompt_tokens") or 0) + int(record.get("completion_tokens") or 0)
        if record.get("outcome") == "error" and not record.get("fatal"):  # a fatal one ends the study: said then
            self.errors += 1
            if self.tty:
                print(file=sys.stderr)
            print(f"{self.label}: episode {record['id']}: error ({record.get('error_kind')}): {record.get('error')}",
                  file=sys.stderr, flush=True)
        if self.tty:
            self._draw()

    def _draw(self, end: str = "") -> None:
        print(f"\r{self.line()} ", end=end, file=sys.stderr, flush=True)

    def line(self) -> str:
        """The bar: episodes done, success so far, episodes and questions per second, tokens, ETA."""
        elapsed = max(time.perf_counter() - self.start, 1e-9)
        rate = self.new / elapsed
        left = (self.total - self.done) / rate if rate else 0.0
        width = 24
        filled = int(width * self.done / max(self.total, 1))
        bar = "#" * filled + "." * (width - filled)
        sr = self.successes / self.judged if self.judged else 0.0  # over the whole study, resumed or not
        errors = f" errors {self.errors}" if self.errors else ""
        tokens = f" {_si(self.tokens)} tokens" if self.tokens else ""
        usage = getattr(self.limiter, "usage", None)
        throttled = (f" 429s {usage.throttled} (paused {_duration(usage.retry_after)})"
                     if usage is not None and usage.throttled else "")
        return (f"{self.label} [{bar}] {self.done}/{self.total} success {sr:.2f}{errors} {rate:.1f} ep/s "
                f"{self.questions / elapsed:.1f} q/s{tokens}{throttled} eta {_duration(left)}")

    def close(self) -> None:
        if self.bar:
            self._draw("\n")


def _si(n: float) -> str:
    """``1234567`` as ``1.2M``: token counts on one progress line."""
    for unit, size in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= size:
            return f"{n / size:.1f}{unit}"
    return f"{n:.0f}"


def _duration(seconds: float) -> str:
    """``75`` as ``1m15s``, ``4000`` as ``1h06m``: an ETA that reads at a glance."""
    s = int(round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


def preflight(config: RunConfig) -> list[EpisodeSpec]:
    """The study's episodes, after building its grounder or proposer and planner once.

    A bad setting (no model, a missing replay log, an unknown planner or noise
    model, bad PDDL in any problem) fails here, before the run folder is touched, not once per episode.
    """
    from benchmarks.executors import check_executor

    check_executor(config)
    specs = episode_specs(config)
    if not specs:
        return specs
    for key in dict.fromkeys((s.domain, s.problem) for s in specs):  # bad PDDL fails here, once
        _task(*key)
    first = specs[0]
    task = _task(first.domain, first.problem)
    if config.protocol == "viplan-planner":
        from grounders.factory import build_proposer

        build_proposer(config, task, first.id, 0, _recorded(config))
    else:
        make_grounder(task, first, 0)
        make_planner(config.planner)
    if needs_images(config) or config.world:
        check_world(config, first)  # also loads a --world plug-in once: a bad one fails here, not per episode
    return specs


def run_study(config: RunConfig, out: Path, workers: int = 1, progress: bool = True) -> Path:
    """Run (or resume) a study; returns the episodes file.

    Episodes with a judged record are skipped; ``error`` episodes run again. A
    record with ``fatal`` set stops the study at once (finished episodes stay)
    with :class:`StudyStopped`. A second writer to ``out`` is refused.
    """
    return run_and_collect(config, out, workers, progress)[0]


def run_and_collect(config: RunConfig, out: Path, workers: int = 1,
                    progress: bool = True) -> tuple[Path, Episodes]:
    """:func:`run_study`, also returning the study's episodes as :func:`collect` gives them from the file.

    Episodes this invocation wrote are there as briefs (:func:`benchmarks.store.brief`),
    so a summary need not read the file back.
    """
    specs = preflight(config)
    if config.grounder == "vlm" and config.answer_log is None:  # the answers, for --grounder replay later
        config = dataclasses.replace(config, answer_log=str(out / "answers.jsonl"))
    if endpoint_bound(config) and config.max_inflight is None:
        config = dataclasses.replace(config, max_inflight=DEFAULT_MAX_INFLIGHT)
    out.mkdir(parents=True, exist_ok=True)
    episodes = out / "episodes.jsonl"
    with StudyLock(out):
        records = _prepare_out(out, config)
        judged = {r["id"] for r in collect(records).judged}
        # the specs carry the config the episodes run with (a VLM study's gained its answer log above)
        todo = [s if s.config is config else dataclasses.replace(s, config=config) for s in specs
                if s.id not in judged]
        wanted = {s.id for s in specs}
        before = [r for r in collect(records).judged if r["id"] in wanted]
        if before:  # said even with --quiet: the numbers that follow are for the whole study
            print(f"{config.label()}: resuming: {len(before)} of {len(specs)} episodes done", file=sys.stderr)
        bar = Progress(len(specs), len(specs) - len(todo), config.label(), progress,
                       judged=len(before), successes=sum(r.get("outcome") == "success" for r in before))
        results = _run_episodes(config, todo, workers)
        if endpoint_bound(config):
            from grounders.factory import endpoint_limiter

            bar.limiter = endpoint_limiter(config)
        opening: list[dict[str, Any]] = []  # the first records of this invocation
        try:
            with Appender(episodes) as sink:
                for done in results:
                    sink.write_line(done.line)
                    record = done.record
                    records.append(record)
                    bar.update(record)
                    if len(opening) < ENDPOINT_STOP:
                        opening.append(record)
                    why = _stop_reason(record, opening)
                    if why:
                        raise StudyStopped(f"{config.label()}: {why} (finished episodes are kept in {episodes}; "
                                           "fix the setting and run the same command again to finish the study)")
        finally:
            results.close()  # stops the workers at once when the loop ended early
            bar.close()
    return episodes, collect(records)


ENDPOINT_STOP = 3  # a run whose first this many episodes all failed at the endpoint stops


def _stop_reason(record: dict[str, Any], opening: list[dict[str, Any]]) -> str | None:
    """Why the study must stop after ``record``, if it must.

    A fatal error stops it at once. So does an opening of :data:`ENDPOINT_STOP`
    endpoint errors in a row: an endpoint that failed every episode so far, after
    the client's own retries, is down or misconfigured, and the rest would fail
    the same way, slowly. Replay gaps (``error_kind`` replay: the log lacks an
    answer this episode asked for) never stop a study: each episode has its own.
    """
    if record.get("fatal"):
        return f"stopped at episode {record['id']}: {record['error']}"
    if record is opening[-1] and len(opening) == ENDPOINT_STOP and all(
            r.get("outcome") == "error" and r.get("error_kind") == "endpoint" for r in opening):
        return f"stopped: the first {ENDPOINT_STOP} episodes all failed at the endpoint, e.g. {record['error']}"
    return None


def _execute(specs: list[EpisodeSpec], workers: int) -> Iterator[Finished]:
    """Episodes of ``specs`` as they finish, from the executor their config names (benchmarks/executors.py)."""
    from benchmarks.executors import LocalExecutor, make_executor

    return (make_executor(specs[0].config, workers) if specs else LocalExecutor(workers)).run(specs)


# ------------------------------------------------------------ endpoint-bound studies

DEFAULT_MAX_INFLIGHT = 8  # requests open at once against one endpoint when --max-inflight is not given


def endpoint_bound(config: RunConfig) -> bool:
    """A study whose episodes wait on a model endpoint (either protocol with ``--grounder vlm``)."""
    return config.grounder == "vlm"


def _run_episodes(config: RunConfig, specs: list[EpisodeSpec], workers: int) -> Iterator[Finished]:
    """Finished records of ``specs``: endpoint-bound studies in threads sharing one limiter, others by workers.

    A VLM episode spends its time waiting for replies, so its episodes run as
    threads of this (the writer) process, as many as requests may be in flight;
    the study-wide limits of :mod:`grounders.limits` then hold across all of them,
    which limits per worker process could not. CPU-bound studies use ``workers``.
    """
    if not endpoint_bound(config):
        return _execute(specs, workers)
    from grounders.factory import endpoint_limiter
    from grounders.limits import renew

    limiter = endpoint_limiter(config)
    if limiter is not None and limiter.closed:  # left by a stopped study of this process: this one starts afresh
        renew(limiter)
        limiter = endpoint_limiter(config)
    return _execute_threads(specs, config.max_inflight or DEFAULT_MAX_INFLIGHT, limiter)


_DONE = object()


def _execute_threads(specs: list[EpisodeSpec], threads: int, limiter: Any) -> Iterator[Finished]:
    """Run episodes on ``threads`` daemon threads; yields records as they finish (the caller writes them).

    When the caller stops early (a fatal record, Ctrl-C), no further episode starts
    and ``limiter`` is closed, so episodes in flight end at their next request
    instead of spending endpoint calls on records nobody will write.
    """
    import queue
    import threading

    todo = iter(specs)
    guard, stop, results = threading.Lock(), threading.Event(), queue.SimpleQueue()

    def work() -> None:
        try:
            while not stop.is_set():
                with guard:
                    spec = next(todo, None)
                if spec is None:
                    break
                results.put(Finished.of(run_episode(spec)))
        finally:
            results.put(_DONE)

    pool = [threading.Thread(target=work, name=f"pgt-episode-{i}", daemon=True)
            for i in range(min(threads, len(specs)))]
    for thread in pool:
        thread.start()
    running = len(pool)
    try:
        while running:
            item = results.get()
            if item is _DONE:
                running -= 1
            else:
                yield item
    finally:
        stop.set()
        if running and limiter is not None:
            limiter.close()
