"""Keep the completion marker out of streamed text, even when it arrives in pieces.

A model streams its answer as text deltas; the completion marker
(:data:`attn.models.COMPLETION_MARKER`) may come in one delta or split over
several (``"<<HANDLE_"``, ``"COMPLETE>>"``). :class:`MarkerFilter` passes on
what is safe to show at once and holds back only a tail that could still
become the marker, so no piece of a marker ever reaches a person or a stream,
and every other character is shown, in order, as soon as it can be.

Whatever the split, the text shown (every :meth:`MarkerFilter.feed` then
:meth:`MarkerFilter.flush`) is the whole text with each marker removed
(``text.replace(marker, "")``): the marker part of
:func:`attn.core.attention.outcomes.strip_marker`, which also strips the
surrounding spaces of the final reply. The filter only cleans what is shown;
the brain hands the controller its reply unfiltered, so the controller can
tell whether the marker came (CORE-43).

Spec: 000 §20 (completion marker stripped from streamed deltas); acceptance LLM-21.
"""

from __future__ import annotations

from attn.models import COMPLETION_MARKER


class MarkerFilter:
    """Remove a marker from a stream of text deltas.

    Args:
        marker: the text to remove (default :data:`~attn.models.COMPLETION_MARKER`).

    Raises:
        ValueError: ``marker`` is empty.

    Use one filter per streamed answer: :meth:`feed` each delta and show what it
    returns, then :meth:`flush` at the end of the stream. At most
    ``len(marker) - 1`` characters are held back at any time.
    """

    __slots__ = ("_held", "_marker", "found")

    def __init__(self, marker: str = COMPLETION_MARKER) -> None:
        if not marker:
            raise ValueError("the marker to filter must not be empty")
        self._marker = marker
        self._held = ""
        #: True once a whole marker was seen (and removed) in the stream.
        self.found = False

    @property
    def held(self) -> str:
        """The tail held back because it could be the start of a marker."""
        return self._held

    def feed(self, delta: str) -> str:
        """Take the next delta; return the text that may be shown now.

        Returns:
            The held-back tail and ``delta`` with every whole marker removed,
            less a new tail that could start a marker (kept for the next call).
        """
        text = self._held + delta
        marker = self._marker
        shown: list[str] = []
        start = text.find(marker)
        while start >= 0:
            shown.append(text[:start])
            text = text[start + len(marker) :]
            self.found = True
            start = text.find(marker)
        keep = _partial_tail(text, marker)
        self._held = text[len(text) - keep :] if keep else ""
        shown.append(text[: len(text) - keep])
        return "".join(shown)

    def flush(self) -> str:
        """End of the stream: return the held-back tail (it was not a marker after all)."""
        held, self._held = self._held, ""
        return held

    def __repr__(self) -> str:
        return f"MarkerFilter(found={self.found}, held={len(self._held)} chars)"


def _partial_tail(text: str, marker: str) -> int:
    """Length of the longest end of ``text`` that is a proper beginning of ``marker``."""
    for size in range(min(len(marker) - 1, len(text)), 0, -1):
        if text.endswith(marker[:size]):
            return size
    return 0


__all__ = ["MarkerFilter"]
