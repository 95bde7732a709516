"""Checks of what callers hand the people service: every edge refuses the same way.

The Python API, the brain tools, REST and the CLI all pass their arguments
here before anything is stored, so a bad title, option list, priority,
expiry or user is refused with one clear :class:`~attn.errors.InvalidInput`
and nothing changes.

Spec: 000 §12.1 (notification columns), §13.1 (notify_user), §13.2
(request_user_approval); acceptance PPL-05.
"""

from __future__ import annotations

import re
from typing import Any

from attn.config.people import Users
from attn.errors import InvalidInput, UnknownUser, shown
from attn.limits import check_json, check_optional_text, check_seconds, check_text
from attn.models.people import (
    DEFAULT_OPTIONS,
    MAX_BODY_CHARS,
    MAX_COMMENT_CHARS,
    MAX_EXPIRY_S,
    MAX_OPTION_DESCRIPTION_CHARS,
    MAX_OPTION_ID_CHARS,
    MAX_OPTION_LABEL_CHARS,
    MAX_OPTIONS,
    MAX_TITLE_CHARS,
    ApprovalOption,
    NotificationPriority,
)
from attn.types import JSON

#: The priorities an approval may ask with (000 §13.2: no ``low``).
APPROVAL_PRIORITIES = ("normal", "high", "urgent")
#: Most characters of a related task or requirement id.
MAX_REF_CHARS = 200
_REF = re.compile(rf"^[A-Za-z0-9][A-Za-z0-9_.:/#-]{{0,{MAX_REF_CHARS - 1}}}$")
_OPTION_ID = re.compile(rf"^[A-Za-z0-9][A-Za-z0-9_.-]{{0,{MAX_OPTION_ID_CHARS - 1}}}$")


def _no_nul(text: str, what: str) -> str:
    if "\x00" in text:
        raise InvalidInput(f"{what} must not hold NUL characters")
    return text


def title(value: object) -> str:
    """A one-line title of 1..200 characters (surrounding spaces removed), no NUL."""
    text = _no_nul(check_text(value, "title", max_len=MAX_TITLE_CHARS).strip(), "title")
    if "\n" in text or "\r" in text:
        raise InvalidInput("title must be one line")
    return text


def body(value: object, what: str = "body") -> str:
    """Text of at most 20,000 characters, no NUL ('' allowed; None is '')."""
    return _no_nul(check_optional_text(value, what, max_len=MAX_BODY_CHARS) or "", what)


def comment(value: object) -> str:
    """A free-text answer of at most 10,000 characters ('' allowed; None is '')."""
    return _no_nul(
        check_optional_text(value, "comment", max_len=MAX_COMMENT_CHARS) or "", "comment"
    )


def priority(
    value: object, default: NotificationPriority, *, approval: bool = False
) -> NotificationPriority:
    """A notification priority (``low``/``normal``/``high``/``urgent``; an
    approval's: no ``low``); None is ``default``."""
    if value is None:
        return default
    allowed = APPROVAL_PRIORITIES if approval else tuple(p.value for p in NotificationPriority)
    if not isinstance(value, str) or value not in allowed:
        raise InvalidInput(f"priority must be one of {', '.join(allowed)}, got {shown(value)}")
    return NotificationPriority(value)


def ref(value: object, what: str) -> str | None:
    """An optional task or requirement id: 1..200 letters, digits and ``_ . : / # -``
    (it goes into a ``notify_context`` comment and a UI path, so no ``<``, ``>``,
    spaces or quotes)."""
    if value is None:
        return None
    text = check_text(value, what, max_len=MAX_REF_CHARS).strip()
    if not _REF.match(text):
        raise InvalidInput(
            f"{what} must be 1-{MAX_REF_CHARS} letters, digits, '_', '.', ':', '/', '#' "
            f"or '-', got {shown(value)}"
        )
    return text


