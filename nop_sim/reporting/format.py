"""Numbers as the reports print them; "–" stands for missing."""

from __future__ import annotations

import numpy as np

__all__ = ["cell", "count", "isnum", "num", "num_ci", "pct", "pct_ci", "pval"]


def isnum(x) -> bool:
    """A finite number (not bool, not NaN)."""
    return (isinstance(x, (int, float, np.integer, np.floating))
            and not isinstance(x, (bool, np.bool_)) and bool(np.isfinite(x)))


def pct(x, digits: int = 1) -> str:
    return f"{100 * x:.{digits}f}%" if isnum(x) else "–"


def pct_ci(x, lo, hi, digits: int = 1) -> str:
    if not isnum(x):
        return "–"
    if not (isnum(lo) and isnum(hi)):
        return pct(x, digits)
    return f"{100 * x:.{digits}f}% ({100 * lo:.{digits}f}–{100 * hi:.{digits}f})"


def num(x, digits: int = 2) -> str:
    if not isnum(x):
        return "–"
    if float(x).is_integer() and abs(x) >= 1000:
        return f"{int(x):,}"
    return f"{x:,.{digits}f}"


def num_ci(x, lo, hi, digits: int = 2) -> str:
    if not isnum(x):
        return "–"
    if not (isnum(lo) and isnum(hi)):
        return num(x, digits)
    return f"{x:,.{digits}f} ({lo:,.{digits}f} to {hi:,.{digits}f})"


def count(x) -> str:
    return f"{int(x):,}" if isnum(x) else "–"


def pval(p) -> str:
    if not isnum(p):
        return "–"
    if p < 1e-300:
        return "< 1e-300"
    if p < 0.001:
        return f"{p:.1e}"
    return f"{p:.3f}"


def cell(v, digits: int | None = None) -> str:
    """A table cell: strings as they are, whole numbers with thousands separators,
    other numbers to 4 significant digits (or ``digits`` decimals), bools yes/no."""
    if isinstance(v, str):
        return v
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isnum(v):
        if digits is not None and isinstance(v, (float, np.floating)):
            return f"{v:.{digits}f}"
        if float(v).is_integer():
            return f"{int(v):,}" if abs(v) >= 10_000 else str(int(v))
        return f"{v:.4g}" if abs(v) < 1e5 else f"{v:,.0f}"
    if v is None or (isinstance(v, (float, np.floating)) and np.isnan(v)):
        return "–"
    return str(v)
