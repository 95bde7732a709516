"""The type registry (000 §3.1–3.3, §6.3)."""

from __future__ import annotations

import pytest

from attn import Category, InvalidInput, InvalidPriority, ItemType, TypeRegistry, UnknownItemType
from attn.core.registry import BUILTIN_TYPES, activity_type_for

SEED = {  # name: (label, priority, category, icon, activity type, creates activity, invokes LLM)
    "system_event": ("System Event", 1, "system", "⚙", "internal", True, True),
    "human_chat": ("Chat", 0, "interaction", "💬", "chat", True, True),
    "task_comment": ("Task Comment", 2, "task", "💬", None, False, False),
    "mention": ("Mention", 1, "interaction", "@", "chat", True, True),
    "session_reply": ("Session Reply", 1, "task", "↩", "respond_in_session", True, True),
    "task_status_update": ("Task Status", 1, "task", "📋", None, True, False),
    "a2a_message": ("Agent Message", 2, "interaction", "🔗", "a2a", True, True),
    "review_request": ("Review Request", 1, "task", "👀", "chat", True, True),
    "requirement_comment": ("Requirement Comment", 2, "task", "💬", None, False, False),
    "requirement_update": ("Requirement Update", 1, "notification", "📝", "internal", True, False),
    "daily_report": ("Daily Report", 2, "system", "📊", "internal", True, True),
    "heartbeat": ("Heartbeat", 3, "system", "♡", "heartbeat", True, True),
    "memory_consolidation": ("Memory Consolidation", 4, "system", "🧠", "internal", True, True),
    "callback_result": ("Callback Result", 1, "system", "↩", "internal", True, True),
}
#: Seed 002's communication records of a spawn tree (issue 14).
TREE = {
    "agent_mail": ("Agent Mail", 2, "interaction", "✉", "a2a", True, True),
    "agent_result": ("Agent Result", 2, "interaction", "⮐", "a2a", True, True),
    "agent_execution": ("Agent Execution", 2, "system", "⚙", "a2a", True, True),
}
#: Seed 003's records of command-line workers (issue 16).
WORKERS = {
    "worker_contact": ("Worker Question", 1, "interaction", "❓", "a2a", True, True),
    "worker_message": ("Worker Message", 2, "interaction", "🛠", "a2a", True, True),
}


def test_the_fourteen_builtin_types_match_the_seed() -> None:
    registry = TypeRegistry()
    assert len(registry) == 14 + 3 + 2 == len(BUILTIN_TYPES)
    for name, expected in {**SEED, **TREE, **WORKERS}.items():
        t = registry[name]
        actual = (
            t.label,
            t.default_priority,
            str(t.category),
            t.icon,
            t.activity_type,
            t.creates_activity,
            t.invokes_llm,
        )
        assert actual == expected, name


def test_categories_group_types_as_the_seed_says() -> None:
    registry = TypeRegistry()
    assert {t.name for t in registry.by_category(Category.NOTIFICATION)} == {"requirement_update"}
    assert {t.name for t in registry.by_category("interaction")} == {
        "human_chat",
        "a2a_message",
        "mention",
        "agent_mail",
        "agent_result",
        "worker_contact",
        "worker_message",
    }


def test_register_user_type_and_reject_bad_ones() -> None:
    registry = TypeRegistry()
    spec = registry.register(ItemType("build_finished", "Build Finished", 2, Category.SYSTEM, "🏗"))
    assert registry.get_type("build_finished") is spec
    bad = [
        ItemType("Build", "x", 2, Category.SYSTEM, "x"),
        ItemType("build finished", "x", 2, Category.SYSTEM, "x"),
        ItemType("ok_name", "", 2, Category.SYSTEM, "x"),
        ItemType("ok_name", "x", 2, "weird", "x"),  # type: ignore[arg-type]
        ItemType("ok_name", "x", 2, Category.SYSTEM, "x", ttl_s=-1),
        ItemType("human_chat", "Chat", 0, Category.INTERACTION, "x"),
        ItemType("build_finished", "again", 2, Category.SYSTEM, "x"),
    ]
    for spec in bad:
        with pytest.raises(InvalidInput):
            registry.register(spec)
    with pytest.raises(InvalidPriority):
        registry.register(ItemType("ok_name", "x", 9, Category.SYSTEM, "x"))
    with pytest.raises(InvalidInput):
        registry.register("not a spec")  # type: ignore[arg-type]
    assert "ok_name" not in registry and len(registry) == len(BUILTIN_TYPES) + 1
    with pytest.raises(InvalidInput):
        registry.register(
            ItemType("human_chat", "Chat", 0, Category.INTERACTION, "x"), replace_existing=True
        )


def test_unknown_type_lists_known_ones() -> None:
    with pytest.raises(UnknownItemType, match="known types: a2a_message"):
        TypeRegistry().get_type("nope")


def test_registries_are_independent() -> None:
    a, b = TypeRegistry(), TypeRegistry()
    a.register(ItemType("only_in_a", "A", 2, Category.SYSTEM, "a"))
    assert "only_in_a" not in b


def test_activity_type_derivation_6_3() -> None:
    r = TypeRegistry()
    assert activity_type_for(r["human_chat"], {}) == "chat"
    assert activity_type_for(r["task_status_update"], {}) is None
    assert (
        activity_type_for(r["task_status_update"], {"extra": {"triggerExecution": True}}) == "task"
    )
    assert activity_type_for(r["requirement_update"], {}) is None
    assert activity_type_for(r["requirement_update"], {"actionRequired": True}) == "internal"
    assert activity_type_for(r["task_comment"], {}) is None
    assert activity_type_for(r["heartbeat"], {}) == "heartbeat"


def test_to_list_is_json_ready() -> None:
    import json

    listed = TypeRegistry().to_list()
    assert json.loads(json.dumps(listed))[1]["name"] == "human_chat"
