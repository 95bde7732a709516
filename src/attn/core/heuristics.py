"""Interrupt heuristics: what to do at a yield point about an item that arrived.

The rules are data: an ordered table of :class:`Rule` rows, first match wins,
default ``continue``. They never answer ``cancel``; only a person (through the
API) or a model-backed judge may revoke work (000 §4).

Spec: 000 §4 (R0–R3, "user interactions first"); acceptance CORE-22..26, CORE-29.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass

from attn.config import AgentConfig
from attn.core.item_type import Category
from attn.core.mailbox.merge import supersede_group
from attn.core.registry import TypeRegistry
from attn.models import TREE_TYPES, DecisionType, MailboxItem


def is_user_interaction(item: MailboxItem, registry: TypeRegistry) -> bool:
    """True for human chat and for anything a person authored (sender role ``user``).

    DESIGN.md: a comment written by a person counts as a user interaction.
    """
    spec = registry.get(item.source_type)
    if spec is None:
        return False
    return spec.user_interaction or (
        spec.user_priority is not None and item.metadata.get("senderRole") == "user"
    )


def _same(a: object, b: object) -> bool:
    return a is not None and a == b


@dataclass(frozen=True, slots=True)
class Situation:
    """What a rule looks at: the focus, the arrival and the registry."""

    focus: MailboxItem
    new: MailboxItem
    registry: TypeRegistry

    @property
    def focus_category(self) -> Category:
        return self.registry.get_type(self.focus.source_type).category


@dataclass(frozen=True, slots=True)
class Rule:
    """One row of the heuristic table."""

    name: str
    decision: DecisionType
    reason: str
    applies: Callable[[Situation], bool]


def _same_chat(s: Situation) -> bool:
    f, n = s.focus, s.new
    return (
        f.source_type == n.source_type == "human_chat"
        and _same(f.metadata.get("senderId"), n.metadata.get("senderId"))
        and f.metadata.get("sessionId") == n.metadata.get("sessionId")
    )


def _same_task_comment(s: Situation) -> bool:
    return s.new.source_type == "task_comment" and _same(
        s.focus.extra("taskId"), s.new.extra("taskId")
    )


def _same_requirement(s: Situation) -> bool:
    return s.new.source_type in ("requirement_comment", "requirement_update") and _same(
        s.focus.extra("requirementId"), s.new.extra("requirementId")
    )


def _same_channel(s: Situation) -> bool:
    return s.focus.source_type == s.new.source_type == "a2a_message" and _same(
        s.focus.extra("channelKey"), s.new.extra("channelKey")
    )


def _tree_mail(s: Situation) -> bool:
    # A retained agent's turn reads its mail, and its own background completions, at
    # its next model request (seed 002, A2A-18).
    new = s.new
    return s.focus.source_type in TREE_TYPES and (
        new.source_type in TREE_TYPES
        or (new.source_type == "callback_result" and new.extra("callbackType") == "background_exec")
    )


def _user_over_work(s: Situation) -> bool:
    return is_user_interaction(s.new, s.registry) and not is_user_interaction(s.focus, s.registry)


def _restates_focus(s: Situation) -> bool:
    # A newer notice of the focus's own superseding group (a heartbeat during a
    # heartbeat, a sender's status during its previous status) says nothing the
    # running one does not: it waits, also when dedup is off.
    def group(item: MailboxItem) -> object:
        return supersede_group(
            s.registry.get(item.source_type), item.payload, item.metadata, _GROUPS
        )

    new = group(s.new)
    return new is not None and new == group(s.focus)


#: Settings with dedup on: superseding groups are compared whatever the agent's switch.
_GROUPS = AgentConfig()


def _more_urgent(s: Situation) -> bool:
    return s.new.priority < s.focus.priority


def _heartbeat_focus_agent_message(s: Situation) -> bool:
    return s.focus.source_type == "heartbeat" and s.new.source_type == "a2a_message"


def _system_focus_equal_priority(s: Situation) -> bool:
    return s.focus_category == Category.SYSTEM and s.new.priority == s.focus.priority


def _mention_over_normal(s: Situation) -> bool:
    return s.new.source_type == "mention" and s.focus.priority >= 2


def conversation_keys(item: MailboxItem) -> tuple[Hashable, ...]:
    """The conversations ``item`` belongs to: the keys the merge rules compare.

    A person's chat session (R0), a task (R2), a requirement (R3), a channel
    (R2c). A queued item is offered to every new focus that shares one of its
    keys (CORE-71), and one sender's messages in one conversation keep their
    order.
    """
    keys: list[Hashable] = []
    sender = item.metadata.get("senderId")
    if item.source_type == "human_chat" and sender is not None:
        keys.append(("chat", sender, item.metadata.get("sessionId")))
    if item.source_type in TREE_TYPES:
        keys.append(("tree", item.agent_id))  # one conversation per retained agent
    for kind, name in (
        ("task", "taskId"),
        ("requirement", "requirementId"),
        ("channel", "channelKey"),
    ):
        value = item.extra(name)
        if isinstance(value, str | int) and not isinstance(value, bool) and value != "":
            keys.append((kind, value))
    return tuple(keys)


def sender_of(item: MailboxItem) -> object:
    """The sender id of ``item``, or None when it names none."""
    return item.metadata.get("senderId")


M, P, C = DecisionType.MERGE, DecisionType.PREEMPT, DecisionType.CONTINUE

#: The heuristic table, in order. First match wins; no match means continue.
RULES: tuple[Rule, ...] = (
    Rule("R0", M, "Same user and session as the running chat: merged as a follow-up", _same_chat),
    Rule("R2", M, "Comment on the task in focus: merged into the running work", _same_task_comment),
    Rule("R3", M, "Comment or update on the requirement in focus: merged", _same_requirement),
    Rule(
        "R2c",
        M,
        "Same channel as the message in focus: merged into the running turn",
        _same_channel,
    ),
    Rule(
        "R2t",
        M,
        "Mail for the retained agent in its turn: delivered at this safe boundary (seed 002)",
        _tree_mail,
    ),
    Rule("R1", P, "A person is waiting: user interactions preempt other work", _user_over_work),
    Rule("R1s", C, "Restates the superseding notice in focus: it waits", _restates_focus),
    Rule("R4", P, "Higher priority than the focus", _more_urgent),
    Rule("R5", P, "Agent message preempts a heartbeat", _heartbeat_focus_agent_message),
    Rule("R6", P, "System work yields to equal-priority arrivals", _system_focus_equal_priority),
    Rule("R7", P, "Mention preempts normal-or-lower work", _mention_over_normal),
)


@dataclass(frozen=True, slots=True)
class Verdict:
    """An interrupt decision: what to do, why, and which rule (or the tier 1 judge) said so."""

    decision: DecisionType
    reason: str
    rule: str


CONTINUE_VERDICT = Verdict(
    DecisionType.CONTINUE, "Not urgent enough to interrupt the focus", "default"
)


def decide(
    focus: MailboxItem, new: MailboxItem, registry: TypeRegistry, rules: tuple[Rule, ...] = RULES
) -> Verdict:
    """Apply the table to one arrival; returns merge, preempt or continue."""
    situation = Situation(focus, new, registry)
    for rule in rules:
        if rule.applies(situation):
            return Verdict(rule.decision, rule.reason, rule.name)
    return CONTINUE_VERDICT


class HeuristicRules:
    """The built-in :class:`~attn.core.attention.InterruptRules` (tier 0): the table above.

    Not the seed's judge: that is the tier 1 LLM classifier
    (:class:`~attn.core.attention.InterruptClassifier`), asked only when these
    rules say continue.

    Args:
        registry: the type registry the rules read type flags from.
        rules: the table, first match wins (default :data:`RULES`).
    """

    def __init__(self, registry: TypeRegistry, rules: tuple[Rule, ...] = RULES) -> None:
        self._registry = registry
        self._rules = rules

    async def decide(self, focus: MailboxItem, new: MailboxItem) -> Verdict:
        """Decide about ``new`` while ``focus`` is being processed."""
        return decide(focus, new, self._registry, self._rules)