def metadata(value: object) -> JSON:
    """An optional JSON object (None is ``{}``), within the JSON limits."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InvalidInput(f"metadata must be a JSON object, got {shown(value)}")
    check_json(value, "metadata")
    return dict(value)


def options(value: object) -> tuple[ApprovalOption, ...]:
    """The options of an approval: None is approve/reject; else 1..20 options, each
    ``{"id", "label", "description"?}`` (or a plain string, its own id and
    label), with distinct ids."""
    if value is None:
        return DEFAULT_OPTIONS
    if not isinstance(value, list | tuple) or not value:
        raise InvalidInput(f"options must be a non-empty list, got {shown(value)}")
    if len(value) > MAX_OPTIONS:
        raise InvalidInput(f"at most {MAX_OPTIONS} options, got {len(value)}")
    found: list[ApprovalOption] = []
    for index, raw in enumerate(value):
        found.append(_option(raw, index))
    ids = [o.id for o in found]
    if len(set(ids)) != len(ids):
        raise InvalidInput(f"option ids must be distinct, got {ids}")
    return tuple(found)


def _option(raw: object, index: int) -> ApprovalOption:
    where = f"options[{index}]"
    if isinstance(raw, str):
        raw = {"id": raw, "label": raw}
    if not isinstance(raw, dict):
        raise InvalidInput(f"{where} must be an object with id and label, got {shown(raw)}")
    extra = set(raw) - {"id", "label", "description"}
    if extra:
        raise InvalidInput(f"{where} has unknown keys: {', '.join(sorted(map(str, extra)))}")
    option_id = raw.get("id")
    if not isinstance(option_id, str) or not _OPTION_ID.match(option_id):
        raise InvalidInput(
            f"{where}.id must be 1-{MAX_OPTION_ID_CHARS} letters, digits, '_', '.' or '-', "
            f"got {shown(option_id)}"
        )
    label = check_text(
        raw.get("label", option_id), f"{where}.label", max_len=MAX_OPTION_LABEL_CHARS
    )
    description = check_optional_text(
        raw.get("description"), f"{where}.description", max_len=MAX_OPTION_DESCRIPTION_CHARS
    )
    return ApprovalOption(option_id, label.strip(), description or "")


def expiry_s(value: object) -> float | None:
    """Seconds until an approval expires (None: never), 1 s .. 30 days."""
    if value is None:
        return None
    return check_seconds(value, "expires_in_s", min_s=1, max_s=MAX_EXPIRY_S)


def user(users: Users, value: object, what: str = "user") -> str:
    """The id of a known person.

    Raises:
        UnknownUser: no person has that id (the message lists some).
    """
    found = users.get(value)
    if found is None:
        known = ", ".join(users.ids[:20])
        raise UnknownUser(f"unknown {what} {shown(value)}: no person has that id (people: {known})")
    return found.id


def flag(value: object, what: str) -> bool:
    """A literal boolean."""
    if not isinstance(value, bool):
        raise InvalidInput(f"{what} must be true or false, got {shown(value)}")
    return value


def answer_option(
    options_: tuple[ApprovalOption, ...], allow_freeform: bool, option: object, text: str
) -> str | None:
    """The option an answer names, checked against what the approval offers.

    None is allowed only when the approval takes free text and the answer has some.

    Raises:
        InvalidInput: an option the approval does not offer, or no option
            without free text.
    """
    if option is None:
        if allow_freeform and text.strip():
            return None
        wanted = "an option" + (" or a comment" if allow_freeform else "")
        offered = ", ".join(o.id for o in options_)
        raise InvalidInput(f"the answer must name {wanted} (options: {offered})")
    ids = [o.id for o in options_]
    if not isinstance(option, str) or option not in ids:
        raise InvalidInput(f"option {shown(option)} is not offered (options: {', '.join(ids)})")
    return option


def context(value: Any) -> JSON:
    """An approval's brain context: a JSON object (None is ``{}``)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InvalidInput(f"context must be a JSON object, got {shown(value)}")
    check_json(value, "context")
    return dict(value)
