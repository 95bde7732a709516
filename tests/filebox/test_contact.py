"""Supervisor contact parsing (the parsing half of FILE-10): every form the seed
and pi-crew use becomes a :class:`Contact`; ordinary output, malformed lines and
unknown kinds are None, and the parser never raises."""

from __future__ import annotations

import json

import pytest

from attn.filebox import CONTACT_KINDS, Contact, parse_contact
from attn.filebox.contact import MAX_OPTIONS, MAX_QUESTION_CHARS, ContactKind, contact_line


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            "@supervisor need_confirmation: Deploy v2 to production?",
            Contact("need_confirmation", "Deploy v2 to production?"),
        ),
        (
            "@supervisor need_input: Which branch should I use?",
            Contact("need_input", "Which branch should I use?"),
        ),
        (
            "@supervisor need_selection: Which region? | eu-west | us-east",
            Contact("need_selection", "Which region?", ("eu-west", "us-east")),
        ),
        ("   @supervisor   need_input:   spaced out  \r\n", Contact("need_input", "spaced out")),
        (
            "\t@supervisor need_input:no space after the colon",
            Contact("need_input", "no space after the colon"),
        ),
        (
            "@supervisor need_selection: Pick | a | | a | b ",  # blanks and repeats go
            Contact("need_selection", "Pick", ("a", "b")),
        ),
    ],
    ids=["confirmation", "input", "selection", "spaces", "tab", "options cleaned"],
)
def test_the_seed_text_line(line: str, expected: Contact) -> None:
    assert parse_contact(line) == expected


def _json(**fields: object) -> str:
    return json.dumps(fields)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            _json(type="supervisor_contact", kind="need_confirmation", message="Deploy?"),
            Contact("need_confirmation", "Deploy?"),
        ),
        (
            _json(
                type="supervisor_contact",
                kind="need_selection",
                message="Which region?",
                options=["eu-west", "us-east"],
                questionId="q_1",
                taskId="build",
                data={"ticket": 7},
            ),
            Contact(
                "need_selection",
                "Which region?",
                ("eu-west", "us-east"),
                question_id="q_1",
                task_id="build",
                data={"ticket": 7},
            ),
        ),
        (
            _json(type="crew_supervisor_contact", kind="need_input", text="Branch?"),
            Contact("need_input", "Branch?"),
        ),
        (
            _json(type="supervisor_contact", reason="approval", message="Ship it?"),
            Contact("need_confirmation", "Ship it?"),
        ),
        (
            _json(type="supervisor_contact", reason="decision_needed", message="Go on?"),
            Contact("need_confirmation", "Go on?"),
        ),
        (
            _json(
                type="supervisor_contact",
                reason="decision_needed",
                message="Which?",
                options=["a", "b"],
            ),
            Contact("need_selection", "Which?", ("a", "b")),
        ),
        (
            _json(type="supervisor_contact", reason="clarification", message="Meaning?"),
            Contact("need_input", "Meaning?"),
        ),
        (
            _json(type="supervisor_contact", reason="error_escalation", message="It broke"),
            Contact("need_input", "It broke"),
        ),
        (
            _json(type="supervisor_contact", reason="custom", message="Anything"),
            Contact("need_input", "Anything"),
        ),
        (
            "  " + _json(type="supervisor_contact", kind="need_input", message="Indented"),
            Contact("need_input", "Indented"),
        ),
        (
            _json(
                type="supervisor_contact",
                kind="need_input",
                message="Odd ids",
                questionId="q" * 129,
                taskId="",
                data=[1],
                options="not a list",
            ),
            Contact("need_input", "Odd ids"),
        ),
    ],
    ids=[
        "kind",
        "every field",
        "crew type, text",
        "reason approval",
        "decision without options",
        "decision with options",
        "clarification",
        "error escalation",
        "custom",
        "indented",
        "bad optional fields dropped",
    ],
)
def test_the_json_event_line(line: str, expected: Contact) -> None:
    assert parse_contact(line) == expected


@pytest.mark.parametrize("kind", CONTACT_KINDS)
def test_contact_line_parses_back(kind: ContactKind) -> None:
    options = ("x", "y") if kind == "need_selection" else ()
    line = contact_line(kind, "Question ✓", options=options, question_id="q_9", task_id="t")
    assert parse_contact(line) == Contact(kind, "Question ✓", options, "q_9", "t")


