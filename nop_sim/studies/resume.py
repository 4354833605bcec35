"""Resuming a study in its folder: the folder must hold the same study.

A training or a tune study stores its identity (a dict of what fixes its results: the
scenario's fingerprint, the rules, the method, the file's version) in a JSON file of
its folder. Before going on there, the command compares that identity, key by key,
with the one it would store now (:func:`same_study`).
"""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["same_study"]


def same_study(path: Path, field: str, identity: dict, error: type[Exception], *,
               unreadable: str, differs: str) -> dict:
    """The JSON document at ``path``, once its ``field`` is ``identity``.

    Raises ``error`` (the caller's class) with ``unreadable`` where the file cannot be
    read, is no JSON object or lacks ``field``, and with ``differs`` where the stored
    identity is another. Both messages are formatted with ``folder`` (the folder of
    ``path``), ``path``, ``reason`` (why the file could not be read) and ``keys`` (the
    keys whose values differ, sorted and comma-separated).
    """
    path = Path(path)
    try:
        document = json.loads(path.read_text())
        stored = document[field]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise error(unreadable.format(folder=path.parent, path=path, reason=exc)) from None
    if stored == identity:
        return document
    if not isinstance(stored, dict):
        stored = {}
    keys = sorted(k for k in identity.keys() | stored.keys()
                  if stored.get(k) != identity.get(k))
    raise error(differs.format(folder=path.parent, path=path, keys=", ".join(keys)))
