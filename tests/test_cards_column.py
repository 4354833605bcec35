"""Card codes and text (SPEC section 1) and the Ranking Column (SPEC section 2)."""

from __future__ import annotations

import numpy as np
import pytest

from nop_sim.core.cards import (
    card_code,
    card_rank,
    card_suit,
    format_card,
    format_cards,
    make_deck,
    parse_card,
    parse_cards,
    validate_cards,
)
from nop_sim.core.column import DEFAULT_COLUMN, Category, Column, parse_category

# -- cards ---------------------------------------------------------------------------


def test_codes_follow_the_spec():
    assert parse_card("2c") == 0
    assert parse_card("2d") == 1
    assert parse_card("3c") == 4
    assert parse_card("As") == 51
    assert card_code(14, 3) == 51
    for code in range(52):
        assert card_code(card_rank(code), card_suit(code)) == code
        assert code == 4 * (card_rank(code) - 2) + card_suit(code)


def test_parse_format_round_trip_all_52():
    texts = [format_card(c) for c in range(52)]
    assert len(set(texts)) == 52
    for code, text in enumerate(texts):
        assert parse_card(text) == code
        assert parse_card(text.lower()) == code
        assert parse_card(text.upper()) == code
    deck = parse_cards(" ".join(texts))
    assert deck.dtype == np.int8
    assert deck.tolist() == list(range(52))
    assert format_cards(deck) == " ".join(texts)


def test_parse_accepts_ten_lower_case_commas_and_lists():
    assert parse_card("10h") == parse_card("Th") == parse_card("th") == 34
    assert parse_cards("As, kd 10c").tolist() == [51, 45, 32]
    assert parse_cards(["As", "Kd"]).tolist() == [51, 45]
    assert parse_cards("").tolist() == []
    assert format_cards(np.array([51, -1, 0], dtype=np.int8)) == "As 2c"
    assert format_card(-1) == "--"


@pytest.mark.parametrize("bad", ["", "1c", "11h", "Ax", "A", "s", "AAs", "Tcd", "0h", "B2"])
def test_parse_rejects_bad_text(bad):
    with pytest.raises(ValueError, match="does not parse"):
        parse_card(bad)


def test_parse_cards_names_the_bad_token():
    with pytest.raises(ValueError, match="Zz"):
        parse_cards("As Zz")


@pytest.mark.parametrize("bad", [52, -2, 100])
def test_format_rejects_bad_codes(bad):
    with pytest.raises(ValueError, match=str(bad)):
        format_card(bad)


def test_card_code_rejects_bad_rank_and_suit():
    with pytest.raises(ValueError, match="rank"):
        card_code(1, 0)
    with pytest.raises(ValueError, match="suit"):
        card_code(5, 4)


@pytest.mark.parametrize("decks", [1, 2, 3, 4])
def test_make_deck(decks):
    deck = make_deck(decks)
    assert deck.dtype == np.int8
    assert deck.shape == (52 * decks,)
    assert np.bincount(deck, minlength=52).tolist() == [decks] * 52


@pytest.mark.parametrize("bad", [0, 5, -1, 1.5, "2", None])
def test_make_deck_rejects(bad):
    with pytest.raises(ValueError, match="decks"):
        make_deck(bad)


def test_validate_cards():
    validate_cards(np.array([[0, 1, 2, 3, 4, -1, -1]], dtype=np.int8))
    with pytest.raises(ValueError, match="52"):
        validate_cards(np.array([[0, 1, 2, 3, 52]]))
    with pytest.raises(ValueError, match="4 cards"):
        validate_cards(np.array([[0, 1, 2, 3, -1]]))
    with pytest.raises(ValueError, match="2 copies of 2c"):
        validate_cards(np.array([[0, 0, 2, 3, 4]]))
    validate_cards(np.array([[0, 0, 2, 3, 4]]), decks=2)
    with pytest.raises(ValueError, match="2-D"):
        validate_cards(np.array([0, 1, 2, 3, 4]))


# -- the Ranking Column -----------------------------------------------------------------


