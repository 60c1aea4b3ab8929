"""The editor set-ups of docs/authoring.md, run in the editors themselves (headless), where they are installed.

The Neovim and Emacs snippets are read from the docs, written as the user's
init file, and the editor opens a broken domain in a folder whose name needs
URI escaping; the test reads back the diagnostics the editor shows. Debian 12
ships Neovim 0.7 and Emacs 28 (eglot from ``elpa-eglot``): ``apt-get install
neovim emacs-nox elpa-eglot``. Without them these tests skip.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls", reason="the lsp extra (pygls) is not installed")

ROOT = Path(__file__).resolve().parents[2]
DOCS = (ROOT / "docs" / "authoring.md").read_text(encoding="utf-8")
EXPECTED = {(14, "arity-error"), (17, "undeclared-name")}


def _snippet(heading: str, language: str) -> str:
    """The first ``language`` code block after ``heading`` in docs/authoring.md."""
    rest = DOCS[DOCS.index(heading):]
    return re.search(rf"```{language}\n(.*?)```", rest, re.S).group(1)


@pytest.fixture()
def project(tmp_path) -> tuple[Path, dict[str, str]]:
    """A folder with a space and a '+' in its name holding the broken lights domain, and a PATH with ``pgt``."""
    folder = tmp_path / "my domains+v2"
    folder.mkdir()
    shutil.copy(Path(__file__).parent / "data" / "lights_four_faults.pddl", folder / "domain.pddl")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    pgt = bin_dir / "pgt"
    pgt.write_text(f"#!/bin/sh\nPYTHONPATH={ROOT} exec {sys.executable} -c "
                   "\"import sys; from toolkit.cli import main; sys.exit(main(sys.argv[1:]))\" \"$@\"\n")
    pgt.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ.get('PATH', '')}", "HOME": str(tmp_path),
           "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_STATE_HOME": str(tmp_path / "state"),
           "XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_DATA_HOME": str(tmp_path / "data")}
    return folder, env


NVIM_PROBE = """
local timer, tries = vim.loop.new_timer(), 0
timer:start(500, 500, vim.schedule_wrap(function()
  tries = tries + 1
  if #vim.diagnostic.get(0) >= 4 or tries > 90 then
    timer:stop()
    local lines = {}
    for _, d in ipairs(vim.diagnostic.get(0)) do
      local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
      table.insert(lines, string.format("%d %s", d.lnum + 1, tostring(code)))
    end
    vim.fn.writefile(lines, os.getenv("PROBE_OUT"))
    vim.cmd("qall!")
  end
end))
"""


@pytest.mark.skipif(shutil.which("nvim") is None, reason="Neovim is not installed (apt-get install neovim)")
def test_the_documented_neovim_setup_shows_the_diagnostics(project, tmp_path) -> None:
    folder, env = project
    init, probe, out = tmp_path / "init.lua", tmp_path / "probe.lua", tmp_path / "nvim.txt"
    init.write_text(_snippet("**Neovim**", "lua"))
    probe.write_text(NVIM_PROBE)
    subprocess.run(["nvim", "--headless", "-u", str(init), "-c", f"luafile {probe}", "domain.pddl"], cwd=folder,
                   env={**env, "PROBE_OUT": str(out)}, timeout=90, check=True, capture_output=True)
    got = {(int(line.split()[0]), line.split()[1]) for line in out.read_text().splitlines()}
    assert EXPECTED <= got, got


EMACS_PROBE = """
(let ((out (getenv "PROBE_OUT")) (file (car command-line-args-left)))
  (setq command-line-args-left nil)
  (find-file file)
  (eglot-ensure)
  (run-hooks 'post-command-hook)  ; batch mode runs no commands: start what eglot-ensure deferred
  (let ((tries 0))
    (while (and (< tries 180) (< (length (flymake-diagnostics)) 4))
      (accept-process-output nil 0.5)
      (setq tries (1+ tries))))
  (let ((found (flymake-diagnostics)))
    (with-temp-file out
      (dolist (d found)
        (insert (format "%d %s\\n" (with-current-buffer (flymake-diagnostic-buffer d)
                                     (line-number-at-pos (flymake-diagnostic-beg d)))
                        (flymake-diagnostic-text d))))))
  (kill-emacs 0))
"""


def _emacs_with_eglot() -> list[str] | None:
    """``emacs --batch`` arguments that make eglot loadable (Debian's ELPA folder on the load path), or None."""
    if shutil.which("emacs") is None:
        return None
    elpa = Path("/usr/share/emacs/site-lisp/elpa")
    load = [f"(add-to-list 'load-path \"{d}\")" for d in sorted(elpa.glob("*")) if d.is_dir()]
    args = ["emacs", "-Q", "--batch", *[a for expr in load for a in ("--eval", expr)]]
    found = subprocess.run([*args, "--eval", "(princ (if (require 'eglot nil t) \"yes\" \"no\"))"],
                           capture_output=True, text=True, timeout=60)
    return args if found.stdout.strip().endswith("yes") else None


@pytest.mark.skipif(_emacs_with_eglot() is None, reason="Emacs with eglot is not installed "
                    "(apt-get install emacs-nox elpa-eglot, or Emacs 29+)")
def test_the_documented_emacs_eglot_setup_shows_the_diagnostics(project, tmp_path) -> None:
    folder, env = project
    init, probe, out = tmp_path / "init.el", tmp_path / "probe.el", tmp_path / "emacs.txt"
    init.write_text(_snippet("**Emacs**", "elisp"))
    probe.write_text(EMACS_PROBE)
    subprocess.run([*_emacs_with_eglot(), "-l", str(init), "-l", str(probe), "domain.pddl"], cwd=folder,
                   env={**env, "PROBE_OUT": str(out)}, timeout=120, check=True, capture_output=True)
    text = out.read_text()
    got = {(int(m.group(1)), m.group(2)) for m in re.finditer(r"^(\d+) pgt \[([\w-]+)\]", text, re.M)}
    assert EXPECTED <= got, text
