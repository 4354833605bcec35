"""Regret matching (Hart and Mas-Colell 2000): the strategy every CFR trainer plays.

Each action is played in proportion to its positive cumulative regret; where no
regret is positive, uniformly. Over the last axis of any array of regrets, so one
call serves every information set of a table.
"""

from __future__ import annotations

import numpy as np

__all__ = ["regret_matching"]


def regret_matching(regret: np.ndarray) -> np.ndarray:
    """The strategy of cumulative regrets ``(..., actions)``: float, rows summing to 1."""
    regret = np.asarray(regret, dtype=np.float64)
    pos = np.maximum(regret, 0.0)
    total = pos.sum(axis=-1, keepdims=True)
    uniform = np.full_like(pos, 1.0 / regret.shape[-1])
    return np.where(total > 0.0, pos / np.where(total > 0.0, total, 1.0), uniform)
