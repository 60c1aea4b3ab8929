"""``pgt validate-batch INPUT.jsonl``: validate many plans, e.g. from an LLM study.

Each input line is ``{"id": ..., "domain": PATH, "problem": PATH, "plan": TEXT}``,
optionally with ``"objects": PATH`` (object descriptions for English plans; ``--objects``
gives one file for every line that names none, e.g. a corpus's object names).
The plan text may be a whole model reply. Output: one JSON line per input (``id``,
``valid``, ``failed_step``, ``reason``, ``message``, ``reading``, ...), then a summary. Bad input on one line is reported on that line
and the batch goes on.

Each distinct domain and problem is parsed once, keyed by content (a file edited
between lines is read again; the same text under two paths is parsed once), and
``--workers N`` validates chunks of lines in N processes, output in input order.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import hashlib
import itertools
import json
import multiprocessing
import os
import signal
import sys
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any, Iterable, Iterator

from toolkit import loader
from toolkit.commands.validate import english_reader, read_text
from toolkit.domains import resolve_domain_arg
from toolkit.errors import PgtError
from toolkit import model as m
from toolkit.task import Task
from toolkit.verify import check_plan
from toolkit import cli_args
from toolkit import jsontext


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("validate-batch", help="validate a JSON Lines batch of plans",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input", type=cli_args.input_file, help="JSON Lines file ('-' for standard input)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON too (last line)")
    p.add_argument("--continue", dest="keep_going", action="store_true", help="report every violation per plan")
    p.add_argument("--objects", metavar="FILE", type=cli_args.input_file,
                   help="object descriptions for every line without its own \"objects\" (names a problem lacks "
                   "are ignored)")
    p.add_argument("--workers", type=cli_args.count, default=1, metavar="N",
                   help="validate in N processes (default 1; output keeps the input order)")
    p.set_defaults(func=run)


class TaskCache:
    """Tasks keyed by the content of their domain and problem; paths relative to the input file's folder.

    A file is read again only when its modification time or size changes, and
    parsed again only when its text does.
    """

    def __init__(self, base: Path) -> None:
        self.base = base
        self.texts: dict[tuple[str, int, int], tuple[str, str]] = {}  # (path, mtime, size) -> (text, digest)
        self.domains: dict[str, m.Domain] = {}
        self.tasks: dict[tuple[str, str], Task] = {}

    def _read(self, path: str) -> tuple[str, str]:
        try:
            st = os.stat(path)
        except OSError as exc:
            raise PgtError(f"cannot read {path}: {exc.strerror}") from None
        key = (path, st.st_mtime_ns, st.st_size)
        hit = self.texts.get(key)
        if hit is None:
            text = read_text(path)
            hit = self.texts[key] = (text, hashlib.sha256(text.encode()).hexdigest())
        return hit

    def _path(self, value: Any, field: str) -> str:
        if not isinstance(value, str) or not value:
            raise PgtError(f"'{field}' must be a path string")
        p = Path(value)
        if not p.is_absolute() and not p.exists() and (self.base / p).exists():
            p = self.base / p
        return str(p)

    def get(self, domain: Any, problem: Any) -> Task:
        dpath = str(resolve_domain_arg(self._path(domain, "domain")))
        dtext, dkey = self._read(dpath)
        ptext, pkey = self._read(self._path(problem, "problem"))
        task = self.tasks.get((dkey, pkey))
        if task is None:
            dom = self.domains.get(dkey)
            if dom is None:
                dom = self.domains[dkey] = loader.parse_domain(dtext, dpath)
            task = self.tasks[(dkey, pkey)] = Task(dom, loader.parse_problem(ptext, dom, self._path(problem, "problem")))
        return task


def validate_records(lines: Iterable[str], base: Path, keep_going: bool = False, workers: int = 1,
                     chunk: int = 32, objects: str | None = None) -> Iterator[dict[str, Any]]:
    """One result per non-blank line, in input order (``workers`` > 1: that many processes).

    ``objects``: the descriptions file of every line that names none of its own."""
    numbered = ((n, line) for n, line in enumerate(lines, 1) if line.strip())
    if workers <= 1:
        cache = TaskCache(base)
        for lineno, line in numbered:
            yield _validate_line(cache, lineno, line, keep_going, objects)
        return
    chunks = iter(lambda: list(itertools.islice(numbered, chunk)), [])
    ctx = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    # concurrent.futures, not multiprocessing.Pool: a Pool whose worker is killed (out of memory, say) waits
    # for its results forever; this one says so. At most 2 chunks per worker are read ahead of the output.
    pool = ProcessPoolExecutor(workers, mp_context=ctx, initializer=_init_worker, initargs=(base, keep_going, objects))
    try:
        ahead: collections.deque = collections.deque()
        while True:
            while len(ahead) < 2 * workers and (part := next(chunks, None)) is not None:
                ahead.append((part[0][0], pool.submit(_validate_chunk, part)))
            if not ahead:
                break
            first, future = ahead.popleft()
            try:
                results = future.result()
            except BrokenProcessPool:
                raise PgtError(f"a worker process died while validating the batch from line {first} on (out of "
                               "memory?); the lines before it were written; --workers 1 finds the line") from None
            yield from results
    except BaseException:
        _abandon(pool)
        raise
    pool.shutdown(wait=True)


def _abandon(pool: ProcessPoolExecutor) -> None:
    """Stop the workers now (Ctrl-C, a dead worker, the reader gone): nothing they hold will be written.

    ``with ProcessPoolExecutor`` shuts down with ``wait=True``: after a Ctrl-C the command
    waited for every chunk already handed out (long plans: seconds per chunk, issue 27).
    """
    terminate = getattr(pool, "terminate_workers", None)  # Python 3.14
    if terminate is not None:
        terminate()
        return
    procs = list((getattr(pool, "_processes", None) or {}).values())  # before shutdown(), which forgets them
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        if proc.is_alive():
            proc.terminate()


_WORKER: tuple[TaskCache, bool, str | None] | None = None  # each worker process's own cache


def _init_worker(base: Path, keep_going: bool, objects: str | None) -> None:
    global _WORKER
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it stops the workers
    _WORKER = (TaskCache(base), keep_going, objects)


def _validate_chunk(lines: list[tuple[int, str]]) -> list[dict[str, Any]]:
    assert _WORKER is not None
    cache, keep_going, objects = _WORKER
    return [_validate_line(cache, lineno, line, keep_going, objects) for lineno, line in lines]


def _validate_line(cache: TaskCache, lineno: int, line: str, keep_going: bool,
                   default_objects: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"id": None, "line": lineno}
    try:
        rec = jsontext.loads(line)
        if not isinstance(rec, dict):
            raise PgtError("each line must be a JSON object")
        out["id"] = rec.get("id", lineno)
        plan = rec.get("plan")
        if isinstance(plan, list):
            plan = json.dumps(plan)
        if not isinstance(plan, str):
            raise PgtError("'plan' must be text (or a JSON list of steps)")
        task = cache.get(rec.get("domain"), rec.get("problem"))
        objects = rec.get("objects")
        notes: list[str] = []
        path = cache._path(objects, "objects") if objects is not None else default_objects
        reader = english_reader(task, path, notes) if path is not None else None
        report = check_plan(task, plan, keep_going=keep_going, action_text=reader)
        data = report.to_json()
        data.pop("steps")
        if notes:
            data["reading"]["notes"] = notes
        out.update(data)
    except json.JSONDecodeError as exc:
        out.update(valid=False, failed_step=None, reason="bad_input", message=f"line {lineno}: not JSON: {exc.msg}")
    except PgtError as exc:
        out.update(valid=False, failed_step=None, reason="bad_input", message=f"line {lineno}: {exc}")
    return out


def summarize(results: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(results)
    valid = sum(1 for r in results if r["valid"])
    reasons = collections.Counter(r["reason"] for r in results if not r["valid"])
    return {"summary": True, "plans": n, "valid": valid, "valid_share": (valid / n) if n else 0.0,
            "reasons": dict(sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])))}


def run(args: argparse.Namespace) -> int:
    if args.input == "-":
        lines, base = iter(sys.stdin.read().splitlines()), Path.cwd()
    else:
        lines, base = iter(read_text(args.input, comment=None).splitlines()), Path(args.input).resolve().parent
    results = []
    # closing(): a Ctrl-C while a result is printed stops the workers too (the generator's handler runs now,
    # not when the interpreter exits and waits for every chunk the workers hold)
    with contextlib.closing(validate_records(lines, base, args.keep_going, args.workers, objects=args.objects)) as records:
        for out in records:
            results.append(out)
            print(json.dumps(out), flush=True)
    summary = summarize(results)
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"# {summary['valid']} of {summary['plans']} plans valid ({summary['valid_share']:.1%})", file=sys.stderr)
        for reason, count in summary["reasons"].items():
            print(f"#   {reason}: {count}", file=sys.stderr)
    return 0 if summary["valid"] == summary["plans"] else 1
