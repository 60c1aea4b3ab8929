"""``pgt run --dry-run`` and ``pgt compare --dry-run``: what a study will cost, before anything is spent.

A VLM study is paid per token, so before it starts the user sees its grid: the
episodes per split (done and remaining for a resumed folder), the questions each
episode is expected to ask, and for ``--grounder vlm`` the prompt and completion
tokens and what they cost. Nothing is written and no endpoint is contacted.

How the figures are estimated (the output says which applies):

* **Questions per episode**: the study's protocol is played with a perfect grounder
  (``--grounder oracle``, or the perfect simulated planner for ``viplan-planner``)
  on up to :data:`SAMPLE` problems of each split, spread over the split, seed 0.
  A real model's wrong answers add replans and questions, so read it as a floor.
* **Prompt tokens**: during those sample episodes every question the VLM would be
  sent is built with the study's real prompts and rendered images, and counted by
  :func:`grounders.limits.estimate_prompt_tokens` (text at 4 characters a token,
  images by OpenAI's tile rule at ``detail: high``).
* **Completion tokens**: the answer's text (``Yes``/``No``, the plan JSON) at 4
  characters a token, plus :data:`COT_TOKENS` of reasoning per reply with ``--cot``
  (an assumption).
* A resumed folder whose finished episodes carry token counts uses their measured
  means per question instead of both token estimates.
* **Cost**: tokens times ``--price-in``/``--price-out`` (USD per 1M tokens), else the
  list prices of :data:`PRICES` for a known model, else no cost.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks import episode, runner
from benchmarks.store import collect, read_records
from benchmarks.study_config import EpisodeSpec, RunConfig
from grounders.limits import CHARS_PER_TOKEN, estimate_prompt_tokens

SAMPLE = 3  # problems per split played to estimate questions and prompt sizes
COT_TOKENS = 200  # assumed reasoning tokens per reply with --cot (ViPlan's CoT prompts ask for an explanation)

# USD per 1M (input, output) tokens: OpenAI list prices (standard tier, checked 2025-06); pass --price-in/--price-out
# for any other model or tier. A local endpoint (vLLM, Ollama) costs nothing per token.
PRICES: dict[str, tuple[float, float]] = {
    "gpt-4.1": (2.00, 8.00), "gpt-4.1-mini": (0.40, 1.60), "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4o": (2.50, 10.00), "gpt-4o-mini": (0.15, 0.60), "o4-mini": (1.10, 4.40),
}


@dataclass
class SplitEstimate:
    """One split of a study: its episodes and what each is expected to ask."""

    split: str
    problems: int
    seeds: int
    episodes: int
    done: int
    questions: float  # expected model requests per episode
    sampled: int  # problems played to estimate it
    prompt_tokens: float = 0.0  # per request
    completion_tokens: float = 0.0  # per request

    @property
    def remaining(self) -> int:
        return self.episodes - self.done


@dataclass
class StudyEstimate:
    config: RunConfig
    out: Path
    splits: list[SplitEstimate]
    measured: bool = False  # token means come from the folder's finished episodes
    refused: str | None = None  # why `pgt run` would refuse the folder

    def remaining_requests(self) -> float:
        return sum(s.remaining * s.questions for s in self.splits)

    def tokens(self) -> tuple[float, float]:
        """Prompt and completion tokens of the remaining episodes."""
        return (sum(s.remaining * s.questions * s.prompt_tokens for s in self.splits),
                sum(s.remaining * s.questions * s.completion_tokens for s in self.splits))


# ------------------------------------------------------------------ metering


class _MeteredGrounder:
    """A perfect grounder that also counts the prompts the VLM grounder would be sent for the same questions."""

    def __init__(self, task, config: RunConfig) -> None:
        from grounders.oracle import Oracle
        from grounders.vlm import VLMConfig, VLMGrounder
        from toolkit.questions import QuestionBook

        book = QuestionBook(task)
        self.inner = Oracle(book)
        self.name = self.inner.name
        # no cache, no log, no request: the grounder only builds messages here
        self.vlm = VLMGrounder(book, VLMConfig(model=config.model or "dry-run", cot=config.cot, api_key="dry-run"))
        self.requests = self.prompt_tokens = self.completion_tokens = 0

    def ask(self, observation, atoms):
        import base64

        answers = self.inner.ask(observation, atoms)
        sent = [a for a in atoms if self.vlm.config.ask_invisible or observation.can_see(a)]
        if sent:
            url = "data:image/png;base64," + base64.b64encode(observation.png()).decode("ascii")
            for atom in sent:
                text = self.vlm.prompts.user_text(self.vlm.book.question(atom))
                self.prompt_tokens += estimate_prompt_tokens(self.vlm._messages(text, url))
                self.completion_tokens += 1 + (COT_TOKENS if self.vlm.config.cot else 0)  # "Yes" or "No"
            self.requests += len(sent)
        return answers


class _MeteredProposer:
    """The perfect simulated planner, counting the prompts and replies of the VLM-as-planner protocol."""

    def __init__(self, inner, cot: bool) -> None:
        self.inner, self.cot, self.name = inner, cot, inner.name
        self.requests = self.prompt_tokens = self.completion_tokens = 0

    def propose(self, observation, prompt):
        from grounders.proposers import plan_messages

        proposal = self.inner.propose(observation, prompt)
        self.requests += 1
        self.prompt_tokens += estimate_prompt_tokens(plan_messages(observation, prompt))
        self.completion_tokens += math.ceil(len(proposal.text) / CHARS_PER_TOKEN) + (COT_TOKENS if self.cot else 0)
        return proposal


def _sample(specs: list[EpisodeSpec]) -> list[EpisodeSpec]:
    """Up to :data:`SAMPLE` seed-0 episodes spread evenly over a split's problems."""
    firsts = [s for s in specs if s.seed == 0]
    if len(firsts) <= SAMPLE:
        return firsts
    return [firsts[round(i * (len(firsts) - 1) / (SAMPLE - 1))] for i in range(SAMPLE)]


