"""The differential benchmark's accounting: every problem in exactly one row class, none left out silently.

Why: over both public IPC collections some problems cannot be compared on a shared
2-core machine (one side runs past the limit or out of memory), and some are read
differently by the two tools (FD's parser refuses what pgt reads). A summary that
only counts the compared ones would hide them. :func:`summary` puts each problem in
one class and prints each one that is not a plain comparison with its reason:

- ``compared``: both groundings, every difference classified
  (:mod:`benchmarks.grounding_diff`);
- ``compared on FD's reading of a repaired copy``: FD refuses the files, a copy
  repaired as :mod:`benchmarks.fd_reading` says is compared instead; the problem's
  difference is a reading difference, and the comparison shows what it hides;
- ``not compared``: over the limit (how far each side got, peak memory at the kill)
  or failed, with the proxy compared in its place where there is one: the same
  folder's next-largest problem (``--proxy N`` tries N of them, largest first);
- ``refused by both``: pgt's and FD's parsers both refuse the files (invalid input:
  elevators-00-full f30-4 declares one object several times, once per type, which
  FD's ``parse_task`` refuses through ``check_for_duplicates`` in
  ``pddl_parser/parsing_functions.py`` and VAL's parser as a fatal "Re-declaration of
  symbol in same scope": ``c_new_const_symbol`` in ``libraries/VAL/src/Parser/pddl+.y``,
  ``new_symbol_put`` in ``libraries/VAL/include/ptree.h``);
- ``duplicate``: the same domain and problem files met in the other collection, run once.
"""

from __future__ import annotations

import collections
import re
from collections.abc import Iterator
from pathlib import Path

Case = tuple[str, Path, Path]  # (name, domain file, problem file)


def ranked_folders(roots: list[Path], only: list[str] | None = None) -> dict[str, list[Case]]:
    """Every domain folder's problems (with their domain file), smallest file first."""
    from benchmarks.sweep_ipc import discover

    out: dict[str, list[Case]] = {}
    for root in roots:
        by_folder: dict[str, list] = collections.defaultdict(list)
        for case in discover(root, only=only or ()):
            if case.domain is not None:
                by_folder[f"{root.name}/{Path(case.name).parent}"].append(case)
        for folder, cases in by_folder.items():
            ranked = sorted(cases, key=lambda c: (c.problem.stat().st_size, c.name))
            out[folder] = [(f"{root.name}/{c.name}", c.domain, c.problem) for c in ranked]
    return out


def proxy_candidates(ranked: dict[str, list[Case]], name: str, n: int) -> list[Case]:
    """Up to ``n`` problems of ``name``'s folder smaller than it and larger than the folder's smallest, largest
    first: what to compare in place of a largest problem that does not finish."""
    cases = ranked.get(name.rsplit("/", 1)[0], [])
    names = [c[0] for c in cases]
    if name not in names:
        return []
    return list(reversed(cases[1:names.index(name)]))[:n]


def over_limit(rec: dict) -> bool:
    return re.fullmatch(r"over [0-9.]+s", rec.get("error", "")) is not None


def _reason(rec: dict) -> str:
    """The class of a problem not compared: over the limit (and which side was still running, where the run
    says: pgt finished its grounding and FD's had not, or pgt's had not), out of memory, or failed."""
    if not over_limit(rec) and not rec["error"].startswith("out of memory"):
        return "failed"
    side = rec.get("reached", "")
    if side.startswith("pgt done"):
        return f"{rec['error']}, FD not done"
    if side == "pgt not done":
        return f"{rec['error']}, pgt not done"
    return rec["error"]


def _side(rec: dict, told: str) -> str:
    if rec.get("error") == told:  # the row's own error: only its peak is news
        return f"peak {rec.get('peak_mb', 0):,} MB"
    if "error" in rec:
        return f"{rec['error']}, peak {rec.get('peak_mb', 0):,} MB"
    return f"done ({rec['actions']:,} actions) in {rec['s']} s, {rec['peak_mb']:,} MB"


def _why(rec: dict) -> str:
    why = rec["error"]
    if "reached" in rec:
        why = f"{rec['error']}: {rec['reached']}; peak {rec['peak_mb']:,} MB at the kill"
    if "pgt" in rec and "fd" in rec:
        # each side ran in its own process (benchmarks.grounding_diff_run): say how the other side fared
        why += f" (pgt {_side(rec['pgt'], rec['error'])}; FD {_side(rec['fd'], rec['error'])})"
    return why


def _result(rec: dict) -> str:
    counts = rec.get("counts") or {}
    if not counts:
        return f"equal ({rec['pgt_actions']:,} actions, {rec['pgt_atoms']:,} atoms)"
    return "; ".join(f"{k} {v}" for k, v in counts.items())


def summary(records: list[dict], proxies: dict[str, dict]) -> Iterator[str]:
    """The row classes (see the module's docstring); ``proxies`` maps a problem not compared to its proxy's
    record."""
    compared = [r for r in records if "pgt_actions" in r and "fd_refuses" not in r]
    repaired = [r for r in records if "pgt_actions" in r and "fd_refuses" in r]
    refused = [r for r in records if "error" in r and "fd_refuses" in r]
    missing = [r for r in records if "error" in r and "fd_refuses" not in r]
    dups = [r for r in records if "same_as" in r]
    equal = sum(1 for r in compared if not r["counts"])
    yield (f"# {len(records)} problems: {len(compared)} compared ({equal} equal, {len(compared) - equal} differing), "
           f"{len(repaired)} compared on FD's reading of a repaired copy (reading difference), "
           f"{len(refused)} refused by both (invalid input), {len(missing)} not compared, "
           f"{len(dups)} duplicates run once")
    if refused:
        yield "# refused by both pgt's and FD's parsers, so nothing to compare:"
        for r in refused:
            yield f"  {r['case']}: {r['error']}; FD: {r['fd_refuses']}"
    if repaired:
        yield "# reading difference, FD refuses the files; compared on a repaired copy:"
        for r in repaired:
            yield f"  {r['case']}: FD: {r['fd_refuses']}; copy: {'; '.join(r['fd_read_copy'])}; {_result(r)}"
    if missing:
        reasons = collections.Counter(_reason(r) for r in missing)
        yield "# not compared (" + ", ".join(f"{k}: {v}" for k, v in sorted(reasons.items())) + "):"
        for r in missing:
            proxy = proxies.get(r["case"])
            if proxy is None:
                instead = "no proxy compared"
            elif "pgt_actions" in proxy:
                instead = f"proxy {proxy['case']}: {_result(proxy)}"
            else:
                instead = f"proxy {proxy['case']} not compared either ({_why(proxy)})"
            yield f"  {r['case']}: {_why(r)}; {instead}"
