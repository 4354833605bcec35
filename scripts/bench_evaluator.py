#!/usr/bin/env python
"""Evaluator speed as one JSON object (same as `nop-sim bench evaluator`)."""

import json

from nop_sim.studies.bench import bench_evaluator

if __name__ == "__main__":
    print(json.dumps(bench_evaluator(), indent=2))
