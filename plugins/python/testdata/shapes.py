from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Optional, TypedDict

import toolhost


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Box(TypedDict):
    w: int
    h: int


@dataclass
class Point:
    x: float
    y: float = 0.0
    tags: list[str] = field(default_factory=list)


@toolhost.tool
def shapes(p: Point, box: Box, color: Color = Color.RED, extra: dict[str, int] | None = None,
           label: Optional[str] = None, sizes: list[int] = [1, 2]) -> str:
    """Shapes of every kind."""
    return f"{type(p).__name__} {p.x},{p.y} {box['w']}x{box['h']} {color} {extra} {label} {sizes}"