def test_default_column_is_table_order():
    assert list(DEFAULT_COLUMN) == list(Category)
    assert [int(c) for c in DEFAULT_COLUMN] == list(range(13))
    assert DEFAULT_COLUMN[0] is Category.FLUSH_FIVE
    assert DEFAULT_COLUMN[12] is Category.HIGH_CARD
    for c in Category:
        assert DEFAULT_COLUMN.position(c) == int(c)
    assert len(DEFAULT_COLUMN) == 13


def test_promote_demote_swap():
    col = DEFAULT_COLUMN.promote(Category.TWO_PAIR)
    assert col.position(Category.TWO_PAIR) == 9
    assert col.position(Category.THREE_OF_A_KIND) == 10
    assert DEFAULT_COLUMN.position(Category.TWO_PAIR) == 10  # immutable
    assert col.demote(Category.TWO_PAIR) == DEFAULT_COLUMN
    assert DEFAULT_COLUMN.promote("pair") == DEFAULT_COLUMN.demote("two pair")
    swapped = DEFAULT_COLUMN.swap(Category.HIGH_CARD, Category.FLUSH_FIVE)
    assert swapped[0] is Category.HIGH_CARD and swapped[12] is Category.FLUSH_FIVE
    assert swapped.swap(0, 12) == DEFAULT_COLUMN


def test_promote_top_and_demote_bottom_fail():
    with pytest.raises(ValueError, match="top"):
        DEFAULT_COLUMN.promote(Category.FLUSH_FIVE)
    with pytest.raises(ValueError, match="bottom"):
        DEFAULT_COLUMN.demote(Category.HIGH_CARD)


def test_inverted():
    inv = DEFAULT_COLUMN.inverted()
    assert list(inv) == list(reversed(list(Category)))
    assert inv.inverted() == DEFAULT_COLUMN
    for c in Category:
        assert inv.position(c) == 12 - DEFAULT_COLUMN.position(c)


def test_parse_and_str_round_trip():
    moved = Column.parse("Two Pair>Full House")
    assert moved.position(Category.TWO_PAIR) == 6
    assert moved.position(Category.FULL_HOUSE) == 7
    assert Column.parse(str(moved)) == moved
    assert Column.parse("default") == DEFAULT_COLUMN
    assert Column.parse(str(DEFAULT_COLUMN)) == DEFAULT_COLUMN
    assert Column.parse(",".join(str(i) for i in range(12, -1, -1))) == DEFAULT_COLUMN.inverted()
    rng = np.random.default_rng(3)
    for _ in range(20):
        col = Column(rng.permutation(13))
        assert Column.parse(str(col)) == col
        assert eval(repr(col), {"Column": Column}) == col


def test_parse_rejects():
    with pytest.raises(ValueError, match="Two Pair > Full House"):
        Column.parse("Two Pair")
    with pytest.raises(ValueError):
        Column.parse("Two Pair > Two Pair")
    with pytest.raises(ValueError, match="unknown category"):
        Column.parse("Two Pear > Full House")


def test_to_array_from_array_positions():
    rng = np.random.default_rng(4)
    for _ in range(20):
        perm = rng.permutation(13)
        col = Column.from_array(perm)
        arr = col.to_array()
        assert arr.dtype == np.int8 and arr.tolist() == perm.tolist()
        assert Column.from_array(arr) == col
        pos = col.positions()
        assert pos.dtype == np.int8
        assert all(arr[pos[c]] == c for c in range(13))
        assert hash(Column(arr)) == hash(col)


@pytest.mark.parametrize(
    "bad",
    [list(range(12)), list(range(14)), [0] * 13, list(range(1, 14)), [-1] + list(range(1, 13))],
)
def test_column_rejects_non_permutations(bad):
    with pytest.raises(ValueError):
        Column(bad)


def test_column_rejects_2d():
    with pytest.raises(ValueError, match="1-D"):
        Column(np.arange(13).reshape(1, 13))


def test_parse_category_names_and_ids():
    assert parse_category("pair") is Category.ONE_PAIR
    assert parse_category("Full_House") is Category.FULL_HOUSE
    assert parse_category("7") is Category.FLUSH
    assert parse_category(3) is Category.ROYAL_FLUSH
    assert str(Category.TWO_PAIR) == "Two Pair"
    with pytest.raises(ValueError, match="13"):
        parse_category(13)
    with pytest.raises(ValueError, match="unknown"):
        parse_category("Flush Six")
