"""The public surface: the facade is pinned, and every package says what it exports.

Like anyio's ``tests/test_all_attributes.py``: every package and top-level
module of attn (found by walking the source tree, so a new one is covered
without editing this file) must define ``__all__``, and every name in any
module's ``__all__`` must exist.

Spec: issue 11 §5.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

import pytest

import attn
from attn import errors

#: The facade's ``__all__``: changes to it are deliberate.
FACADE = [
    "Activity",
    "ActivityLog",
    "ActivityNotFound",
    "Agent",
    "AgentConfig",
    "AgentExists",
    "AgentNotRunning",
    "Approval",
    "ApprovalClosed",
    "ApprovalNotFound",
    "ApprovalState",
    "AttentionState",
    "AttnError",
    "Brain",
    "CallbackNotFound",
    "CallbackStatus",
    "CallbackType",
    "CatchUp",
    "Category",
    "Channel",
    "ChannelMessage",
    "ChannelMessageNotFound",
    "Channels",
    "Clock",
    "CombinedToolset",
    "ConfigError",
    "Decision",
    "DecisionType",
    "Delegation",
    "DeliberationResult",
    "Deliberator",
    "Delivery",
    "DeliveryMode",
    "DeliveryOutcome",
    "EchoBrain",
    "ExternalBrain",
    "Enqueued",
    "Event",
    "EventBus",
    "FileboxMessageNotFound",
    "Focus",
    "HeuristicRules",
    "IdempotencyConflict",
    "IdentityConflict",
    "InterruptClassifier",
    "InterruptRules",
    "InvalidInbox",
    "InvalidInput",
    "InvalidJson",
    "InvalidPriority",
    "InvalidTrace",
    "InvalidTransition",
    "ItemNotClaimed",
    "ItemNotFound",
    "ItemStatus",
    "ItemType",
    "MailboxFull",
    "MailboxItem",
    "MailboxToolset",
    "MemoryFull",
    "MemoryUpdate",
    "ModelError",
    "ModelStreamError",
    "NoIdentity",
    "NotAMember",
    "NotExternal",
    "NotNext",
    "Notification",
    "NotificationNotFound",
    "OptionError",
    "PayloadTooLarge",
    "PendingCallback",
    "People",
    "PeopleToolset",
    "PostgresStore",
    "Priority",
    "ProtectedItem",
    "QuestionWithdrawn",
    "Recovery",
    "Reply",
    "ReplyCancelled",
    "ReplyTimeout",
    "ResultOutcome",
    "RunCorrupt",
    "RunExists",
    "RunNotFound",
    "RunOwned",
    "Runtime",
    "RuntimeLocked",
    "SQLiteStore",
    "ScriptBrain",
    "SendReceipt",
    "SendRefused",
    "ServeError",
    "SessionMessage",
    "Store",
    "StoreClosed",
    "StoreError",
    "Supersede",
    "SystemClock",
    "TaskFinished",
    "TaskNotFound",
    "TaskNotWaiting",
    "TimeConfig",
    "TimeToolset",
    "ToolFailed",
    "Toolset",
    "Tree",
    "TreeAgent",
    "TreeAgentState",
    "TypeRegistry",
    "UnknownAgent",
    "UnknownChannel",
    "UnknownItemType",
    "UnknownUser",
    "UnsafePath",
    "User",
    "Users",
    "Verdict",
    "WakePolicy",
    "YieldAction",
    "YieldDecision",
    "__version__",
    "build_brain",
    "open_store",
]


def _walk() -> tuple[list[str], list[str]]:
    """(packages and top-level modules, every other module), by walking the source tree.

    A top-level module (``attn.errors``) counts as a package, as in the layer picture.
    """
    units, others = ["attn"], []
    for info in pkgutil.walk_packages(attn.__path__, prefix="attn."):
        if info.name == "attn.__main__":  # runs the CLI when imported
            continue
        top_level = info.name.count(".") == 1
        (units if info.ispkg or top_level else others).append(info.name)
    return sorted(units), sorted(others)


PACKAGES, MODULES = _walk()


def test_the_walk_finds_the_subpackages() -> None:
    assert {"attn", "attn.core", "attn.store", "attn.errors", "attn.time"} <= set(PACKAGES)
    assert "attn.core.registry" in MODULES


def test_facade_all_is_pinned() -> None:
    assert sorted(attn.__all__) == sorted(FACADE)
    assert len(attn.__all__) == len(set(attn.__all__))


@pytest.mark.parametrize("name", PACKAGES)
def test_every_package_has_an_all_of_existing_names(name: str) -> None:
    module: ModuleType = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    assert exported is not None, f"{name} has no __all__"
    assert isinstance(exported, list | tuple), f"{name}.__all__ is a {type(exported).__name__}"
    missing = [item for item in exported if not hasattr(module, item)]
    assert not missing, f"{name}.__all__ names what it does not have: {missing}"
    assert len(exported) == len(set(exported)), f"{name}.__all__ lists a name twice"


@pytest.mark.parametrize("name", MODULES)
def test_a_module_all_names_only_what_exists(name: str) -> None:
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", ())
    missing = [item for item in exported if not hasattr(module, item)]
    assert not missing, f"{name}.__all__ names what it does not have: {missing}"


def test_the_facade_names_every_error() -> None:
    classes = {
        name
        for name, value in vars(errors).items()
        if isinstance(value, type) and issubclass(value, errors.AttnError)
    }
    assert classes <= set(attn.__all__), sorted(classes - set(attn.__all__))
    assert all(getattr(attn, name) is getattr(errors, name) for name in classes)


def test_postgres_store_is_imported_on_first_use() -> None:
    from attn.store.postgres import PostgresStore

    assert attn.PostgresStore is PostgresStore
    with pytest.raises(AttributeError, match="no attribute 'NoSuchThing'"):
        attn.NoSuchThing  # noqa: B018


def test_version_comes_from_the_package_metadata() -> None:
    from importlib.metadata import version

    assert attn.__version__ == version("attn")


def test_error_codes_are_unique() -> None:
    classes = [
        c for c in vars(errors).values() if isinstance(c, type) and issubclass(c, errors.AttnError)
    ]
    codes = [c.code for c in classes]
    assert len(codes) == len(set(codes))
    assert all(c().message for c in classes)
