"""LLM-BabyBench's Decompose scores (CR, PR, ACI), run with the benchmark's own OmniBot.

Why the official bot is loaded, not rewritten: Decompose is defined by what one
program does with the model's subgoals. ``evaluators/decompose.py``
(``DecomposeEvaluator.evaluate``) hands them to the benchmark's modified BabyAI
bot (``custom/custom_babyai_bots/omniscient_fixed_plan_baby_ai_bot.py``: an
omniscient bot whose stack counts every subgoal it has to add, the "help"),
runs it until the level ends or the stack empties, then runs the same bot with
its own decomposition to get the level's ``max_help``. The scores are
``CR`` = the level was completed, ``PR`` = completed with no help,
``ACI`` = max(0, (max_help - help) / max_help) when completed, else 0. The
bot is some 1,100 lines of search heuristics whose every tie-break moves the
help count; a second copy would drift, so pgt loads that file from a checkout
of the benchmark (``--babybench-code DIR`` or ``PGT_BABYBENCH_CODE``) and owns
the rest: reading the subgoal lines (``evaluators/utils.py``
``parse_str_subgoals``), making the subgoals (``instantiate_subgoals``) and the
two runs. The official loop also renders a frame per step; rendering changes
nothing in the level, so pgt skips it.
"""

from __future__ import annotations

import copy
import importlib.util
import os
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from toolkit.errors import PgtError
from toolkit.scoring.babyai_levels import make_level

BOT_FILE = Path("custom/custom_babyai_bots/omniscient_fixed_plan_baby_ai_bot.py")
SUBGOAL_TYPES = ("ExploreSubgoal", "GoNextToSubgoal", "PickupSubgoal", "OpenSubgoal", "CloseSubgoal", "DropSubgoal")
_WITH_TUPLE = re.compile(r"([^,]+?)\s*,\s*\(\s*([^\(\)]+?)\s*\)")
_WITHOUT_TUPLE = re.compile(r"([^,]+)")
_bots: dict[Path, ModuleType] = {}


def load_bot(code_dir: str | os.PathLike[str] | None) -> ModuleType:
    """The OmniBot module from a checkout of choukrani/llm-babybench (cached per folder)."""
    where = code_dir or os.environ.get("PGT_BABYBENCH_CODE")
    if not where:
        raise PgtError("Decompose runs LLM-BabyBench's own bot: give a checkout of choukrani/llm-babybench "
                       "with --babybench-code DIR (or PGT_BABYBENCH_CODE)")
    path = (Path(where) / BOT_FILE).resolve()
    if path not in _bots:
        if not path.is_file():
            raise PgtError(f"{where}: not a checkout of choukrani/llm-babybench (no {BOT_FILE})")
        spec = importlib.util.spec_from_file_location(f"_pgt_babybench_omnibot_{len(_bots)}", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # the bot's dataclass-free classes still want a home module
        spec.loader.exec_module(module)
        _bots[path] = module
    return _bots[path]


def parse_subgoals(text: str) -> list[tuple[str, tuple[int, ...] | None]]:
    """The subgoal lines of a Decompose answer, read as ``parse_str_subgoals`` reads them.

    One subgoal per line, ``(Name, (x, y))`` or ``(Name)``; one outer pair of
    parentheses is optional. A line in neither form (an empty one included) is
    an error, as in the official reader.

    >>> parse_subgoals("(GoNextToSubgoal, (3, 5))\\nPickupSubgoal")
    [('GoNextToSubgoal', (3, 5)), ('PickupSubgoal', None)]
    """
    out: list[tuple[str, tuple[int, ...] | None]] = []
    for number, line in enumerate(text.split("\n"), 1):
        s = line.strip()
        if s.startswith("(") and s.endswith(")"):
            s = s[1:-1].strip()
        with_tuple, without = _WITH_TUPLE.fullmatch(s), _WITHOUT_TUPLE.fullmatch(s)
        if with_tuple:
            try:
                datum = tuple(int(v.strip()) for v in with_tuple.group(2).split(","))
            except ValueError:
                raise PgtError(f"subgoal line {number}: {line.strip()!r}: the position must be integers") from None
            out.append((with_tuple.group(1).strip(), datum))
        elif without:
            out.append((without.group(1).strip(), None))
        else:
            raise PgtError(f"subgoal line {number}: {line.strip()!r} is not '(Name, (x, y))' or '(Name)'")
    for name, _ in out:
        if name not in SUBGOAL_TYPES:
            raise PgtError(f"unknown subgoal type '{name}' (the bot knows {', '.join(SUBGOAL_TYPES)})")
    return out


def _run(env: Any, bot: Any) -> bool:
    """The evaluator's loop: step the bot's actions until the level ends or the bot's stack is empty."""
    done = truncated = False
    last_action = None
    while not done and not truncated and len(bot.stack) > 0:
        action = bot.replan(last_action)
        _obs, _reward, done, truncated, _info = env.step(action)
        last_action = action
    return bool(done)


def score_decompose(level: str, seed: int, output: str, code_dir: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """Official Decompose keys ``CR``, ``PR``, ``ACI``, plus the two help counts."""
    module = load_bot(code_dir)
    subgoals = parse_subgoals(output)
    env = make_level(level, seed)
    try:
        local = copy.deepcopy(env)
        bot = module.BabyAIBot(local, [])
        bot.reset(subgoals_plan=[getattr(module, name)(bot, datum=datum) for name, datum in subgoals])
        done = _run(local, bot)
        help_count = bot.return_help_count()
        validate = copy.deepcopy(env)
        bot_validate = module.BabyAIBot(validate, [])
        bot_validate.provide_initial_subgoals()
        _run(validate, bot_validate)
        max_help = bot_validate.return_help_count()
    except PgtError:
        raise
    except Exception as exc:  # the bot's own failures (assertions, impossible subgoals) end the official run too
        raise PgtError(f"the benchmark's bot failed on these subgoals: {type(exc).__name__}: {exc}") from None
    finally:
        env.close()
    if done and max_help == 0:
        raise PgtError("the bot needed no help on its own decomposition: ACI divides by zero in the official code")
    return {"CR": float(done), "PR": float(done and help_count == 0),
            "ACI": max(0, (max_help - help_count) / max_help) if done else 0.0,
            "help_count": help_count, "max_help": max_help}