ORDINARY = [
    "",
    "\n",
    "compiling 3 files",
    "note: @supervisor need_input: mentioned mid-line",
    "log @supervisor need_confirmation: Deploy?",
    "@supervisor",
    "@supervisor need_input",
    "@supervisor need_input:",
    "@supervisor need_input:    ",
    "@supervisor need_money: pay me",
    "@supervisor NEED_INPUT: shouting",
    "@supervisors need_input: plural",
    "@supervisor need_selection: no options",
    "@supervisor need_selection: blank options | | ",
    "@supervisor need_input: two\nlines",
    "{",
    '{"type": "supervisor_contact", "kind": "need_input", "message": "cut',
    "{not json at all}",
    '{"type": "progress", "kind": "need_input", "message": "another type"}',
    '{"kind": "need_input", "message": "no type"}',
    '{"type": "supervisor_contact", "kind": "need_money", "message": "unknown kind"}',
    '{"type": "supervisor_contact", "reason": "boredom", "message": "unknown reason"}',
    '{"type": "supervisor_contact", "reason": 7, "message": "reason not text"}',
    '{"type": "supervisor_contact", "kind": "need_input"}',
    '{"type": "supervisor_contact", "kind": "need_input", "message": 42}',
    '{"type": "supervisor_contact", "kind": "need_input", "message": "   "}',
    '{"type": "supervisor_contact", "kind": "need_selection", "message": "Which?"}',
    '{"type": "supervisor_contact", "kind": "need_selection", "message": "?", "options": [1]}',
    '{"type": ["supervisor_contact"], "kind": "need_input", "message": "type is a list"}',
    "[1, 2, 3]",
    '"just a string"',
    "42",
    "null",
    "{" * 100_000,
    '{"a":' * 100_000 + "1" + "}" * 100_000,
]


@pytest.mark.parametrize("line", ORDINARY, ids=lambda line: repr(line[:40]))
def test_ordinary_and_malformed_lines_are_not_contacts(line: str) -> None:
    assert parse_contact(line) is None


@pytest.mark.timeout(20)
@pytest.mark.parametrize(
    "line",
    [
        "x" * 5_000_000,
        " " * 5_000_000,
        "@supervisor need_input: a" + " " * 1_000_000 + "b\nc",
        "@supervisor need_input:" + " " * 1_000_000 + "\n" + " " * 1_000_000 + "x\ny",
        "@supervisor need_input: " + "a " * 500_000 + "\nz",
        '{"type": "supervisor_contact", "message": "' + "x" * 5_000_000,
    ],
    ids=["text", "spaces", "spaces then a newline", "spaces around newlines", "words", "json"],
)
def test_a_huge_malformed_line_is_none_without_hanging(line: str) -> None:
    assert parse_contact(line) is None


@pytest.mark.timeout(20)
def test_a_huge_question_is_cut_with_an_ellipsis() -> None:
    spaced = parse_contact("@supervisor need_input: a" + " " * 1_000_000 + "b")
    assert spaced is not None
    assert len(spaced.text) == MAX_QUESTION_CHARS and spaced.text.endswith("…")
    long = parse_contact(
        _json(
            type="supervisor_contact",
            kind="need_selection",
            message="q" * 10_000,
            options=[f"option {i} " + "o" * 300 for i in range(100)],
        )
    )
    assert long is not None
    assert len(long.text) == MAX_QUESTION_CHARS
    assert len(long.options) == MAX_OPTIONS
    assert all(len(option) == 200 for option in long.options)


@pytest.mark.parametrize(
    "line",
    [
        "\x00@supervisor need_input: NUL",
        "@supervisor need_input: \udcff lone surrogate",
        '{"type": "supervisor_contact", "kind": "need_input", "message": "\\ud800"}',
        '{"type": "supervisor_contact", "kind": "need_input", "message": "x", "questionId": 1e999}',
        '{"type": "supervisor_contact", "kind": {"nested": 1}, "message": "x"}',
        '{"type": "supervisor_contact", "kind": "need_input", "message": "x", "options": [{}]}',
    ],
)
def test_strange_lines_never_raise(line: str) -> None:
    result = parse_contact(line)
    assert result is None or isinstance(result, Contact)
