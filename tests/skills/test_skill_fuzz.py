"""Property tests: the front matter and index parsers never raise, whatever the text."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cachelint.skills.frontmatter import parse_front_matter
from cachelint.skills.indexes import parse_index_file
from cachelint.skills.tree import Skill, SkillTree

YAMLISH = st.text(alphabet=st.sampled_from(list("-:&*[]{}|>'\"#!%@`,?\n\t abcxyz0123é")), max_size=300)


@settings(max_examples=300, deadline=None)
@given(body=YAMLISH)
def test_front_matter_parser_never_raises(body):
    for text in (body, "---\n" + body, "---\n" + body + "\n---\n"):
        fm = parse_front_matter(text)
        assert all(p.message and p.line >= 1 and p.column >= 1 for p in fm.problems)


def _tree(root: Path) -> SkillTree:
    tree = SkillTree(root=root)
    for name in ("pdf", "docx"):
        tree.skills.append(
            Skill(
                root / "skills" / name / "SKILL.md",
                f"skills/{name}/SKILL.md",
                parse_front_matter(f"---\nname: {name}\ndescription: x\n---\n"),
            )
        )
    tree.finish()
    return tree


MARKDOWNISH = st.text(alphabet=st.sampled_from(list("-*|[]()#`:/.\n pdfdocx skill 1.")), max_size=300)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=MARKDOWNISH, suffix=st.sampled_from([".md", ".json", ".yaml", ".txt"]))
def test_index_parser_never_raises(tmp_path, text, suffix):
    tree = _tree(tmp_path)
    parsed = parse_index_file(tree, tmp_path / f"index{suffix}", f"index{suffix}", text)
    if parsed is not None:
        assert all(e.line >= 1 and e.column >= 1 for e in parsed.entries)
