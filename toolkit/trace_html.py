"""A plan trace as one self-contained HTML page (``pgt validate ... --html OUT.html``).

A validation report says *where* a plan breaks; an author also wants to *see* it:
each step with its status, what it added and deleted, the preconditions that
did not hold, the goal gap at the end, and, where a world renderer exists for
the domain (:mod:`scene_graphs.registry`), a picture of every state. Everything
is inline (styles, and images as data URIs) so the file opens in any browser
with no server and no network; it has no scripts at all.
"""

from __future__ import annotations

import base64
import html
from pathlib import Path

from toolkit.model import Atom
from toolkit.plans import ParsedPlan
from toolkit.task import Task
from toolkit.verify import PlanReport, StepReport, describe_unmet

_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:70em;color:#222;padding:0 1em}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}
.verdict{padding:.6em 1em;border-radius:6px;font-weight:600}
.ok{background:#e6f4ea;color:#1e6b34}.bad{background:#fdecea;color:#a1261b}.skip{background:#f1f3f4;color:#5f6368}
table{border-collapse:collapse;width:100%}td,th{border-top:1px solid #ddd;padding:.4em .6em;vertical-align:top;text-align:left}
code{font:13px ui-monospace,monospace}.add{color:#1e6b34}.del{color:#a1261b;text-decoration:line-through}
.unmet{background:#fdecea;color:#a1261b;font-weight:600;padding:0 .3em;border-radius:3px}
.status{white-space:nowrap;font-weight:600;border-radius:4px;padding:.1em .5em}
img{max-width:22em;border:1px solid #ddd;border-radius:4px}
ul{margin:.2em 0;padding-left:1.2em}details summary{cursor:pointer;color:#1a73e8}
.source{color:#5f6368;font-size:.92em;margin-top:.2em}
"""


def _e(x: object) -> str:
    return html.escape(str(x))


def _atoms(atoms, cls: str = "") -> str:
    if not atoms:
        return "<em>none</em>"
    return "<ul>" + "".join(f'<li><code class="{cls}">{_e(a)}</code></li>' for a in sorted(atoms, key=str)) + "</ul>"


def _image(png: bytes | None, alt: str) -> str:
    if png is None:
        return ""
    return f'<img alt="{_e(alt)}" src="data:image/png;base64,{base64.b64encode(png).decode("ascii")}">'


def trace_page(task: Task, parsed: ParsedPlan, report: PlanReport, images: list[bytes | None] | None = None,
               title: str = "") -> str:
    """The HTML text of the trace page for a checked plan."""
    verdict = "VALID" if report.valid else f"INVALID ({report.reason.value if report.reason else 'error'})"
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>{_e(title or f'plan trace: {task.problem.name}')}</title><style>{_STYLE}</style></head><body>",
           f"<h1>Plan trace: problem <code>{_e(task.problem.name)}</code>, domain <code>{_e(task.domain.name)}</code></h1>",
           f'<p class="verdict {"ok" if report.valid else "bad"}" id="verdict">{_e(verdict)}: {_e(report.message)}</p>',
           "<h2>Initial state</h2>", _image(images[0] if images else None, "initial state"),
           f"<details><summary>{len(task.init)} atoms true initially</summary>{_atoms(task.init)}</details>",
           "<h2>Steps</h2><table><thead><tr><th>#</th><th>step</th><th>status</th><th>what changed</th>"
           + ("<th>state after</th>" if images else "") + "</tr></thead><tbody>"]
    by_index = {s.index: s for s in report.steps}
    before = task.init
    for i, step in enumerate(parsed.steps, start=1):
        rep = by_index.get(step.index)
        image = images[i] if images and i < len(images) and rep is not None else None
        source = f"line {step.line}: {step.text}" if step.line and (
            step.read_as == "natural-language" or str(step.action or "") != step.text) else ""
        out.append(_row(step.index, step.text, rep, before, image, report, bool(images), source))
        if rep is not None and rep.state_after is not None:
            before = rep.state_after
    if not parsed.steps:
        out.append('<tr><td colspan="5"><em>the plan has no steps</em></td></tr>')
    out.append("</tbody></table>")
    out.append(_skipped(parsed))
    out.append(_goal(task, report))
    out.append("</body></html>")
    return "\n".join(out)


def _skipped(parsed: ParsedPlan) -> str:
    """The lines of the reply that are not steps, each with why: what the reader left out."""
    if not parsed.skipped:
        return ""
    rows = "".join(f'<tr class="skipped"><td>{k.line}</td><td><code>{_e(k.text)}</code></td><td>{_e(k.why)}</td></tr>'
                   for k in parsed.skipped)
    return (f'<h2>Skipped lines</h2><details id="skipped"><summary>{len(parsed.skipped)} line(s) of the reply are '
            f"not steps</summary><table><thead><tr><th>line</th><th>text</th><th>why</th></tr></thead>"
            f"<tbody>{rows}</tbody></table></details>")


def _row(index: int, text: str, rep: StepReport | None, before: frozenset[Atom], image: bytes | None,
         report: PlanReport, with_images: bool, source: str = "") -> str:
    if rep is None:
        status, cls = "not run", "skip"
        detail = (f"the check stopped at step {report.failed_step}; "
                  "run with --continue to check every step") if report.failed_step else ""
    elif rep.action is None:
        status, cls, detail = "unreadable", "bad", _e(rep.message)
    else:
        status, cls = ("ok", "ok") if rep.applicable else ("not applicable", "bad")
        parts = []
        if rep.unmet:
            parts.append("unmet preconditions:<ul>" + "".join(
                f'<li><span class="unmet">{_e(describe_unmet(u))}</span></li>' for u in rep.unmet) + "</ul>")
        if rep.state_after is not None:
            added, deleted = rep.state_after - before, before - rep.state_after
            parts.append(f"added: {_atoms(added, 'add')}deleted: {_atoms(deleted, 'del')}")
            if rep.fired:
                parts.append("conditional effects fired: " + ", ".join(f"<code>{_e(f)}</code>" for f in rep.fired))
        elif not rep.applicable:
            parts.append("<em>the state is unchanged</em>")
        detail = "".join(parts)
    action = rep.action if rep is not None and rep.action else text
    said = f'<div class="source">{_e(source)}</div>' if source and rep is not None and rep.action else ""
    cells = [f"<td>{index}</td>", f"<td><code>{_e(action)}</code>{said}</td>",
             f'<td><span class="status {cls}">{status}</span></td>', f"<td>{detail}</td>"]
    if with_images:
        note = "" if image is not None or rep is None else "<em>no picture: the world does not reach this state</em>"
        cells.append(f"<td>{_image(image, f'state after step {index}') or note}</td>")
    return f'<tr class="step" id="step-{index}" data-status="{_e(status)}">' + "".join(cells) + "</tr>"


def _goal(task: Task, report: PlanReport) -> str:
    literals = [str(lit) for lit in task.goal.literals]
    unmet = set(report.goal_unmet)
    rows = "".join(f'<li><code class="{"unmet" if lit in unmet else "add"}">{_e(lit)}</code> '
                   f'{"unmet" if lit in unmet else "holds"}</li>' for lit in literals)
    rows += "".join(f'<li><code class="unmet">{_e(u)}</code> unmet</li>' for u in report.goal_unmet if u not in literals)
    head = ("the goal holds" if not report.goal_unmet
            else f"{len(report.goal_unmet)} of {report.goal_size} goal condition(s) unmet in the last state reached")
    return f'<h2>Goal</h2><p id="goal-gap">{_e(head)}</p><ul>{rows}</ul>'


def write_trace(path: str | Path, task: Task, parsed: ParsedPlan, report: PlanReport,
                images: list[bytes | None] | None = None) -> Path:
    """Write the trace page, with the state pictures a world rendered (the CLI asks ``scene_graphs`` for them)."""
    out = Path(path)
    out.write_text(trace_page(task, parsed, report, images), encoding="utf-8")
    return out
