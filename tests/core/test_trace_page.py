"""``pgt validate --html``: the trace page's content, and the page in a real headless Chromium.

Chromium comes from Debian's ``chromium`` package: the set-up installs it when it
is missing and this process may (root with apt-get); otherwise the browser tests
skip, saying why. The page must load without console errors, show every plan
step, and draw its state pictures (checked on the screenshot's pixels).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from toolkit.cli import main
from toolkit.domains import shipped_domain, shipped_problem

BW = shipped_domain("blocksworld").parent
PROBLEM = shipped_problem("blocksworld", "simple_problem_0")
PLAN_3_STEPS = "(moveBlock r c2)\n(moveBlock r c2)\n(moveBlock p c3)\n"  # step 2 fails


def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        pytest.skip("Chromium is not installed and this process cannot install it (needs root and apt-get): "
                    "apt-get install chromium")
    done = subprocess.run(["apt-get", "install", "-y", "-q", "chromium"], capture_output=True, text=True,
                          env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"}, timeout=900)
    found = shutil.which("chromium")
    if done.returncode != 0 or not found:
        pytest.skip(f"apt-get install chromium failed: {(done.stderr or done.stdout).strip().splitlines()[-1:]}")
    return found


def _browse(page: Path, out: Path) -> tuple[str, list[str], Path]:
    """Load ``page`` in headless Chromium: the DOM after load, console messages, and a screenshot."""
    browser = _chromium()
    flags = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
             "--enable-logging=stderr", "--v=0", f"--user-data-dir={out / 'profile'}", "--window-size=1200,1400"]
    url = page.resolve().as_uri()
    dom = subprocess.run([*flags, "--dump-dom", url], capture_output=True, text=True, timeout=120)
    shot = out / "page.png"
    snap = subprocess.run([*flags, f"--screenshot={shot}", url], capture_output=True, text=True, timeout=120)
    console = [ln for ln in (dom.stderr + snap.stderr).splitlines() if "CONSOLE" in ln or "Uncaught" in ln]
    assert shot.is_file(), snap.stderr[-2000:]
    return dom.stdout, console, shot


@pytest.fixture(scope="module")
def trace(tmp_path_factory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("trace")
    plan = folder / "p.plan"
    plan.write_text(PLAN_3_STEPS)
    page = folder / "trace.html"
    assert main(["validate", str(BW), str(PROBLEM), str(plan), "--continue", "--html", str(page)]) == 1
    return page, folder


def test_page_content_is_self_contained_and_complete(trace):
    text = trace[0].read_text()
    assert len(re.findall(r'<tr class="step"', text)) == 3
    assert 'data-status="ok"' in text and 'data-status="not applicable"' in text
    assert '<span class="unmet">(inColumn r c2) is true</span>' in text
    assert "4 of 6 goal condition(s) unmet" not in text and 'id="goal-gap"' in text
    # Under --continue the validator applies a failing step's effects; the world refuses it, so from
    # step 2 on there is no picture rather than a wrong one.
    assert text.count("data:image/png;base64,") == 2 and text.count("no picture: the world does not reach") == 2
    assert not re.search(r"""(src|href)=["'](?!data:|#)""", text)  # nothing fetched from anywhere


def test_a_valid_plan_has_a_picture_of_every_state(tmp_path):
    page = tmp_path / "t.html"
    plan = BW / "golden" / "valid" / "simple_problem_0.plan"
    assert main(["validate", str(BW), str(PROBLEM), str(plan), "--html", str(page)]) == 0
    text = page.read_text()
    steps = len(re.findall(r'<tr class="step"', text))
    assert steps == 4 and text.count("data:image/png;base64,") == steps + 1
    assert '<p id="goal-gap">the goal holds</p>' in text


def test_a_domain_without_a_world_gets_the_generic_renderers_picture(tmp_path):
    domain = shipped_domain("gripper")
    problem = sorted((domain.parent / "problems").glob("*.pddl"))[0]
    plan = tmp_path / "p.plan"
    plan.write_text("")
    page = tmp_path / "t.html"
    assert main(["validate", str(domain), str(problem), str(plan), "--html", str(page)]) == 1
    assert page.read_text().count("data:image/png;base64,") == 1 and "the plan has no steps" in page.read_text()


def test_without_continue_the_steps_after_the_failure_are_shown_as_not_run(tmp_path):
    plan = tmp_path / "p.plan"
    plan.write_text(PLAN_3_STEPS)
    page = tmp_path / "t.html"
    assert main(["validate", str(BW), str(PROBLEM), str(plan), "--html", str(page)]) == 1
    statuses = re.findall(r'data-status="([^"]+)"', page.read_text())
    assert statuses == ["ok", "not applicable", "not run"]


def test_unwritable_html_is_a_one_line_error(tmp_path, capsys):
    plan = tmp_path / "p.plan"
    plan.write_text(PLAN_3_STEPS)
    assert main(["validate", str(BW), str(PROBLEM), str(plan), "--html", str(tmp_path / "no" / "t.html")]) == 2
    assert capsys.readouterr().err.startswith("pgt validate: error: cannot write")


def test_console_error_detection_works(tmp_path):
    bad = tmp_path / "bad.html"
    bad.write_text("<!DOCTYPE html><html><body><script>console.error('boom'); undefinedCall();</script></body></html>")
    _, console, _ = _browse(bad, tmp_path)
    assert any("boom" in ln for ln in console) and any("undefinedCall" in ln for ln in console)


def test_page_in_headless_chromium(trace):
    from PIL import Image

    page, folder = trace
    dom, console, shot = _browse(page, folder)
    assert console == []
    assert len(re.findall(r'<tr class="step"', dom)) == 3 and 'id="verdict"' in dom
    img = Image.open(shot).convert("RGB")
    # The block pictures are drawn in strong colours; the page's own text and badges are pale or grey.
    vivid = sum(1 for r, g, b in img.getdata() if max(r, g, b) - min(r, g, b) > 150)
    assert vivid > 2000, f"state pictures not drawn ({vivid} vivid pixels); screenshot at {shot}"
