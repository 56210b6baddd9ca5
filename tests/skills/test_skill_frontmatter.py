"""Front matter parsing: every bad input is a finding with a line, never an exception."""

from __future__ import annotations

import pytest

from cachelint.skills.frontmatter import MAX_EXPANDED_NODES, parse_front_matter


def problems(text: str) -> list[tuple[str, int, str]]:
    """(code, line, message): a problem that refuses the input is a CL001, any other a CL201."""
    return [("CL001" if p.unreadable else "CL201", p.line, p.message) for p in parse_front_matter(text).problems]


def test_valid_front_matter_has_no_problem_and_key_lines():
    fm = parse_front_matter("---\nname: pdf\ndescription: Use when filling PDF forms.\nlicense: MIT\n---\nbody\n")
    assert fm.problems == []
    assert fm.name == "pdf"
    assert fm.key_lines == {"name": 2, "description": 3, "license": 4}


def test_missing_front_matter_points_at_line_1():
    assert problems("# Just a body\n") == [
        ("CL201", 1, "SKILL.md has no front matter: the file must start with a line '---'")
    ]


def test_empty_file_has_no_front_matter():
    assert [p[0] for p in problems("")] == ["CL201"]


def test_no_closing_delimiter():
    assert problems("---\nname: pdf\ndescription: Use when filling PDF forms.\n# body\n") == [
        ("CL201", 1, "front matter has no closing '---' line")
    ]


def test_malformed_yaml_points_at_the_error_line():
    text = "---\nname: pdf\ndescription: [unclosed\nlicense: MIT\n---\n"
    ((code, line, message),) = problems(text)
    assert code == "CL201"
    assert message.startswith("front matter is not valid YAML")
    assert line in (3, 4, 5)


def test_unquoted_colon_in_description_is_malformed():
    ((code, line, message),) = problems("---\nname: pdf\ndescription: Use when: filling forms\n---\n")
    assert (code, line) == ("CL201", 3)


@pytest.mark.parametrize(
    "value,message",
    [
        (
            "Invoice_Reconcile",
            'name "Invoice_Reconcile" must use only lowercase letters, digits and hyphens, without a leading or trailing hyphen',
        ),
        (
            "-21risk-automation",
            'name "-21risk-automation" must use only lowercase letters, digits and hyphens, without a leading or trailing hyphen',
        ),
        (
            "trailing-",
            'name "trailing-" must use only lowercase letters, digits and hyphens, without a leading or trailing hyphen',
        ),
        ("a" * 65, "name is 65 characters long; the limit is 64"),
    ],
)
def test_bad_names_point_at_the_name_line(value, message):
    text = f"---\ndescription: Use when filling PDF forms.\nname: {value}\n---\n"
    assert problems(text) == [("CL201", 3, message)]


def test_name_of_64_characters_is_fine():
    assert problems(f"---\nname: {'a' * 64}\ndescription: Use when filling PDF forms.\n---\n") == []


def test_description_limits():
    assert problems("---\nname: pdf\ndescription: ''\n---\n") == [("CL201", 3, "description is empty")]
    assert problems("---\nname: pdf\ndescription: '   '\n---\n") == [("CL201", 3, "description is empty")]
    long = "x" * 1025
    assert problems(f"---\nname: pdf\ndescription: {long}\n---\n") == [
        ("CL201", 3, "description is 1025 characters long; the limit is 1024")
    ]
    assert problems(f"---\nname: pdf\ndescription: {'x' * 1024}\n---\n") == []


def test_missing_fields():
    assert problems("---\ndescription: Use when filling PDF forms.\n---\n") == [
        ("CL201", 1, "front matter has no name")
    ]
    assert problems("---\nname: pdf\n---\n") == [
        ("CL201", 1, "front matter has no description (nor the older when_to_use): the index would show the name alone")
    ]


def test_when_to_use_stands_in_for_description():
    fm = parse_front_matter("---\nname: conciliacao-cartao\nwhen_to_use: use para bater recebimentos de cartão\n---\n")
    assert fm.problems == []
    assert fm.description == "use para bater recebimentos de cartão"
    assert fm.description_line == 3


def test_wrong_types():
    assert problems("---\nname: [a, b]\ndescription: 42\n---\n") == [
        ("CL201", 3, "description must be a string, got a int"),
        ("CL201", 2, "name must be a string, got a list"),
    ]


def test_front_matter_that_is_not_a_mapping():
    assert problems("---\n- name\n- description\n---\n") == [
        ("CL201", 2, "front matter must be a mapping of keys (name, description), got a list")
    ]


def test_empty_front_matter():
    assert problems("---\n---\nbody\n") == [("CL201", 1, "front matter is empty: it needs name and description")]


def test_alias_bomb_is_unreadable_not_expanded():
    text = (
        "---\n"
        "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
        "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
        "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
        "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
        "e: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
        "name: bomb\n"
        "---\n"
    )
    assert problems(text) == [
        (
            "CL001",
            3,
            f"front matter YAML expands through aliases beyond {MAX_EXPANDED_NODES} nodes (alias bomb or recursive alias); not read",
        )
    ]


def test_recursive_alias_is_unreadable():
    ((code, line, _),) = problems("---\nname: &n [*n]\n---\n")
    assert code == "CL001"


def test_small_aliases_are_fine():
    text = "---\nname: pdf\ndescription: &d Use when filling PDF forms.\nmetadata: {summary: *d}\n---\n"
    assert problems(text) == []


def test_deeply_nested_yaml_is_a_finding():
    text = "---\nname: deep\ndescription: " + "[" * 5000 + "]" * 5000 + "\n---\n"
    found = problems(text)
    assert len(found) == 1 and found[0][0] in ("CL001", "CL201")


def test_crlf_line_endings():
    fm = parse_front_matter("---\r\nname: pdf\r\ndescription: Use when filling PDF forms.\r\n---\r\nbody\r\n")
    assert fm.problems == [] and fm.description == "Use when filling PDF forms."


def test_when_to_use_limit_applies_only_when_it_stands_in_for_the_description():
    long = "x" * 1100
    assert problems(f"---\nname: a\ndescription: Use when filing VAT returns.\nwhen_to_use: {long}\n---\n") == []
    assert problems(f"---\nname: a\nwhen_to_use: {long}\n---\n") == [
        ("CL201", 3, "when_to_use (standing in for the missing description) is 1100 characters long; the limit is 1024")
    ]
