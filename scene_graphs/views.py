"""How a world may be drawn: the render modes and the rule for their labels, without the graph code.

A command checks ``--render-mode``/``--labels`` before any world exists (``pgt run``
checks them in the process that only writes the study's records), so the check
lives apart from :mod:`scene_graphs.household` and networkx, which take about 0.1 s
to import; only a bad value imports them, for the error's class.
"""

from __future__ import annotations

RENDER_MODES = ("schematic", "pictorial")


def check_render_mode(mode: str, labels: bool | None) -> tuple[str, bool]:
    """The (mode, labels) pair a view is drawn with; labels default on for schematic, off for pictorial.

    Raises:
        SceneGraphError: an unknown mode, or a schematic view without labels (its boxes are only names).
    """
    if mode not in RENDER_MODES:
        from scene_graphs.schema import SceneGraphError

        raise SceneGraphError(f"unknown render mode {mode!r}; choose {' or '.join(RENDER_MODES)}")
    if labels is None:
        labels = mode == "schematic"
    if mode == "schematic" and not labels:
        from scene_graphs.schema import SceneGraphError

        raise SceneGraphError("the schematic view is names in boxes and cannot drop its labels; "
                              "use --render-mode pictorial --no-labels")
    return mode, labels
