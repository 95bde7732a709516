"""The time tools' tests run on the time tests' fake clock."""

from tests.time.conftest import clock

__all__ = ["clock"]
