"""Build a study's grounder or plan proposer from its run configuration.

The runner passes its :class:`~benchmarks.runner.RunConfig` (any object with the
same attributes); keys of :data:`GROUNDER_FACTORIES` are the ``--grounder`` choices.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Mapping

from toolkit.errors import PgtError, UnknownSymbolError
from toolkit.questions import QuestionBook
from toolkit.task import Task


def _error_model(config: Any, split: str):
    from grounders.calibration import ErrorModel, load_calibration

    if config.calibration:
        try:
            return load_calibration(config.calibration, split)
        except PgtError:
            return load_calibration(config.calibration, "simple" if split not in ("medium", "hard") else split)
    if config.fp is not None or config.fn is not None:
        return ErrorModel.asymmetric(config.fp or 0.0, config.fn or 0.0)
    if config.accuracy is None:
        raise PgtError("the noisy grounder needs --accuracy, --fp/--fn or --calibration")
    return ErrorModel.uniform(config.accuracy)


def _oracle(config: Any, task: Task, split: str, seed: int, episode: str | None = None):
    from grounders.oracle import Oracle

    return Oracle(QuestionBook(task))


def _noisy(config: Any, task: Task, split: str, seed: int, episode: str | None = None):
    from grounders.noisy import NoisyOracle

    model = _error_model(config, split)
    predicates = {p.lower() for p in task.domain.predicates}
    if config.calibration and model.per_predicate and not predicates & set(model.per_predicate):
        raise PgtError(f"calibration {config.calibration} describes {', '.join(sorted(model.per_predicate))}, "
                       f"none of the predicates of domain {task.domain.name} ({', '.join(sorted(predicates))}); "
                       "pick the calibration of this suite")
    from grounders.noise import resolve_noise

    noise = resolve_noise(getattr(config, "noise", None), config.calibration, config.persistence)
    return NoisyOracle(model, seed=seed, book=QuestionBook(task), noise=noise)


DEFAULT_CACHE = str(Path(".pgt-cache") / "vlm-replies.sqlite")


def cache_path(config: Any) -> str | None:
    """Where VLM replies are cached: ``--cache PATH``, else ``PGT_VLM_CACHE``, else ``.pgt-cache/``; None for ``--no-cache``."""
    if getattr(config, "no_cache", False):
        return None
    return getattr(config, "cache", None) or os.environ.get("PGT_VLM_CACHE") or DEFAULT_CACHE


def _vlm_config(config: Any, log: bool = False):
    """The VLM endpoint settings of a run: its flags over the environment (``log``: the grounder's answer log)."""
    from grounders.vlm import VLMConfig

    return VLMConfig.from_env(model=config.model, base_url=config.base_url, cot=config.cot,
                              cache_path=cache_path(config), timeout=getattr(config, "timeout", None),
                              max_retries=getattr(config, "max_retries", None),
                              max_reply_bytes=getattr(config, "max_reply_bytes", None),
                              max_inflight=getattr(config, "max_inflight", None), rpm=getattr(config, "rpm", None),
                              tpm=getattr(config, "tpm", None), log_path=getattr(config, "answer_log", None) if log else None,
                              answer_reading="viplan" if getattr(config, "protocol", "").startswith("viplan-") else "pgt")


def endpoint_limiter(config: Any):
    """The shared :class:`~grounders.limits.EndpointLimiter` a VLM study's clients use (None: no limits set)."""
    return _vlm_config(config).limiter()


def _vlm(config: Any, task: Task, split: str, seed: int, episode: str | None = None):
    from grounders.vlm import VLMGrounder

    return VLMGrounder(image_question_book(config, task), _vlm_config(config, log=True))


def image_object_names(config: Any, task: Task) -> dict[str, list[str]] | None:
    """How questions about the images name objects: pictorial household images by colour and category
    ("the red spoon", :func:`scene_graphs.pictograms.picture_names`), LoHoRavens' tabletop as its picture
    does ("the green bowl"); None: the domain's own names."""
    if getattr(config, "render_mode", "schematic") == "pictorial" and task.domain.name.lower() == "igibson":
        from scene_graphs.pictograms import picture_names

        return picture_names(task.objects)
    if task.domain.name.lower() == "lohoravens":  # the tabletop picture and the PAR instructions' names
        from toolkit.agents.par import display

        return {o: [f"the {display(o)}"] for o in task.objects}
    return None


def image_question_book(config: Any, task: Task) -> QuestionBook:
    """The question book of a grounder that looks at the images (see :func:`image_object_names`)."""
    return QuestionBook(task, objects=image_object_names(config, task))


def _replay(config: Any, task: Task, split: str, seed: int, episode: str | None = None):
    from grounders.replay import ReplayGrounder

    if not config.replay:
        raise PgtError("the replay grounder needs --replay LOG.jsonl")
    path = Path(config.replay)
    if not path.is_file():
        raise PgtError(f"--replay {config.replay}: no such answer log")
    grounder = ReplayGrounder(path, episode=episode)
    if not grounder.total:
        raise PgtError(f"--replay {config.replay}: the answer log holds no answers")
    return grounder


# (config, task, split, seed, episode id) -> grounder; the replay grounder answers that episode from its log
GROUNDER_FACTORIES: dict[str, Callable[..., Any]] = {
    "oracle": _oracle, "noisy": _noisy, "vlm": _vlm, "replay": _replay,
}


def build_grounder(config: Any, task: Task, split: str, seed: int, episode: str | None = None):
    factory = GROUNDER_FACTORIES.get(config.grounder)
    if factory is None:
        raise UnknownSymbolError("grounder", config.grounder, GROUNDER_FACTORIES)
    return factory(config, task, split, seed, episode)


def build_proposer(config: Any, task: Task, episode_id: str, seed: int,
                   recorded: Mapping[str, list[str]] | None = None):
    """The VLM-as-planner model for ``--grounder``: perfect (oracle), simulated (noisy), replayed or the VLM.

    ``recorded`` (episode id -> replies) is what ``--grounder replay`` replays; the
    study layer reads it from the ``--replay`` run (grounders never read study files).
    """
    from grounders.proposers import ReplayProposer, SimulatedProposer, VLMPlanProposer
    from toolkit.planners import get_planner

    if config.grounder == "vlm":
        return VLMPlanProposer(_vlm_config(config).client())
    if config.grounder == "replay":
        if not config.replay:
            raise PgtError("--protocol viplan-planner --grounder replay needs --replay RUN (a viplan-planner run)")
        if recorded is None:
            raise PgtError("--grounder replay: no recorded replies were handed over (a study reads them from --replay)")
        return ReplayProposer(config.replay, episode_id, recorded)
    planner = get_planner() if config.planner == "default" else get_planner(config.planner)
    if config.grounder == "oracle":
        return SimulatedProposer(task, planner, seed=seed)
    if config.grounder == "noisy":
        rates = (config.plan_wrong, config.plan_missing, config.plan_extra)
        if all(r is None for r in rates):
            raise PgtError("--protocol viplan-planner --grounder noisy needs --plan-wrong, --plan-missing "
                           "and/or --plan-extra (the simulated planner's error rates)")
        return SimulatedProposer(task, planner, *(r or 0.0 for r in rates), seed=seed)
    raise UnknownSymbolError("grounder", config.grounder, GROUNDER_FACTORIES)
