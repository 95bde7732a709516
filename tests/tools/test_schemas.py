"""The generated tool schemas equal the hand-written ones they replaced (issue 11).

The JSON below is what ``attn.core.tools.TOOL_SCHEMAS`` and
``attn.time.tools.TOOL_SCHEMAS`` said before the schemas were generated from
the tools' signatures and docstrings, captured verbatim.
"""

# ruff: noqa: E501 -- the captured JSON keeps each description on one line, verbatim

from __future__ import annotations

import inspect
import json

import pytest

from attn.tools import FunctionToolset, MailboxToolset, TimeToolset

OLD_MAILBOX_SCHEMAS = json.loads(
    r"""
[
 {
  "name": "check_mailbox",
  "description": "Look at your mailbox without changing it: queue depth, your current focus, the queued and deferred items (id, type, priority, summary, preview) and your most recent attention decisions.",
  "parameters": {
   "type": "object",
   "properties": {
    "limit": {
     "type": "integer",
     "minimum": 1,
     "maximum": 1000,
     "default": 50,
     "description": "Most queued (and deferred) items to list."
    }
   },
   "required": [],
   "additionalProperties": false
  }
 },
 {
  "name": "defer_mailbox_item",
  "description": "Postpone a queued item: it leaves the queue and comes back after the delay, or when you are next idle if no delay is given. Human chat cannot be deferred.",
  "parameters": {
   "type": "object",
   "properties": {
    "item_id": {
     "type": "string",
     "description": "A mailbox item id (mbx_…) from check_mailbox."
    },
    "reason": {
     "type": "string",
     "description": "Why, in a sentence; stored with the decision."
    },
    "delay_minutes": {
     "type": [
      "number",
      "null"
     ],
     "exclusiveMinimum": 0,
     "maximum": 43200,
     "description": "Minutes until the item returns to the queue."
    }
   },
   "required": [
    "item_id",
    "reason"
   ],
   "additionalProperties": false
  }
 },
 {
  "name": "drop_mailbox_item",
  "description": "Discard a stale or redundant queued or deferred item for good. Human chat cannot be dropped.",
  "parameters": {
   "type": "object",
   "properties": {
    "item_id": {
     "type": "string",
     "description": "A mailbox item id (mbx_…) from check_mailbox."
    },
    "reason": {
     "type": "string",
     "description": "Why, in a sentence; stored with the decision."
    }
   },
   "required": [
    "item_id",
    "reason"
   ],
   "additionalProperties": false
  }
 },
 {
  "name": "prioritize_mailbox_item",
  "description": "Change a queued or deferred item's priority: 0 critical, 1 high, 2 normal, 3 low, 4 background (lower is served first). Human chat cannot be reprioritized.",
  "parameters": {
   "type": "object",
   "properties": {
    "item_id": {
     "type": "string",
     "description": "A mailbox item id (mbx_…) from check_mailbox."
    },
    "priority": {
     "type": "number",
     "minimum": 0,
     "maximum": 4,
     "description": "0..4; rounded to the nearest integer."
    },
    "reason": {
     "type": "string",
     "description": "Why (optional)."
    }
   },
   "required": [
    "item_id",
    "priority"
   ],
   "additionalProperties": false
  }
 },
 {
  "name": "update_working_memory",
  "description": "Write a short note under a key in your working memory; it is shown, with its age, in every later prompt until you update or clear it.",
  "parameters": {
   "type": "object",
   "properties": {
    "key": {
     "type": "string",
     "maxLength": 100,
     "description": "A label, e.g. 'task-priorities'."
    },
    "content": {
     "type": "string",
     "description": "The note (at most 4 KB)."
    }
   },
   "required": [
    "key",
    "content"
   ],
   "additionalProperties": false
  }
 },
 {
  "name": "clear_working_memory",
  "description": "Remove a stale working-memory entry, or every entry when no key is given.",
  "parameters": {
   "type": "object",
   "properties": {
    "key": {
     "type": [
      "string",
      "null"
     ],
     "description": "The key to remove."
    }
   },
   "required": [],
   "additionalProperties": false
  }
 },
 {
  "name": "complete_deliberation",
  "description": "Finish deliberating over your mailbox with one decision: the item to process now (or several to process together), and the items to defer, drop, or that you already handled inline. Human chat can never be deferred, dropped or completed inline.",
  "parameters": {
   "type": "object",
   "properties": {
    "process_item_id": {
     "type": "string",
     "description": "The item to process now."
    },
    "reasoning": {
     "type": "string",
     "description": "Why this choice."
    },
    "process_item_ids": {
     "type": "array",
     "items": {
      "type": "string"
     },
     "description": "Several items to process together in one call (batch)."
    },
    "batch_context": {
     "type": [
      "string",
      "null"
     ],
     "description": "Instruction or synthesis for the batch."
    },
    "defer_item_ids": {
     "type": "array",
     "items": {
      "type": "string"
     },
     "description": "Items to postpone."
    },
    "drop_item_ids": {
     "type": "array",
     "items": {
      "type": "string"
     },
     "description": "Stale or redundant items to discard."
    },
    "inline_completed_ids": {
     "type": "array",
     "items": {
      "type": "string"
     },
     "description": "Items you already handled while deliberating."
    },
    "situational_awareness": {
     "type": [
      "string",
      "null"
     ],
     "description": "A short summary of your situation, kept in working memory under 'deliberation'."
    },
    "memory_updates": {
     "type": "array",
     "description": "Working-memory writes.",
     "items": {
      "type": "object",
      "properties": {
       "key": {
        "type": "string"
       },
       "content": {
        "type": "string"
       },
       "type": {
        "enum": [
         "working",
         "longterm"
        ]
       }
      },
      "required": [
       "key",
       "content"
      ],
      "additionalProperties": false
     }
    }
   },
   "required": [
    "process_item_id",
    "reasoning"
   ],
   "additionalProperties": false
  }
 }
]
"""
)

