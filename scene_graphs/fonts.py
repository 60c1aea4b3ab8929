"""The one font every renderer uses: Pillow's bundled default at a given size.

Using the bundled font (not a system font) keeps images byte-identical across
machines. ``ImageFont.load_default(size=...)`` needs Pillow >= 10.1.
"""

from __future__ import annotations

import functools
from typing import Any


@functools.lru_cache(maxsize=16)
def font(size: int) -> Any:
    """Pillow's bundled scalable font at ``size`` pixels."""
    from PIL import ImageFont

    return ImageFont.load_default(size=size)
