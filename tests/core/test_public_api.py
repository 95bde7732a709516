"""The public facade is pinned: changes to it are deliberate."""

from __future__ import annotations

import attn


def test_public_all_is_pinned() -> None:
    assert sorted(attn.__all__) == sorted(
        [
            "Activity",
            "ActivityLog",
            "ActivityNotFound",
            "Agent",
            "AgentConfig",
            "AgentExists",
            "AgentNotRunning",
            "AttentionState",
            "AttnError",
            "Brain",
            "Category",
            "Decision",
            "DecisionType",
            "EchoBrain",
            "Event",
            "EventBus",
            "Focus",
            "InvalidInput",
            "InvalidJson",
            "InvalidPriority",
            "InvalidTransition",
            "ItemNotFound",
            "ItemStatus",
            "ItemType",
            "MailboxFull",
            "MailboxItem",
            "PayloadTooLarge",
            "Priority",
            "ProtectedItem",
            "Reply",
            "ReplyCancelled",
            "ReplyTimeout",
            "Runtime",
            "RuntimeLocked",
            "ScriptBrain",
            "StoreError",
            "Supersede",
            "TypeRegistry",
            "UnknownAgent",
            "UnknownItemType",
            "YieldAction",
            "YieldDecision",
            "build_brain",
            "open_store",
        ]
    )
    for name in attn.__all__:
        assert getattr(attn, name) is not None


def test_error_codes_are_unique() -> None:
    from attn import errors

    classes = [
        c for c in vars(errors).values() if isinstance(c, type) and issubclass(c, errors.AttnError)
    ]
    codes = [c.code for c in classes]
    assert len(codes) == len(set(codes))
    assert all(c().message for c in classes)
