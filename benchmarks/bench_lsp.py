"""How live ``pgt lsp`` diagnostics feel: the quick step of a lint, against the debounce pause.

After each pause in typing the server publishes twice: the quick checks (load
errors and domain checks, with the problems beside the domain loaded) at once,
then the per-problem reachability findings, computed off the event loop. This
measures both steps on the server's own code path
(:meth:`toolkit.lsp.server.PddlServer.diagnostics`) for the ViPlan domains and
larger shipped ones, and prints the quick step's ratio to the pause (target: at
most 1.0, so diagnostics arrive within one more pause) and to a peer measured in
the same run: parsing the domain alone.

    python -m benchmarks.bench_lsp [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from toolkit import loader
from toolkit.domains import shipped_domain
from toolkit.lsp.server import DEBOUNCE_S, PddlServer


def _best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    server = PddlServer()
    print(f"{'domain':<13}{'problems':>9}{'parse only':>12}{'quick step':>12}{'/ parse':>9}{'/ pause':>9}"
          f"{'target':>8}{'full (off-loop)':>17}")
    worst = 0.0
    for name in ("blocksworld", "household", "logistics", "sokoban"):
        domain = shipped_domain(name)
        text = domain.read_text()
        problems = server.problems_of(domain)
        parse_s = _best(lambda: loader.read_domain(text, str(domain)), args.repeat)
        quick_s = _best(lambda: server.diagnostics(domain, reachability=False), args.repeat)
        full_s = _best(lambda: server.diagnostics(domain), 1)
        ratio = quick_s / DEBOUNCE_S
        worst = max(worst, ratio)
        print(f"{name:<13}{len(problems):>9}{parse_s * 1000:>9.1f} ms{quick_s * 1000:>9.1f} ms{quick_s / parse_s:>9.1f}"
              f"{ratio:>9.2f}{'PASS' if ratio <= 1 else 'FAIL':>8}{full_s * 1000:>14.0f} ms")
    print(f"worst quick step / pause = {worst:.2f} (pause {DEBOUNCE_S * 1000:.0f} ms)")
    return 0 if worst <= 1 else 1


if __name__ == "__main__":
    raise SystemExit(main())