_PLAYED: dict[tuple, tuple[int, int, int]] = {}  # a compare grid plays each (problem, protocol) once


def _play(spec: EpisodeSpec, vlm: bool) -> tuple[int, int, int]:
    """(requests, prompt tokens, completion tokens) of one episode played with a perfect model.

    The noise settings do not matter with a perfect model, so the result is kept per
    problem, protocol and what does matter (step cap, action failures, planner, prompts).
    """
    cfg = spec.config
    key = (spec.domain, spec.problem, spec.split, spec.seed, spec.max_steps, cfg.protocol, cfg.action_failure,
           cfg.planner, vlm, cfg.cot, cfg.model)
    if key not in _PLAYED:
        _PLAYED[key] = _play_once(spec, vlm)
    return _PLAYED[key]


def _play_once(spec: EpisodeSpec, vlm: bool) -> tuple[int, int, int]:
    from grounders.factory import build_proposer
    from grounders.oracle import Oracle
    from toolkit.questions import QuestionBook

    config = spec.config
    task = episode.episode_task(spec.domain, spec.problem)
    seed = episode.episode_seed(spec)
    env, _ = episode.episode_environment(task, spec, seed)
    play = episode.PROTOCOL_RUNNERS[config.protocol]
    if config.protocol == "viplan-planner":
        perfect = build_proposer(dataclasses.replace(config, grounder="oracle"), task, spec.id, seed)
        meter: Any = _MeteredProposer(perfect, config.cot) if vlm else perfect
    else:
        meter = _MeteredGrounder(task, config) if vlm else Oracle(QuestionBook(task))
    result = play(task, env, spec, seed, meter)
    if not vlm:
        return result.ledger.questions, 0, 0
    return meter.requests, meter.prompt_tokens, meter.completion_tokens


# ------------------------------------------------------------------ estimate


def estimate(config: RunConfig, out: Path) -> StudyEstimate:
    """The study's grid with expected requests and tokens; reads ``out`` if it exists, writes nothing."""
    specs = runner.preflight(dataclasses.replace(config, no_cache=True, answer_log=None))
    refused = _refusal(config, out)
    have = collect([] if refused else read_records(out / "episodes.jsonl"))  # another study's records say nothing
    judged = {r["id"] for r in have.judged}
    vlm = runner.endpoint_bound(config)
    by_split: dict[str, list[EpisodeSpec]] = {}
    for spec in specs:
        by_split.setdefault(spec.split, []).append(spec)
    splits = []
    for name, group in by_split.items():
        played = [_play(s, vlm) for s in _sample(group)]
        requests = sum(p[0] for p in played)
        splits.append(SplitEstimate(
            name, len({s.problem for s in group}), config.seeds, len(group), sum(s.id in judged for s in group),
            requests / max(len(played), 1), len(played),
            sum(p[1] for p in played) / requests if requests else 0.0,
            sum(p[2] for p in played) / requests if requests else 0.0))
    result = StudyEstimate(config, out, splits, refused=refused)
    tokens = [r for r in have.judged if r.get("questions") and (r.get("prompt_tokens") or r.get("completion_tokens"))]
    if vlm and tokens:  # a resumed study: its own measured tokens per request
        asked = sum(r["questions"] for r in tokens)
        for s in splits:
            s.prompt_tokens = sum(r["prompt_tokens"] for r in tokens) / asked
            s.completion_tokens = sum(r["completion_tokens"] for r in tokens) / asked
        result.measured = True
    return result


