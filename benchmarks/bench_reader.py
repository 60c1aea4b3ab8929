"""Plan reading: read rate and misreads on generated replies, and speed on plain plans (a script).

Why: the plan reader must read the shapes models write (issue 15) without ever
reading a wrong plan, and without making ``validate-batch`` slower on the plain
plans it mostly sees. From one run this prints:

* read rate over a corpus of generated replies: random valid plans of every
  shipped problem, wrapped in each reply shape (markers, fences, a list and a
  fenced copy, several actions per line, continuations, split actions,
  timestamps, English through the domain's templates with synonyms and filler),
  plus refusals and prose-only replies that must get their verdicts. A *misread*
  is a reply that reads as a complete plan different from the one written, or a
  refusal read as steps: the target is 0;
* the time to validate plain PDDL plans (``check_plan`` from text) against the
  parser of a git revision (default ``main``) run in the same process on the
  same plans and tasks: the target is a ratio <= 1.10.

Run: ``python -m benchmarks.bench_reader`` (``--seed``, ``--walks``, ``--against REV``).
"""

from __future__ import annotations

import argparse
import random
import re
import subprocess
import sys
import time
import types
from pathlib import Path
from typing import Callable

from benchmarks.walks import random_walk as walk
from toolkit.domains import DOMAINS_ROOT
from toolkit.plans import parse_plan
from toolkit.questions import QuestionBook
from toolkit.task import GroundAction, Task, load_task
from toolkit.verify import check_plan

ROOT = Path(__file__).resolve().parent.parent
TARGET_RATIO = 1.10
FILLER = ["First, ", "Then ", "Next, ", "Now I will ", "After that, ", "Finally, "]


def tasks() -> list[Task]:
    return [load_task(dom, prob) for dom in sorted(DOMAINS_ROOT.glob("*/domain.pddl"))
            for prob in sorted((dom.parent / "problems").glob("*.pddl"))]




def _call(a: GroundAction) -> str:
    return f"{a.name}({', '.join(a.args)})"


def shapes(plan: list[GroundAction], book: QuestionBook, rng: random.Random) -> dict[str, str]:
    """One reply per shape, each meaning exactly ``plan``."""
    pddl = [str(a) for a in plan]
    english = [book.action_text(a) for a in plan]
    pairs = [" ".join(pddl[i:i + 2]) for i in range(0, len(pddl), 2)]
    split = [p.replace(" ", "\n  ", 1) if p.count(" ") >= 1 else p for p in pddl]
    return {
        "markers": "Let me think about the blocks first.\n\n[PLAN]\n" + "\n".join(pddl) + "\n[PLAN END]\nDone.",
        "query-markers": "[QUERY PLAN]\n" + "\n".join(pddl) + "\n[PLAN END]",
        "fence": "Here is the plan:\n```pddl\n" + "\n".join(pddl) + "\n```\nIt reaches the goal.",
        "list+fence": "".join(f"{i}. {p}\n" for i, p in enumerate(pddl, 1)) + "\n```\n" + "\n".join(pddl) + "\n```",
        "two-per-line": "\n".join(pairs),
        "calls-per-line": ", ".join(_call(a) for a in plan),
        "continuations": " \\\n".join(pddl),
        "split-actions": "\n".join(split),
        "timestamps": "".join(f"{i}.000: {p} [1.000]\n" for i, p in enumerate(pddl)) + f"; cost = {len(pddl)}",
        "bullets": "".join(f"- **Step {i}:** {p}\n" for i, p in enumerate(pddl, 1)),
        "english": "[PLAN]\n" + "\n".join(english) + "\n[PLAN END]",
        "english-filler": "Here is what I would do.\n" + "".join(
            f"{i}. {rng.choice(FILLER)}{e}.\n" for i, e in enumerate(english, 1)),
        "english-synonyms": "\n".join(_synonyms(e, rng) for e in english),
    }


def _synonyms(sentence: str, rng: random.Random) -> str:
    swaps = [(r"(?<!from) on top of ", rng.choice([" onto ", " atop ", " on top of "])),
             (r"^pick up ", rng.choice(["lift ", "grab "])), (r" into ", rng.choice([" inside ", " into "]))]
    for old, new in swaps:
        sentence = re.sub(old, new, sentence)
    return sentence[0].upper() + sentence[1:] + "."


