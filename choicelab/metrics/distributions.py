"""Distances between a revealed and a true distribution (provisional; completed by the revealed-belief issue)."""

from __future__ import annotations

import math
from collections.abc import Sequence


def _check(p: Sequence[float], q: Sequence[float]) -> None:
    if len(p) != len(q):
        raise ValueError(f"distributions differ in length: {len(p)} vs {len(q)}")


def chebyshev(p: Sequence[float], q: Sequence[float]) -> float:
    _check(p, q)
    return max(abs(a - b) for a, b in zip(p, q, strict=True))


def l1(p: Sequence[float], q: Sequence[float]) -> float:
    _check(p, q)
    return math.fsum(abs(a - b) for a, b in zip(p, q, strict=True))


def symmetric_kl(p: Sequence[float], q: Sequence[float], epsilon: float = 1e-6) -> float:
    _check(p, q)
    ps = [a + epsilon for a in p]
    qs = [b + epsilon for b in q]
    sp, sq = math.fsum(ps), math.fsum(qs)
    ps = [a / sp for a in ps]
    qs = [b / sq for b in qs]
    return math.fsum(a * math.log(a / b) + b * math.log(b / a) for a, b in zip(ps, qs, strict=True))
