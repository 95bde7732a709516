"""An item type has one JSON form, used by ``GET /api/types`` and trace headers."""

from __future__ import annotations

import json
from dataclasses import fields

import pytest

from attn.core.item_type import Category, ItemType, Recovery, Supersede
from attn.core.registry import BUILTIN_TYPES
from attn.errors import InvalidInput

EVERY_FIELD_SET = ItemType(
    "custom_status",
    "Status",
    3,
    Category.NOTIFICATION,
    "!",
    "internal",
    creates_activity=False,
    invokes_llm=False,
    requires_text=True,
    user_priority=1,
    preemptable=False,
    recovery=Recovery.DROP,
    ttl_s=60.0,
    informational=True,
    merge_key="statusId",
    supersedes=Supersede.SENDER,
    description="a status ping",
)


@pytest.mark.parametrize("spec", [*BUILTIN_TYPES, EVERY_FIELD_SET], ids=lambda t: t.name)
def test_every_field_round_trips_through_json_text(spec: ItemType) -> None:
    data = json.loads(json.dumps(spec.to_dict()))
    back = ItemType.from_dict(data)
    assert back == spec
    assert back.description == spec.description  # not part of ==
    assert back.informational == spec.informational
    assert len(data) == len(fields(ItemType))


def test_missing_optional_fields_take_their_defaults() -> None:
    spec = ItemType.from_dict(
        {"name": "bare", "label": "Bare", "defaultPriority": 2, "category": "task"}
    )
    assert spec == ItemType("bare", "Bare", 2, Category.TASK, "•")
    assert isinstance(spec.category, Category)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "an item type must be a JSON object, got an array"),
        ({"name": "x", "label": "X", "category": "task"}, "missing 'defaultPriority'"),
        ({**EVERY_FIELD_SET.to_dict(), "colour": "red"}, "unknown fields: colour"),
        ({**EVERY_FIELD_SET.to_dict(), "informational": 1}, "'informational' has the wrong type"),
        ({**EVERY_FIELD_SET.to_dict(), "defaultPriority": True}, "'defaultPriority' has the wrong"),
        ({**EVERY_FIELD_SET.to_dict(), "recovery": "keep"}, "recovery must be requeue or drop"),
        ({**EVERY_FIELD_SET.to_dict(), "category": "misc"}, "category must be one of"),
        ({**EVERY_FIELD_SET.to_dict(), "name": "Bad Name"}, "type name must match"),
    ],
)
def test_from_dict_names_what_is_wrong(data: object, message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        ItemType.from_dict(data)
