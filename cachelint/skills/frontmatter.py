"""SKILL.md front matter: split it from the body, parse it safely, validate it.

The front matter is YAML between a first line ``---`` and the next ``---`` (or ``...``) line.
It is parsed with PyYAML's safe loader (the C one when available) in two steps, compose then
construct, so that aliases can be counted *before* anything is expanded: a document whose
aliases expand beyond a bound (a "billion laughs" alias bomb) is refused as unreadable input.
Every problem carries the line of the SKILL.md it is about.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Mapping

import yaml

from cachelint.catalog import load_schema
from cachelint.schema_check import satisfies
from cachelint.yamlload import SafeLoader

# Nodes a front matter may expand to through aliases. Real front matter has a few dozen nodes;
# ten thousand leaves room for large `metadata` maps and stops exponential alias expansion early.
MAX_EXPANDED_NODES = 10_000

FRONT_MATTER_SCHEMA = "skill-frontmatter.schema.json"


@dataclass(frozen=True)
class Problem:
    """What is wrong with the front matter of one SKILL.md, as data: the skill rules make it a
    finding (CL201 invalid-skill-metadata, with the path), or, when ``unreadable``, the skills
    runner a CL001 (the front matter was refused as input: an alias bomb, nesting too deep)."""

    message: str
    line: int = 1
    column: int = 1
    unreadable: bool = False


@dataclass
class FrontMatter:
    """What the front matter of one SKILL.md says, with the file line of each top-level key."""

    data: Mapping[str, Any] | None
    key_lines: dict[str, int] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    end_line: int = 0  # line of the closing ``---`` (0 when there is none)

    def line_of(self, *keys: str) -> int:
        for key in keys:
            if key in self.key_lines:
                return self.key_lines[key]
        return 1

    def string(self, key: str) -> str | None:
        value = self.data.get(key) if self.data else None
        return value if isinstance(value, str) else None

    @property
    def name(self) -> str | None:
        return self.string("name")

    @property
    def description(self) -> str | None:
        """``description``, or the older ``when_to_use`` when there is no description."""
        value = self.string("description")
        if value is not None and value.strip():
            return value
        older = self.string("when_to_use")
        return older if older is not None and older.strip() else value

    @property
    def description_line(self) -> int:
        description = self.string("description")
        if description and description.strip():
            return self.line_of("description")
        return self.line_of("when_to_use", "description", "name")


def split_front_matter(text: str) -> tuple[list[str], int] | Problem:
    """The YAML lines and the 1-based line of the closing delimiter, or the problem."""
    lines = text.splitlines()
    if not lines or lines[0].rstrip() != "---":
        return Problem("SKILL.md has no front matter: the file must start with a line '---'")
    for index in range(1, len(lines)):
        if lines[index].rstrip() in ("---", "..."):
            return lines[1:index], index + 1
    return Problem("front matter has no closing '---' line")


def _expanded_size(node: yaml.Node, limit: int) -> int | None:
    """Number of nodes the document has once aliases are expanded; None past ``limit`` or on a
    recursive alias. Memoised by node identity, so the walk is linear in the composed graph."""
    sizes: dict[int, int] = {}
    in_progress: set[int] = set()

    def size(n: yaml.Node) -> int | None:
        key = id(n)
        if key in sizes:
            return sizes[key]
        if key in in_progress:
            return None
        in_progress.add(key)
        total = 1
        if isinstance(n, yaml.SequenceNode):
            children = n.value
        elif isinstance(n, yaml.MappingNode):
            children = [c for pair in n.value for c in pair]
        else:
            children = []
        for child in children:
            s = size(child)
            if s is None:
                return None
            total += s
            if total > limit:
                return None
        in_progress.discard(key)
        sizes[key] = total
        return total

    return size(node)


def _first_alias_line(yaml_text: str) -> int:
    for index, line in enumerate(yaml_text.splitlines()):
        if "*" in line:
            return index + 1
    return 1


def parse_front_matter(text: str) -> FrontMatter:
    split = split_front_matter(text)
    if isinstance(split, Problem):
        return FrontMatter(None, problems=[split])
    yaml_lines, end_line = split
    yaml_text = "\n".join(yaml_lines)
    first = 2  # file line of the first YAML line
    loader = SafeLoader(yaml_text)
    try:
        node = loader.get_single_node()
        if node is None:
            return FrontMatter(
                None, problems=[Problem("front matter is empty: it needs name and description")], end_line=end_line
            )
        size = _expanded_size(node, MAX_EXPANDED_NODES)
        if size is None:
            line = first - 1 + _first_alias_line(yaml_text)
            return FrontMatter(
                None,
                problems=[
                    Problem(
                        f"front matter YAML expands through aliases beyond {MAX_EXPANDED_NODES} nodes "
                        "(alias bomb or recursive alias); not read",
                        line,
                        unreadable=True,
                    )
                ],
                end_line=end_line,
            )
        data = loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = first + mark.line if mark is not None else 1
        column = mark.column + 1 if mark is not None else 1
        reason = exc.problem or exc.context or "syntax error"
        return FrontMatter(
            None, problems=[Problem(f"front matter is not valid YAML: {reason}", line, column)], end_line=end_line
        )
    except yaml.YAMLError as exc:
        return FrontMatter(None, problems=[Problem(f"front matter is not valid YAML: {exc}")], end_line=end_line)
    except (ValueError, OverflowError) as exc:  # a value Python cannot hold that yamlload does not keep as text
        return FrontMatter(
            None, problems=[Problem(f"front matter holds a value that cannot be read: {exc}")], end_line=end_line
        )
    except RecursionError:
        return FrontMatter(
            None,
            problems=[Problem("front matter YAML is nested too deeply to read", unreadable=True)],
            end_line=end_line,
        )
    finally:
        loader.dispose()
    key_lines: dict[str, int] = {}
    if isinstance(node, yaml.MappingNode):
        for key_node, _value in node.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.value not in key_lines:
                key_lines[str(key_node.value)] = first + key_node.start_mark.line
    if not isinstance(data, dict):
        kind = type(data).__name__
        return FrontMatter(
            None,
            key_lines,
            [Problem(f"front matter must be a mapping of keys (name, description), got a {kind}", first)],
            end_line,
        )
    fm = FrontMatter(data, key_lines, end_line=end_line)
    fm.problems.extend(schema_problems(fm))
    return fm


@functools.lru_cache(maxsize=1)
def _validator():
    import jsonschema

    return jsonschema.Draft202012Validator(load_schema(FRONT_MATTER_SCHEMA))


def schema_problems(fm: FrontMatter) -> list[Problem]:
    """Violations of rules/schema/skill-frontmatter.schema.json, worded by its ``x-messages``."""
    # jsonschema needs JSON-like keys; YAML allows other scalars as keys
    data = {str(k): v for k, v in (fm.data or {}).items()}
    if satisfies(load_schema(FRONT_MATTER_SCHEMA), data) is True:
        return []  # the common case: no jsonschema import, no validation by it
    validator = _validator()
    problems: list[Problem] = []
    errors = sorted(validator.iter_errors(data), key=lambda e: ([str(p) for p in e.absolute_path], e.validator))
    for err in errors:
        key = str(err.absolute_path[0]) if err.absolute_path else None
        messages = err.schema.get("x-messages", {}) if isinstance(err.schema, dict) else {}
        template = messages.get(err.validator)
        value = err.instance
        if template is None:
            where = "/".join(str(p) for p in err.absolute_path) or "front matter"
            message = f"{where}: {err.message}"
        else:
            message = template.format(
                value=value if isinstance(value, str) else repr(value),
                length=len(value) if isinstance(value, (str, list, dict)) else 0,
                type=type(value).__name__,
            )
        line = fm.line_of(key) if key else fm.line_of("name", "description")
        if key is None and err.validator in ("required", "anyOf"):
            line = 1
        problems.append(Problem(message, line))
    return problems
