"""Planning a run: its chunks, their seeds, and the parts they are played and stored in.

A run is a list of chunks, each ``(point, index)``: a sweep point and a slice
of its matches. A chunk's seed comes from
``SeedSequence(seed, spawn_key=(point, index))``, so a chunk's numbers do not
depend on the worker count, the order chunks finish in, or the backend (local
processes or a Dask cluster). Consecutive chunks are played and stored together
as a *part* of about a second of play (:class:`PartPlan`): the unit a worker
plays and writes, and a resume redoes. Parts change how chunks are stored,
never a chunk's rows.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from nop_sim.kernels.rng import sequence_words
from nop_sim.run.scenario import Scenario

__all__ = ["PART_SECONDS", "Chunk", "PartPlan", "chunk_seed", "chunk_seeds", "plan_chunks"]


@dataclass(frozen=True)
class Chunk:
    """A slice of one sweep point's matches."""

    point: int
    index: int
    first_match: int
    n_matches: int
    rotation: int  # rotation of the chunk's first match (seats rotate per match)
    seed: int

    @property
    def name(self) -> str:
        return f"p{self.point:04d}-c{self.index:06d}"

    def rotation_batches(self, n_rotations: int
                         ) -> tuple[np.ndarray, list[tuple[int, np.ndarray, int]]]:
        """Seat rotation of each match, and the batches that play them.

        Match ``g`` of the run sits rotation ``g % n_rotations`` (seats rotate
        per match, not per chunk, so every preset sits in every seat equally
        often whatever the chunk size). Each rotation's matches of the chunk
        are one batch with its own seed, so a chunk's rows depend only on the
        chunk, never on the worker count.

        Returns
        -------
        rotation : int64 (n_matches,), the rotation of each of the chunk's matches
        batches : ``(r, idx, seed)`` per rotation present: the positions in the
            chunk of rotation ``r``'s matches (ascending) and the batch's seed
        """
        rotation = (self.first_match + np.arange(self.n_matches, dtype=np.int64)) % n_rotations
        seeds = ([self.seed] if n_rotations == 1 else
                 chunk_seeds(self.seed, self.point, np.arange(n_rotations)).tolist())
        batches = []
        for r in range(n_rotations):
            idx = np.flatnonzero(rotation == r)
            if idx.size:
                batches.append((r, idx, seeds[r]))
        return rotation, batches


def chunk_seed(seed: int, point: int, index: int) -> int:
    """The chunk's own seed: independent streams keyed by (point, chunk index)."""
    ss = np.random.SeedSequence(seed, spawn_key=(point, index))
    return int(ss.generate_state(1, np.uint64)[0] >> np.uint64(1))


def chunk_seeds(seed: int, point: int, indices: np.ndarray) -> np.ndarray:
    """:func:`chunk_seed` of each of ``indices`` (int64), at once
    (:func:`nop_sim.kernels.rng.sequence_words`: one by one, a runner part's rotations
    took 3 ms)."""
    indices = np.asarray(indices, dtype=np.uint64).reshape(-1)
    key = np.column_stack([np.full(indices.size, point, np.uint64), indices])
    words = sequence_words(np.full(indices.size, seed, np.uint64), key, 1)[:, 0]
    return (words >> np.uint64(1)).astype(np.int64)


def plan_chunks(scn: Scenario) -> list[Chunk]:
    """Every chunk of the run, sweep point by sweep point."""
    chunks = []
    for p, _point in enumerate(scn.points()):
        n_chunks = -(-scn.matches // scn.chunk)
        seeds = chunk_seeds(scn.seed, p, np.arange(n_chunks)).tolist()
        for i in range(n_chunks):
            first = i * scn.chunk
            chunks.append(Chunk(p, i, first, min(scn.chunk, scn.matches - first),
                                first % scn.n_rotations, seeds[i]))
    return chunks


# The CPU seconds of play a stored part aims at: the unit of writing and of redoing
# after a crash. NOP_SIM_PART_SECONDS overrides it (e.g. 0 for one chunk a part).
PART_SECONDS = float(os.environ.get("NOP_SIM_PART_SECONDS", "1.0"))


class PartPlan:
    """Cuts the chunks still to play into parts of about :data:`PART_SECONDS` each.

    A part is a run of chunks consecutive in the plan (so reading the parts in
    name order reads the plan's order); its size adapts to the seconds per
    match measured so far, starting at one chunk, and shrinks near the end so
    that every worker has work until the last part. Parts change only how
    chunks are stored and scheduled: every chunk keeps its own seed.
    """

    def __init__(self, todo: list[Chunk], order: dict[str, int], workers: int):
        self.todo = list(todo)
        self.order = order
        self.workers = workers
        self.pos = 0
        self.per_match: float | None = None  # seconds per match, averaged

    def __bool__(self) -> bool:
        return self.pos < len(self.todo)

    def learn(self, part) -> None:
        """Take a finished part's CPU seconds (a :class:`~nop_sim.run.executors.PartResult`)."""
        n = sum(c.n_matches for c in part.chunks)
        rate = part.seconds / max(n, 1)
        self.per_match = rate if self.per_match is None else 0.5 * (self.per_match + rate)

    def left(self) -> list[Chunk]:
        """The chunks not yet handed out."""
        return self.todo[self.pos:]

    def next(self, seconds: float | None = None) -> list[Chunk]:
        """The next part: about ``seconds`` of play (default :data:`PART_SECONDS`)."""
        seconds = PART_SECONDS if seconds is None else seconds
        left = len(self.todo) - self.pos
        if self.per_match is None:
            size = 1
        else:
            size = int(seconds / max(self.per_match * self.todo[self.pos].n_matches, 1e-9))
        if self.workers > 1:  # keep every worker busy until the last part
            size = min(size, -(-left // (2 * self.workers)))
        size = max(1, min(size, left))
        part = [self.todo[self.pos]]
        while len(part) < size and self.order[self.todo[self.pos + len(part)].name] \
                == self.order[part[-1].name] + 1:
            part.append(self.todo[self.pos + len(part)])
        self.pos += len(part)
        return part
