"""Scenarios: what kind of work an item is, and what the model is told for each.

The scenario of an item follows from its source type (an execution trigger is
always a task execution); deliberation is the scenario of tier-2 triage
(000 §21) and is chosen by whoever deliberates, never by a source type. Each
scenario has instructions in the system prompt (:mod:`attn.brains.llm.prompt`).

Every scenario but chat asks the model to end its answer with the completion
marker (:data:`attn.models.COMPLETION_MARKER`), so attn can tell finished work
from work cut short (000 §20, CORE-43). A person waiting in a chat sees the
answer as it streams and is not asked for a marker. Which scenarios may be
preempted is the attention controller's business (``ItemType.preemptable``),
not this module's.

Spec: 000 §3.5 (context-first protocol for comments), §4 (scenarios), §11.5
(the ``[conversation:…]`` tag of agent messages), §13.3, §20 (completion
marker), §21 (deliberation); acceptance LLM-20, LLM-21.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from types import MappingProxyType

from attn.models import COMPLETION_MARKER, MailboxItem


class Scenario(StrEnum):
    """The kind of work an item asks for (the seed's ``scenario``)."""

    CHAT = "chat"
    TASK_EXECUTION = "task_execution"
    COMMENT_RESPONSE = "comment_response"
    AGENT_MESSAGE = "a2a"
    TREE_MAIL = "tree_mail"
    WORKER = "worker"
    HEARTBEAT = "heartbeat"
    CALLBACK_RESULT = "callback_result"
    DELIBERATION = "deliberation"
    OTHER = "other"


#: The scenario of each built-in source type that has one of its own; every
#: other type (and every user-registered type) is :attr:`Scenario.OTHER`.
SCENARIO_BY_TYPE: Mapping[str, Scenario] = MappingProxyType(
    {
        "human_chat": Scenario.CHAT,
        "task_comment": Scenario.COMMENT_RESPONSE,
        "requirement_comment": Scenario.COMMENT_RESPONSE,
        "mention": Scenario.COMMENT_RESPONSE,
        "a2a_message": Scenario.AGENT_MESSAGE,
        "agent_mail": Scenario.TREE_MAIL,
        "agent_result": Scenario.TREE_MAIL,
        "agent_execution": Scenario.TREE_MAIL,
        "worker_contact": Scenario.WORKER,
        "worker_message": Scenario.WORKER,
        "heartbeat": Scenario.HEARTBEAT,
        "callback_result": Scenario.CALLBACK_RESULT,
    }
)

#: A short title of each scenario, as the system prompt shows it.
TITLES: Mapping[Scenario, str] = MappingProxyType(
    {
        Scenario.CHAT: "Chat",
        Scenario.TASK_EXECUTION: "Task execution",
        Scenario.COMMENT_RESPONSE: "Comment response",
        Scenario.AGENT_MESSAGE: "Agent message",
        Scenario.TREE_MAIL: "Mail in your agent tree",
        Scenario.WORKER: "A command-line worker you lead",
        Scenario.HEARTBEAT: "Heartbeat",
        Scenario.CALLBACK_RESULT: "Callback result",
        Scenario.DELIBERATION: "Deliberation",
        Scenario.OTHER: "Mailbox item",
    }
)

_INSTRUCTIONS: Mapping[Scenario, str] = MappingProxyType(
    {
        Scenario.CHAT: (
            "A person is waiting for your answer in a chat and reads it as it streams. "
            "Answer them directly and concisely, in their language. Use tools only when "
            "the answer needs them. When they send more messages while you work, those "
            "arrive in this conversation: take them into account in the same answer."
        ),
        Scenario.TASK_EXECUTION: (
            "You are executing a task. Work through it with your tools, one step at a "
            "time, checking the result of each step before the next. Messages about the "
            "task may be added to this conversation while you work: take them into "
            "account. Finish with a short report: what you did, what the outcome is, and "
            "anything left open."
        ),
        Scenario.COMMENT_RESPONSE: (
            "Someone commented on a task or requirement you are involved in. Before you "
            "reply, gather the context, in this order (mandatory):\n"
            "1. Fetch the full item the comment is about (its current state), with your "
            "task or requirement tools.\n"
            "2. Read every earlier comment of the thread, not only the newest.\n"
            "3. Work out what the commenter wants: a question, a request, feedback, an "
            "objection, or something else.\n"
            "4. Look up the related context the comments refer to: other tasks, "
            "requirements or files.\n"
            "Only then write your reply. Several comments may be bundled into this one "
            "item, separated by lines holding only ---: answer them together in a "
            "single reply, addressed to the most important comment (reply to it when "
            "your comment tool can), quoting the others where you answer them. When the "
            "thread needs no answer from you, do not post one."
        ),
        Scenario.AGENT_MESSAGE: (
            "Another agent sent you a message; several messages of one channel may be "
            "bundled here, separated by lines holding only ---. Each message starts with "
            "a [conversation:<id>] tag naming its conversation. Do what they ask when it "
            "is yours to do. When the item says a reply is expected (a question awaited, "
            "a task delegated to you), your final answer is sent back to the sender by "
            "itself: write it for them. Otherwise, to reply, call agent_send_message with "
            "to set to the sender and conversation_id set to the tag's id (on a group "
            "channel, agent_send_group_message), so they can tell what you answer. Once "
            "you sent any message yourself while handling this item, your final answer is "
            "not sent. Do not reply only to acknowledge or to thank: agents answering each "
            "other's courtesies never stop."
        ),
        Scenario.TREE_MAIL: (
            "You are a retained agent of an agent tree, and this turn brings your unread "
            "mail, oldest first, separated by lines holding only ---: messages from other "
            "agents ([mail from <path>]), results of your children's turns ([result from "
            "<path>: <outcome>]) and background completions they could not read. More mail "
            "may join while you work. Do what the mail asks when it is yours to do. Your "
            "final answer is sent to the agent that spawned you as this turn's result: "
            "write it for them, with what they need and nothing else. To write to another "
            "agent, use SendMessage with its path; to hand work to a new child, use Agent. "
            "Do not send mail only to acknowledge or to thank."
        ),
        Scenario.WORKER: (
            "A command-line worker you lead wrote to you. A worker_contact item is a "
            "question it waits on: answer it with respond_to_worker, passing the run, task "
            "and question ids the item names (for a confirmation, set approved). A person "
            "may have answered first: respond_to_worker then says already_answered, and "
            "you do not answer again. A worker_message item is a report or the worker's "
            "exit: do what it asks when it is yours to do. Steer a running worker with "
            "steer_worker and ask one for its status with nudge_worker."
        ),
        Scenario.HEARTBEAT: (
            "This is a heartbeat: a periodic check on your own work, not a message from "
            "anyone. Review what you are responsible for: the progress of your tasks, "
            "follow-ups that are due, operations that timed out (listed in this item "
            "when there are any). Act where something is stuck or overdue. When all is "
            "well, say so in one line and stop."
        ),
        Scenario.CALLBACK_RESULT: (
            "An operation you started earlier has reported back (a background command, "
            "a wakeup you scheduled, a reply you were awaiting). Read its result (exit "
            "code, output, reply) and carry on with the work it belongs to; when it "
            "failed, find out why before trying again."
        ),
        Scenario.DELIBERATION: (
            "[DELIBERATION MODE] Several items are waiting in your mailbox. Decide, as "
            "yourself, what to do about them: which to handle now (one, or several "
            "together as a batch with a note on how), which to defer and which to drop "
            "as stale or redundant. You may handle a simple item at once (a short "
            "message or comment) and list it as completed inline. Do not start heavy "
            "work now: that comes when the item is processed. Items from people in a "
            "chat may not be deferred or dropped. Record what you understood about "
            "your situation, then call complete_deliberation exactly once with your "
            "decision."
        ),
        Scenario.OTHER: (
            "Handle this mailbox item as its content asks, with your tools where it "
            "needs them. When it only informs you, note what matters to you (your "
            "working memory is there for that) and finish."
        ),
    }
)

_MARKER_RULE = (
    f"When you have finished, end your final answer with the marker {COMPLETION_MARKER}. "
    "It is removed before anyone sees your answer and tells attn the work is done. Write "
    "it only when you really finished (never when you had to stop part-way), once, at "
    "the very end, outside any thinking."
)


def scenario_for(item: MailboxItem) -> Scenario:
    """The scenario of ``item``, from its source type (000 §4).

    An execution trigger (``triggerExecution`` in the payload, 000 §3.4) is a
    task execution whatever its type; a type of :data:`SCENARIO_BY_TYPE` has its
    scenario; any other type is :attr:`Scenario.OTHER`. Never
    :attr:`Scenario.DELIBERATION`: deliberation is not an item's scenario.
    """
    if item.triggers_execution:
        return Scenario.TASK_EXECUTION
    return SCENARIO_BY_TYPE.get(item.source_type, Scenario.OTHER)


def uses_marker(scenario: Scenario) -> bool:
    """True when the scenario's instructions ask for the completion marker: all but chat
    (a person reads it live) and deliberation (it ends with ``complete_deliberation``)."""
    return scenario not in (Scenario.CHAT, Scenario.DELIBERATION)


def instructions(scenario: Scenario) -> str:
    """The scenario's instructions for the system prompt (fixed text, no times, no ids).

    Non-chat scenarios end with the completion-marker rule (000 §20).

    Raises:
        ValueError: ``scenario`` is not a :class:`Scenario` (or its value).
    """
    scenario = Scenario(scenario)
    text = _INSTRUCTIONS[scenario]
    return f"{text}\n\n{_MARKER_RULE}" if uses_marker(scenario) else text


__all__ = [
    "SCENARIO_BY_TYPE",
    "TITLES",
    "Scenario",
    "instructions",
    "scenario_for",
    "uses_marker",
]
