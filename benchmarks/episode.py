"""One episode of a study: its task, world, grounder and planner, the protocol that plays it, its judged record.

:func:`run_episode` is what every executor runs (in the writer's process, a forked
worker, a thread or a Ray worker): it never raises, so a broken episode is an
``error`` record and never the study's end.
"""

from __future__ import annotations

import functools
import gc
from pathlib import Path
from typing import Any, Callable

from benchmarks.store import SCHEMA
from benchmarks.study_config import EpisodeSpec, RunConfig, asks_static
from toolkit import loader
from toolkit.errors import PgtError
from toolkit.known_facts import known_facts
from toolkit.redact import redact
from toolkit.task import Task, load_domain_cached


@functools.lru_cache(maxsize=256)
def episode_task(domain: str, problem: str) -> Task:
    """The episode's task, loaded once per process for all the seeds and protocols that play it."""
    dom = load_domain_cached(domain)
    return Task(dom, loader.load_problem(problem, dom))


def episode_seed(spec: EpisodeSpec) -> int:
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

    task = episode_task(spec.domain, spec.problem)
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

    task = episode_task(domain, problem)
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
        task = episode_task(spec.domain, spec.problem)
        seed = episode_seed(spec)
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


def recorded_replies_of(config: RunConfig) -> dict[str, list[str]] | None:
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
    return run_viplan_planner(env, proposer or build_proposer(spec.config, task, spec.id, seed, recorded_replies_of(spec.config)),
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