def _refusal(config: RunConfig, out: Path) -> str | None:
    """Why ``pgt run`` would refuse ``out`` (another configuration there), or None."""
    import json

    path = out / "config.json"
    if not path.is_file():
        return None
    try:
        have = RunConfig.from_dict(json.loads(path.read_text(encoding="utf-8"))).result_fields()
    except (ValueError, TypeError, UnicodeDecodeError) as exc:
        return f"{path} is not a run configuration ({exc})"
    diff = [k for k, v in config.result_fields().items() if have.get(k) != v]
    return f"{out} holds a run with another configuration ({', '.join(diff)})" if diff else None


# ------------------------------------------------------------------ text


def price_for(model: str | None, price_in: float | None, price_out: float | None) -> tuple[float, float, str] | None:
    """(USD per 1M input tokens, per 1M output tokens, where from), or None when unknown."""
    if price_in is not None or price_out is not None:
        return price_in or 0.0, price_out or 0.0, "--price-in/--price-out"
    name = (model or "").split("/")[-1].lower()
    if name in PRICES:
        return (*PRICES[name], f"the {name} list price in benchmarks/dryrun.py")
    return None


def render(estimates: list[StudyEstimate], price_in: float | None = None, price_out: float | None = None) -> str:
    """The dry run's report: one block per study, then the total over all of them."""
    lines = []
    total_episodes = total_left = 0
    total_requests = total_prompt = total_completion = total_cost = 0.0
    costed = True
    width = max([len(e.out.name) + 2 for e in estimates] + [8])
    if len(estimates) > 1:
        lines.append(f"{'study':<{width}}{'episodes':>9}{'done':>7}{'remaining':>10}{'questions/episode':>19}")
    for est in estimates:
        cfg = est.config
        episodes, left = sum(s.episodes for s in est.splits), sum(s.remaining for s in est.splits)
        requests = est.remaining_requests()
        total_episodes, total_left, total_requests = total_episodes + episodes, total_left + left, total_requests + requests
        if len(estimates) > 1 and not runner.endpoint_bound(cfg):  # a grid: one row per study
            per_episode = sum(s.episodes * s.questions for s in est.splits) / max(episodes, 1)
            lines.append(f"{est.out.name:<{width}}{episodes:>9}{episodes - left:>7}{left:>10}{per_episode:>19.1f}"
                         + (f"  (refused: {est.refused})" if est.refused else ""))
            continue
        lines.append(f"{cfg.label()} on {cfg.suite} -> {est.out}")
        if est.refused:
            lines.append(f"  note: pgt run would refuse this folder: {est.refused}")
        lines.append(f"  {'split':<10}{'problems':>9}{'seeds':>7}{'episodes':>10}{'done':>7}{'remaining':>11}"
                     f"{'questions/episode':>19}")
        for s in est.splits:
            lines.append(f"  {s.split:<10}{s.problems:>9}{s.seeds:>7}{s.episodes:>10}{s.done:>7}{s.remaining:>11}"
                         f"{s.questions:>19.1f}")
        lines.append(f"  total: {episodes} episodes, {episodes - left} done, {left} to run, "
                     f"about {requests:,.0f} {'requests to the endpoint' if runner.endpoint_bound(cfg) else 'questions'}")
        if runner.endpoint_bound(cfg):
            prompt, completion = est.tokens()
            total_prompt, total_completion = total_prompt + prompt, total_completion + completion
            how = ("measured means of this folder's finished episodes" if est.measured else
                   "estimated from the study's prompts and images" + (f" (+{COT_TOKENS} assumed reasoning tokens a "
                                                                       "reply with --cot)" if cfg.cot else ""))
            lines.append(f"  tokens: about {prompt:,.0f} prompt + {completion:,.0f} completion ({how})")
            price = price_for(cfg.model, price_in, price_out)
            if price is None:
                costed = False
                lines.append(f"  cost: unknown for model {cfg.model!r}; pass --price-in/--price-out "
                             "(USD per 1M tokens; 0 for a local endpoint)")
            else:
                cost = (prompt * price[0] + completion * price[1]) / 1e6
                total_cost += cost
                lines.append(f"  cost: about {_usd(cost)} at ${price[0]:g} in / ${price[1]:g} out per 1M tokens "
                             f"({price[2]})")
    lines.append(f"grid: {len(estimates)} stud{'y' if len(estimates) == 1 else 'ies'}, {total_episodes} episodes, "
                 f"{total_left} to run, about {total_requests:,.0f} questions"
                 + (f", {total_prompt + total_completion:,.0f} tokens" if total_prompt else "")
                 + (f", {_usd(total_cost)}" if total_prompt and costed else ""))
    lines.append(f"estimates: questions per episode from the protocol played with a perfect model on up to "
                 f"{SAMPLE} problems per split (seed 0); wrong answers add questions, so read them as a floor. "
                 "Nothing was run, written or sent.")
    return "\n".join(lines)


def _usd(amount: float) -> str:
    """Dollars with cents, or with four decimals below a cent (a short test run)."""
    return f"${amount:,.2f}" if amount >= 0.01 or amount == 0 else f"${amount:.4f}"