OLD_TIME_SCHEMAS = json.loads(
    r"""
[
 {
  "name": "schedule_wakeup",
  "description": "Schedule a follow-up for yourself: at the time given you receive a system event with your note. Give exactly one of delay_s or at. Prefer this to waiting for the heartbeat.",
  "parameters": {
   "type": "object",
   "properties": {
    "delay_s": {
     "type": "number",
     "minimum": 0,
     "description": "Seconds from now until the wakeup."
    },
    "at": {
     "type": "string",
     "format": "date-time",
     "description": "Absolute time with a timezone, e.g. 2026-01-02T08:00:00Z."
    },
    "recurring_s": {
     "type": "number",
     "minimum": 60,
     "description": "Repeat every this many seconds after each delivery."
    },
    "note": {
     "type": "string",
     "maxLength": 8192,
     "description": "What to do when woken."
    }
   },
   "required": [],
   "additionalProperties": false
  }
 },
 {
  "name": "cancel_wakeup",
  "description": "Cancel one of your scheduled wakeups by its id.",
  "parameters": {
   "type": "object",
   "properties": {
    "wakeup_id": {
     "type": "string",
     "description": "The wakeupId schedule_wakeup gave."
    }
   },
   "required": [
    "wakeup_id"
   ],
   "additionalProperties": false
  }
 },
 {
  "name": "set_heartbeat_interval",
  "description": "Change how often your periodic heartbeat patrol runs. Clamped to 5 minutes - 24 hours; applies at once and persists.",
  "parameters": {
   "type": "object",
   "properties": {
    "interval_s": {
     "type": "number",
     "description": "Seconds between heartbeats (clamped to 300..86400)."
    }
   },
   "required": [
    "interval_s"
   ],
   "additionalProperties": false
  }
 },
 {
  "name": "background_exec",
  "description": "Run a shell command in the background without waiting. When it ends you receive a callback_result in this conversation with its exit code, duration and the tail of its output.",
  "parameters": {
   "type": "object",
   "properties": {
    "command": {
     "type": "string",
     "minLength": 1,
     "maxLength": 8192,
     "description": "The shell command line."
    },
    "timeout_s": {
     "type": "number",
     "exclusiveMinimum": 0,
     "maximum": 86400.0,
     "description": "Kill the command after this many seconds."
    }
   },
   "required": [
    "command"
   ],
   "additionalProperties": false
  }
 }
]
"""
)


@pytest.mark.parametrize(
    ("toolset", "old"),
    [(MailboxToolset, OLD_MAILBOX_SCHEMAS), (TimeToolset, OLD_TIME_SCHEMAS)],
)
def test_generated_schemas_equal_the_hand_written_ones(
    toolset: type[FunctionToolset], old: list[dict[str, object]]
) -> None:
    generated = [d.to_dict() for d in toolset.tool_definitions()]
    assert [s["name"] for s in generated] == [s["name"] for s in old]
    for new, before in zip(generated, old, strict=True):
        assert new == before, new["name"]
    json.dumps(generated, allow_nan=False)


@pytest.mark.parametrize("toolset", [MailboxToolset, TimeToolset])
def test_schemas_match_the_methods(toolset: type[FunctionToolset]) -> None:
    for definition in toolset.tool_definitions():
        params = definition.parameters
        assert params["type"] == "object" and params["additionalProperties"] is False
        signature = inspect.signature(getattr(toolset, definition.name))
        names = [n for n in signature.parameters if n != "self"]
        assert list(params["properties"]) == names, definition.name
        required = [n for n in names if signature.parameters[n].default is inspect.Parameter.empty]
        assert params["required"] == required == list(definition.required), definition.name
        for prop in params["properties"].values():
            assert ("type" in prop or "enum" in prop) and prop["description"].strip()
