"""Write nop_sim/games/new_order/data/showdown_baseline.csv: winning categories of random showdowns.

For each table size k = 2..8, deal ``--deals`` random tables from one deck
(five hole cards each, two community cards), everyone shows down under the
DEFAULT column with no draw, no wild and no Disruptor, and count the
winner's category. :func:`nop_sim.games.new_order.analysis.default_baseline` reads this
table so the report needs no simulation (and no compilation) for the
baseline; a mixture of table sizes is a weighted mix of two rows.

    python scripts/make_baseline_table.py --deals 1000000
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from nop_sim.games.new_order.baseline import CATEGORY_LABELS, simulate_baseline_wins


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument("--out", type=Path,
                        default=Path(__file__).resolve().parents[1] / "nop_sim" / "games" / "new_order" / "data"
                        / "showdown_baseline.csv")
    args = parser.parse_args()
    rows = []
    for k in range(2, 9):
        wins = simulate_baseline_wins(k, args.deals, seed=args.seed + k)
        for cat, w in enumerate(wins):
            rows.append({"players": k, "category": cat, "label": CATEGORY_LABELS[cat],
                         "wins": int(w), "deals": args.deals})
        print(k, np.round(wins / args.deals, 4))
    pd.DataFrame(rows).to_csv(args.out, index=False)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
