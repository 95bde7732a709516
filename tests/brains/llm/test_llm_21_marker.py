"""LLM-21: non-chat scenarios instruct the completion marker; the marker never shows,
even split across deltas (000 §20)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attn.brains.llm.marker import MarkerFilter
from attn.brains.llm.prompt import Identity, system_prompt
from attn.brains.llm.scenarios import Scenario, instructions, uses_marker
from attn.core.attention.outcomes import strip_marker
from attn.models import COMPLETION_MARKER as MARK


@pytest.mark.parametrize("scenario", list(Scenario))
def test_only_non_chat_scenarios_instruct_the_marker(scenario: Scenario) -> None:
    """Chat is read live; deliberation ends with complete_deliberation, not the marker."""
    without = scenario in (Scenario.CHAT, Scenario.DELIBERATION)
    assert uses_marker(scenario) is not without
    assert (MARK in instructions(scenario)) is not without
    assert (MARK in system_prompt(Identity("alice"), scenario)) is not without


def shown(deltas: list[str]) -> tuple[list[str], bool]:
    flt = MarkerFilter()
    out = [flt.feed(delta) for delta in deltas]
    out.append(flt.flush())
    return out, flt.found


def test_a_marker_in_one_delta_is_removed() -> None:
    out, found = shown(["All done.", f" {MARK}"])
    assert out == ["All done.", " ", ""] and found


@pytest.mark.parametrize("cut", range(1, len(MARK)))
def test_a_marker_split_across_two_deltas_never_shows(cut: int) -> None:
    out, found = shown([f"Done {MARK[:cut]}", f"{MARK[cut:]} bye"])
    assert found
    assert out[0] == "Done " and "".join(out) == "Done  bye"
    assert not any(MARK[:2] in piece or MARK[-2:] in piece for piece in out)


def test_a_marker_one_character_per_delta_never_shows() -> None:
    out, found = shown(["ok ", *MARK, "!"])
    assert found and "".join(out) == "ok !"
    assert all(piece == "" for piece in out[1 : len(MARK) + 1])


def test_a_false_start_is_shown_once_it_cannot_be_the_marker() -> None:
    flt = MarkerFilter()
    assert flt.feed("a <<HAND") == "a "
    assert flt.held == "<<HAND"
    assert flt.feed("y") == "<<HANDy"
    assert flt.feed(" <") == " "
    assert flt.flush() == "<" and not flt.found
    assert flt.flush() == ""


def test_held_back_text_is_never_longer_than_the_marker_less_one() -> None:
    flt = MarkerFilter()
    flt.feed("<" * 100)
    assert flt.held == "<<"
    flt.feed(MARK[:-1])
    assert len(flt.held) == len(MARK) - 1


def test_an_empty_marker_is_refused() -> None:
    with pytest.raises(ValueError):
        MarkerFilter("")


texts = st.lists(
    st.sampled_from(["a", " ", "<", ">", "\n", "é", MARK, MARK[:5], MARK[5:], "<<", ">>"]),
    max_size=30,
).map("".join) | st.text(max_size=60)


@settings(database=None, max_examples=300)
@given(text=texts, cuts=st.lists(st.integers(min_value=0, max_value=200), max_size=12))
def test_any_split_shows_the_whole_text_stripped(text: str, cuts: list[int]) -> None:
    points = sorted({min(cut, len(text)) for cut in cuts})
    deltas = [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]
    out, found = shown(deltas)
    assert "".join(out) == text.replace(MARK, "")
    assert found == (MARK in text)
    # What the controller makes of the final reply: the same text, stripped.
    assert "".join(out).strip() == strip_marker(text)[0]
    # Each step shows all it can: only a tail shorter than the marker waits.
    flt, fed, so_far = MarkerFilter(), "", ""
    for delta in deltas:
        fed += delta
        so_far += flt.feed(delta)
        assert so_far + flt.held == fed.replace(MARK, "")
        assert len(flt.held) < len(MARK) and MARK.startswith(flt.held)
