"""Kernel state has names: the index constants come from one declaration per layout
(kernels.state), and the docstring, the tuples the driver builds and the compile
firewall's signatures agree with it."""

import ast
import inspect
import re

import numpy as np
import pytest

from nop_sim.games.new_order.kernels import firewall, match
from nop_sim.games.new_order.kernels import state as S


@pytest.mark.parametrize("prefix, fields", [("G", S.G_FIELDS), ("P", S.P_FIELDS),
                                            ("TMP", S.TMP_FIELDS), ("F", S.F_FIELDS)])
def test_offsets_follow_the_declaration(prefix, fields):
    offset = 0
    for name, size, _ in fields:
        assert getattr(S, f"{prefix}_{name}") == offset
        if size > 1:
            assert getattr(S, f"N_{prefix}_{name}") == size
        offset += size
    assert getattr(S, f"N_{prefix}") == offset
    names = [name for name, _, _ in fields]
    assert len(set(names)) == len(names)


def test_scratch_regions_do_not_overlap():
    spans = sorted((S.__dict__[f"TMP_{n}"], S.__dict__[f"TMP_{n}"] + size)
                   for n, size, _ in S.TMP_FIELDS)
    assert all(a_end <= b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:], strict=False))
    assert spans[-1][1] == S.N_TMP


def _docstring_tuple(name: str) -> list[str]:
    m = re.search(rf"``{name}``\s*=\s*\(([^)]*)\)", match.__doc__)
    assert m, f"kernels.match's docstring lists no {name}"
    return [x.strip() for x in m.group(1).split(",")]


def _built_tuple(name: str) -> list[str]:
    """The items of ``name = (...)`` in ``_play_chunk``, as the names of what goes in."""
    tree = ast.parse(inspect.getsource(match._play_chunk.py_func
                                       if hasattr(match._play_chunk, "py_func")
                                       else match._play_chunk).lstrip())
    for node in ast.walk(tree):
        if (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == name):
            items = [ast.unparse(e) for e in node.value.elts]
            # out_player[m] -> player, cat_stats -> cat, agents[agent_of[m]] -> agents
            return [re.sub(r"^out_|_stats$|\[m\]$|\[agent_of\[m\]\]$", "", x) for x in items]
    raise AssertionError(f"_play_chunk builds no {name}")


@pytest.mark.parametrize("name, items", [("st", S.ST_ITEMS), ("cfg", S.CFG_ITEMS),
                                         ("out", S.OUT_ITEMS)])
def test_state_tuples_match_their_declaration(name, items):
    declared = [item[0] for item in items]
    assert _docstring_tuple(name) == declared
    assert _built_tuple(name) == declared
    prefix = {"st": "ST", "cfg": "CFG", "out": "OUT"}[name]
    assert [getattr(S, f"{prefix}_{n.upper()}") for n in declared] == list(range(len(items)))


def test_firewall_signatures_come_from_the_declaration():
    from numba import typeof

    for items, tuple_type in ((S.ST_ITEMS, firewall.ST), (S.CFG_ITEMS, firewall.CFG),
                              (S.OUT_ITEMS, firewall.OUT)):
        arrays = tuple(np.zeros((1,) * ndim, dtype) for _, dtype, ndim, _ in items)
        assert typeof(arrays) == tuple_type
    assert firewall.DRAFT_ARGS[:3] == (firewall.ST, firewall.CFG, firewall.OUT)


def test_one_event_writer_per_kind_named_as_the_schema():
    """kernels.eventlog has ``log_<kind>`` for every kind of nop_sim.games.new_order.history' schema, its
    arguments named as the schema's fields (``from_`` for ``from``; a list field is an
    array, with its length as ``n_cards`` / ``n_seats``)."""
    from nop_sim.games.new_order.history import EVENT_SCHEMA
    from nop_sim.games.new_order.kernels import eventlog

    writers = {n for n in vars(eventlog) if n.startswith("log_")}
    assert writers == {f"log_{name}" for name, _ in EVENT_SCHEMA.values()}
    for name, fields in EVENT_SCHEMA.values():
        fn = getattr(eventlog, f"log_{name}")
        params = list(inspect.signature(getattr(fn, "py_func", fn)).parameters)
        assert params[:2] == ["ev", "g"]
        args = [p.rstrip("_") for p in params[2:] if p not in ("seat", "n_cards", "n_seats")]
        # hand_end's row ends with dart and bank_net after the chips (events.to_records)
        extra = ["dart", "bank_net"] if name == "hand_end" else []
        assert args == [f.rstrip("*") for f in fields] + extra, name
