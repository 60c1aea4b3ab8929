"""A plan cache keyed by (domain, start state, goal, planner configuration).

Grounding loops ask for the same plan again and again (replanning from a state
seen before, or the same episode under another seed). The cache holds solved
and unsolvable results; timeouts and crashes are never cached. The memory tier
is an LRU dict (a hit costs a few microseconds); the optional disk tier is a
SQLite file in WAL mode, so several processes can share it safely.

The domain part of the key is a hash of the domain's canonical PDDL text
(:func:`toolkit.planners.pddl_text.domain_key`), so editing a domain never
returns a stale plan.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections import OrderedDict
from pathlib import Path

from toolkit import model as m
from toolkit.errors import PgtError
from toolkit.model import Atom
from toolkit.planners.base import (
    GoalArg, InitArg, Planner, PlanResult, PlanStatus, compiled_goal, goal_condition, start_state,
)
from toolkit.planners.pddl_text import domain_key
from toolkit.semantics import holds
from toolkit.task import Task

_CACHEABLE = (PlanStatus.SOLVED, PlanStatus.UNSOLVABLE)

Entry = tuple[str, tuple[str, ...], str, bool]
"""A cached result: status, plan steps, the planner that found it, whether the plan is proven optimal."""


class PlanCache:
    """In-memory LRU plus optional on-disk SQLite store of plan results.

    Args:
        max_entries: size of the in-memory LRU.
        path: a SQLite file for the disk tier (created if missing), or None.
    """

    def __init__(self, max_entries: int = 10_000, path: str | Path | None = None) -> None:
        self.max_entries = max_entries
        self._mem: OrderedDict[str, Entry] = OrderedDict()
        self._domain_keys: dict[int, tuple[m.Domain, str]] = {}
        self.hits = self.misses = 0
        self.path = Path(path) if path else None
        self._db: sqlite3.Connection | None = None
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            try:
                self._db = sqlite3.connect(str(self.path), timeout=30, isolation_level=None,
                                           check_same_thread=False)
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("CREATE TABLE IF NOT EXISTS plans (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            except sqlite3.DatabaseError as exc:  # another file under that name (a typo, or a cache of another tool)
                raise PgtError(f"{self.path}: cannot use as a plan cache: {exc}") from None

    def _domain_key(self, domain: m.Domain) -> str:
        hit = self._domain_keys.get(id(domain))
        if hit is None or hit[0] is not domain:
            hit = (domain, domain_key(domain))
            self._domain_keys[id(domain)] = hit
        return hit[1]

    def key(self, task: Task, state: frozenset[Atom], goal: m.Condition, config: str) -> str:
        """The cache key: a digest of domain, objects, state, goal and configuration."""
        parts = (self._domain_key(task.domain), " ".join(f"{o}:{t}" for o, t in sorted(task.objects.items())),
                 " ".join(sorted(map(str, state))), str(goal), config)
        return hashlib.blake2b("\n".join(parts).encode(), digest_size=16).hexdigest()

    def get(self, key: str) -> Entry | None:
        hit = self._mem.get(key)
        if hit is not None:
            self._mem.move_to_end(key)
            return hit
        if self._db is not None:
            row = self._db.execute("SELECT value FROM plans WHERE key = ?", (key,)).fetchone()
            if row is not None:
                data = json.loads(row[0])
                # entries written before optimality was stored never claim it
                entry = (data["status"], tuple(data["plan"]), data["planner"], bool(data.get("optimal", False)))
                self._remember(key, entry)
                return entry
        return None

    def put(self, key: str, result: PlanResult) -> None:
        if result.status not in _CACHEABLE:
            return
        entry = (result.status.value, tuple(str(a) for a in result.plan), result.planner, result.optimal)
        self._remember(key, entry)
        if self._db is not None:
            value = json.dumps({"status": entry[0], "plan": list(entry[1]), "planner": entry[2],
                                "optimal": entry[3]})
            self._db.execute("INSERT OR REPLACE INTO plans (key, value) VALUES (?, ?)", (key, value))

    def _remember(self, key: str, entry: Entry) -> None:
        self._mem[key] = entry
        self._mem.move_to_end(key)
        while len(self._mem) > self.max_entries:
            self._mem.popitem(last=False)

    def clear_memory(self) -> None:
        self._mem.clear()

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None


class CachedPlanner:
    """Wraps a planner with a :class:`PlanCache`; same protocol, ``cached=True`` on hits."""

    def __init__(self, planner: Planner, cache: PlanCache | None = None) -> None:
        self.planner = planner
        self.cache = cache if cache is not None else PlanCache()
        self.name = planner.name
        self.optimal = planner.optimal

    def solve(self, task: Task, *, init: InitArg = None, goal: GoalArg = None, timeout: float = 60.0) -> PlanResult:
        t0 = time.perf_counter()
        state = start_state(task, init, getattr(self.planner, "unknown_as", False))
        goal_cond = goal_condition(task, goal)
        config = getattr(self.planner, "config", lambda: self.planner.name)()
        key = self.cache.key(task, state, goal_cond, config)
        hit = self.cache.get(key)
        if hit is not None:
            result = self._from_entry(task, state, goal_cond, hit, t0)
            if result is not None:
                self.cache.hits += 1
                return result
        self.cache.misses += 1
        result = self.planner.solve(task, init=state, goal=goal_cond, timeout=timeout)
        self.cache.put(key, result)
        return result

    @staticmethod
    def _from_entry(task: Task, state: frozenset[Atom], goal: m.Condition,
                    entry: Entry, t0: float) -> PlanResult | None:
        status, steps, planner, optimal = entry
        plan = []
        for step in steps:
            atom = Atom.parse(step)
            plan.append(task.action(atom.predicate, atom.args))
        if status == PlanStatus.SOLVED.value:
            cur = state  # a cheap replay guards against a corrupted or foreign disk entry
            for act in plan:
                if not act.is_applicable(cur):
                    return None
                cur = act.apply(cur)
            if not holds(compiled_goal(task, goal), cur):
                return None
        return PlanResult(PlanStatus(status), tuple(plan), time.perf_counter() - t0, planner,
                          message="from cache", cached=True, optimal=optimal)

