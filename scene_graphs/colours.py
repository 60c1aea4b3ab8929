"""Block colours: from the block's name when it names a colour, else a fixed palette.

ViPlan names blocks by colour letter (``r g b y p o``); files written by others may
use colour words (``red``, ``blue_block``) or anything else. Colours are a pure
function of the sorted block names, so the same problem always renders the same.
"""

from __future__ import annotations

import re

RGB = tuple[int, int, int]

NAMED: dict[str, RGB] = {
    "red": (220, 40, 40),
    "green": (40, 170, 60),
    "blue": (40, 90, 220),
    "yellow": (240, 210, 30),
    "purple": (140, 60, 180),
    "orange": (245, 140, 20),
    "pink": (245, 130, 190),
    "brown": (140, 90, 40),
    "cyan": (40, 200, 220),
    "magenta": (220, 40, 200),
    "black": (30, 30, 30),
    "white": (245, 245, 245),
    "gray": (140, 140, 140),
    "grey": (140, 140, 140),
}
LETTERS: dict[str, str] = {"r": "red", "g": "green", "b": "blue", "y": "yellow", "p": "purple",
                           "o": "orange", "k": "black", "w": "white", "c": "cyan", "m": "magenta"}
# Distinct, text-readable colours for blocks whose names say nothing about colour.
PALETTE: tuple[RGB, ...] = ((230, 25, 75), (60, 180, 75), (0, 130, 200), (255, 225, 25), (145, 30, 180),
                            (245, 130, 48), (70, 240, 240), (240, 50, 230), (170, 110, 40), (128, 128, 0),
                            (0, 128, 128), (250, 190, 212), (170, 255, 195), (128, 0, 0), (255, 215, 180))


def colour_of_name(name: str) -> RGB | None:
    """The colour a block name spells, if any.

    >>> colour_of_name("R"), colour_of_name("blue_block"), colour_of_name("b7"), colour_of_name("x")
    ((220, 40, 40), (40, 90, 220), None, None)
    """
    low = name.lower()
    if low in LETTERS:
        return NAMED[LETTERS[low]]
    for word in re.split(r"[^a-z]+", low):
        if word in NAMED:
            return NAMED[word]
    return None


def block_colours(blocks: list[str]) -> dict[str, RGB]:
    """A colour per block: named colours first, then unused palette entries in name order."""
    out: dict[str, RGB] = {}
    for b in blocks:
        c = colour_of_name(b)
        if c is not None:
            out[b] = c
    free = [c for c in PALETTE if c not in out.values()]
    rest = [b for b in sorted(blocks) if b not in out]
    for i, b in enumerate(rest):
        out[b] = free[i % len(free)] if free else PALETTE[i % len(PALETTE)]
    return out


def text_colour(fill: RGB) -> RGB:
    """Black or white, whichever reads better on ``fill``."""
    r, g, b = fill
    return (0, 0, 0) if 0.299 * r + 0.587 * g + 0.114 * b > 140 else (255, 255, 255)
