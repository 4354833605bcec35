"""Kernel state has names: the index constants come from one declaration per layout
(kernels.state), and the docstring, the tuples the driver builds and the compile
firewall's signatures agree with it."""

import ast
import inspect
import re

import numpy as np
import pytest

from nop_sim.core.cards import format_card
from nop_sim.core.column import Category
from nop_sim.games.new_order import history as H
from nop_sim.games.new_order import types as T
from nop_sim.games.new_order.kernels import eventlog, firewall, match
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
            # out_player[row] -> player, cat_stats -> cat, agents[agent_of[m]] -> agents (and
            # policy_seat[agent_of[m]] -> policy_seat)
            return [re.sub(r"^out_|_stats$|\[(m|row)\]$|\[agent_of\[m\]\]$", "", x)
                    for x in items]
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


# What the history reader (history.to_records) makes of a raw value, by field name: a
# category, a Disruptor card, an action, ... by name; a seat mask as seats; the rest as is
def _shown(kind: str, field: str, value):
    if isinstance(value, list):
        if kind == "reveal":
            return [T.DISRUPTOR_IDS[v] for v in value]
        return [format_card(v) for v in value] if field == "cards" else value
    named = {"category": lambda v: Category(v).label, "previous": lambda v: Category(v).label,
             "swapped_with": lambda v: Category(v).label, "card": T.DISRUPTOR_IDS.__getitem__,
             "action": H.ACTIONS.__getitem__, "betting": T.BETTING_NAMES.__getitem__,
             "fee_to": T.POT_OR_BANK.__getitem__, "from": T.POT_OR_BANK.__getitem__,
             "why": H.DISCARD_WHY.__getitem__, "pile": ("stock", "disruptors").__getitem__,
             "eligible": lambda v: [s for s in range(T.MAX_PLAYERS) if v >> s & 1],
             "winners": lambda v: [s for s in range(T.MAX_PLAYERS) if v >> s & 1]}
    return named.get(field, lambda v: v)(value)


# a few fields take an index into a short list of names; every other field a distinct value
_SMALL = {"betting": 1, "fee_to": 1, "from": 0, "pile": 1, "action": 3}
_LISTS = {"deal": [20, 31, 7, 44, 2], "hole": [21, 30, 8, 45, 3], "board": [11, 22, 33],
          "discard": [40, -1, 17, -1, 5], "reveal": [4, 9, 1], "hand_end": [55, 61, 0, 77]}


@pytest.mark.parametrize("kind", sorted(name for name, _ in H.EVENT_SCHEMA.values()))
def test_every_event_writer_writes_its_fields_where_the_reader_reads_them(kind):
    """Each ``log_<kind>`` writer, given a distinct value per field, writes a row that
    the history reader (``to_records``) reads back field by field, each in its place and
    of its width: a writer that swapped two fields, or wrote a list one column off, would
    pass the names test above and fail here."""
    (code, fields), = [(k, f) for k, (n, f) in H.EVENT_SCHEMA.items() if n == kind]
    fn = getattr(eventlog, f"log_{kind}").py_func
    params = list(inspect.signature(fn).parameters)[2:]
    ev = np.zeros((2, T.EV_WIDTH), np.int64)
    g = np.zeros(S.N_G, np.int64)
    g[S.G_LOG], g[S.G_MATCH], g[S.G_HAND] = 1, 9, 4
    given: dict[str, object] = {}
    args = []
    for k, name in enumerate(params):
        field = name.rstrip("_")
        if name == "seat":
            args.append(6)
        elif name in ("n_cards", "n_seats"):
            args.append(len(_LISTS[kind]))
        elif field == "n":  # how many cards the list holds
            given[field] = sum(c >= 0 for c in _LISTS[kind])
            args.append(given[field])
        elif field in ("cards", "chips") and kind in _LISTS:
            given[field] = _LISTS[kind]
            args.append(np.array(_LISTS[kind], np.int64))
        else:
            given[field] = _SMALL.get(field, 2 + k)
            args.append(given[field])
    fn(ev, g, *args)
    assert g[S.G_EVN] == 1 and (ev[1] == 0).all()
    assert ev[0, :4].tolist() == [9, 4, code, 6 if "seat" in params else -1]
    rec = next(H.to_records(ev[:1]))
    assert rec["event"] == kind
    for field, value in given.items():
        if kind == "discard" and field == "cards":  # slots: the reader keeps the cards in them
            value = [c for c in value if c >= 0]
        if kind == "reveal" and field == "n":
            continue  # the reader reads it as the length of ``cards``, checked there
        assert rec[field] == _shown(kind, field, value), (kind, field, rec)
    # every field of the schema was given to the writer (the names test holds the rest)
    assert {f.rstrip("*") for f in fields} <= set(given), (kind, fields, given)
