"""The study runner: a study's episodes (:mod:`benchmarks.study_config`), each run by
:func:`benchmarks.episode.run_episode`, in parallel, resumable.

Every finished episode is appended at once to ``<out>/episodes.jsonl`` (one JSON
object a line, schema-versioned, flushed), so an interrupt loses nothing that
finished. Re-running the same command skips the episodes already in the file
and never writes one twice; a different configuration in the same folder is
refused. Each episode's randomness comes only from (seed, problem), so results do
not depend on the number of workers or their scheduling.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from pathlib import Path
from typing import Any, Iterator

from benchmarks.episode import (check_world, episode_task, make_grounder, make_planner, needs_images, recorded_replies_of,
                                run_episode)
from benchmarks.store import (Appender, Episodes, Finished, Record, StudyLock, collect, complete_tail, read_records,
                              repair, write_config)
from benchmarks.study_config import EpisodeSpec, RunConfig, episode_specs
from toolkit.errors import PgtError


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
        episode_task(*key)
    first = specs[0]
    task = episode_task(first.domain, first.problem)
    if config.protocol == "viplan-planner":
        from grounders.factory import build_proposer

        build_proposer(config, task, first.id, 0, recorded_replies_of(config))
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
