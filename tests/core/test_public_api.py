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
            "Enqueued",
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


def test_core_subpackages_export_documented_names() -> None:
    """Each core subpackage names its public objects in ``__all__``, each documented."""
    import inspect

    from attn.core import attention, mailbox

    for package in (attention, mailbox):
        assert package.__doc__ and "Public" in package.__doc__
        for name in package.__all__:
            value = getattr(package, name)
            if inspect.isclass(value) or inspect.isfunction(value):
                assert inspect.getdoc(value), f"{package.__name__}.{name} has no docstring"