REFUSALS = ["(no plan possible)", "There is no plan: the goal is unreachable, so it is impossible.",
            "[PLAN]\nThis problem is unsolvable.\n[PLAN END]", "No solution exists."]
PROSE = ["I am not sure how to solve this.", "", "```\n```"]


def read_rate(seed: int, walks: int) -> int:
    rng = random.Random(seed)
    totals: dict[str, list[int]] = {}
    misreads: list[str] = []
    for task in tasks():
        book = QuestionBook(task)
        for _ in range(walks):
            plan = walk(task, rng, rng.randint(1, 8))
            for shape, text in shapes(plan, book, rng).items():
                parsed = parse_plan(text, task)
                ok = parsed.ok and parsed.actions == plan
                if parsed.ok and parsed.steps and not ok:
                    misreads.append(f"{shape}: {text!r}")
                totals.setdefault(shape, [0, 0])[0] += ok
                totals[shape][1] += 1
        for text in REFUSALS:
            parsed = parse_plan(text, task)
            totals.setdefault("refusal", [0, 0])[0] += parsed.verdict == "claims_unsolvable"
            totals["refusal"][1] += 1
            if parsed.steps:
                misreads.append(f"refusal: {text!r}")
        for text in PROSE:
            parsed = parse_plan(text, task)
            totals.setdefault("prose-only", [0, 0])[0] += parsed.verdict == "empty"
            totals["prose-only"][1] += 1
            if parsed.steps:
                misreads.append(f"prose: {text!r}")
    read = sum(t[0] for t in totals.values())
    count = sum(t[1] for t in totals.values())
    print(f"read rate over {count} generated replies: {read / count:.1%}; misreads: {len(misreads)} (target 0)")
    for shape, (ok, n) in totals.items():
        print(f"  {shape:18s} {ok:5d}/{n:<5d} {ok / n:.1%}")
    for line in misreads[:10]:
        print(f"  MISREAD {line}")
    return len(misreads)


def old_parser(rev: str) -> types.ModuleType:
    """``toolkit/plans.py`` as it is at ``rev``, loaded as a separate module."""
    source = subprocess.run(["git", "show", f"{rev}:toolkit/plans.py"], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout
    module = types.ModuleType("old_plans")
    module.__file__ = f"{rev}:toolkit/plans.py"
    sys.modules["old_plans"] = module
    exec(compile(source, module.__file__, "exec"), module.__dict__)
    return module


def _best(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def throughput(seed: int, rev: str, repeat: int = 5) -> float:
    old = old_parser(rev)
    rng = random.Random(seed)
    work = []
    for task in tasks():
        for _ in range(20):
            plan = walk(task, rng, 30)
            work.append((task, "".join(f"{a}\n" for a in plan)))

    def new_path() -> None:
        for task, text in work:
            check_plan(task, text)

    def old_path() -> None:  # the old reader, then the same simulation
        for task, text in work:
            check_plan(task, old.parse_plan(text, task).actions)

    new_path(), old_path()  # warm caches (grounded actions) for both alike
    t_new, t_old = _best(new_path, repeat), _best(old_path, repeat)
    steps = sum(text.count("\n") for _, text in work)
    ratio = t_new / t_old
    print(f"validate {len(work)} plain plans ({steps} steps): reader {len(work) / t_new:,.0f} plans/s, "
          f"{rev} parser {len(work) / t_old:,.0f} plans/s; time ratio {ratio:.2f} (target <= {TARGET_RATIO:.2f})")
    return ratio


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--walks", type=int, default=10, help="random plans per shipped problem")
    parser.add_argument("--against", default="main", help="git revision whose plan parser is the peer")
    args = parser.parse_args(argv)
    misreads = read_rate(args.seed, args.walks)
    ratio = throughput(args.seed, args.against)
    return 0 if misreads == 0 and ratio <= TARGET_RATIO else 1


if __name__ == "__main__":
    raise SystemExit(main())
