"""Channels between agents: DM, team and custom group channels, their history,
delivery receipts, awaited replies and delegations.

Public: :class:`Channels` (``runtime.channels``), :class:`SendReceipt`,
:class:`HistoryPage`, :class:`AnswerBrain` and the key helpers of
:mod:`attn.channels.keys`. The rest is implementation: ``directory.py`` finds
and makes the channels, ``sending.py`` checks and stores a send,
``delivery.py`` hands it to each recipient's mailbox (or to the awaited reply
it answers), ``receipts.py`` tells what each delivery became,
``delegation.py`` and ``status.py`` are the delegation and status-broadcast
sends, ``history.py`` pages a channel's history, ``answers.py`` posts the
answer of a turn that was asked for one, and ``hosting.py`` says what
channels need of the runtime.

Spec: 000 §11 (A2A via the mailbox), §14 (channel coalescing), §25.2–25.3;
acceptance A2A-01..08.
"""

from attn.channels.answers import AnswerBrain
from attn.channels.hosting import ChannelAgent, ChannelHost
from attn.channels.keys import check_key, custom_key, dm_key, mentions_in, session_id, team_key
from attn.channels.receipts import SendReceipt
from attn.channels.service import Channels, HistoryPage

__all__ = [
    "AnswerBrain",
    "ChannelAgent",
    "ChannelHost",
    "Channels",
    "HistoryPage",
    "SendReceipt",
    "check_key",
    "custom_key",
    "dm_key",
    "mentions_in",
    "session_id",
    "team_key",
]
