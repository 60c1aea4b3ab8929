"""Parse JSON from untrusted text (model replies, batch lines, scene files) without surprises.

``json.loads`` raises :class:`RecursionError` on deeply nested input (``[[[[...``
a few thousand levels deep), which is not a :class:`ValueError` and so slips past
every ``except json.JSONDecodeError`` of a reader: one hostile line would kill a
whole batch. :func:`loads` reports it as the decode error it is. A leading UTF-8
byte-order mark (Windows editors write one) is skipped.

>>> loads('\\ufeff{"a": 1}')
{'a': 1}
>>> try:
...     loads("[" * 100_000)
... except json.JSONDecodeError as exc:
...     print(exc.msg)
nested too deeply
"""

from __future__ import annotations

import json
from typing import Any


def loads(text: str) -> Any:
    """``json.loads`` that raises only :class:`json.JSONDecodeError` for bad text."""
    text = text.removeprefix("\ufeff")
    try:
        return json.loads(text)
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply", text, 0) from None
