"""Index files: what lists skills for the prompt, and which skills each entry names.

An index is a configured file (``[tool.cachelint.skills] index = [globs]``) or a detected one:
a Markdown/text file, a plugin ``marketplace.json`` / ``plugin.json`` or another JSON/YAML file
whose *entries* name two or more existing skills. Only entry-like lines are entries:

- Markdown list items (``- name: description``, ``- **name** — …``, ``- [name](skills/name/)``),
- table rows (``| **name** | description |``),
- lines that start with a link,
- marketplace ``skills`` paths and plugin ``source`` paths, ``plugin.json`` ``skills`` paths,
- JSON/YAML lists of objects with a ``name`` (``[{name, description}, …]``).

A sentence in a README that mentions a skill is not an entry, nor is a link to an ordinary
document. Paths that leave the repository (``../../etc/passwd``, absolute paths; a Markdown
link from its file's folder) are recorded as such and never read.

The modules, by responsibility: ``model`` (the data types), ``resolve`` (entries to skills),
``markdown`` (lists, tables, links, headings), ``manifests`` (marketplace.json, plugin.json and
other JSON/YAML lists), ``detection`` (which files are indexes, their stale entries, the blocks
and plugins an index's scope is read from).
"""

from __future__ import annotations

from cachelint.skills.indexes.model import (
    _SLUG,
    IndexEntry,
    IndexFile,
    IndexRules,
    Resolution,
    has_prompt_name,
    prompt_readers,
)
from cachelint.skills.indexes.resolve import (
    resolve_path,
)
from cachelint.skills.indexes.markdown import (
    HEADING_BLOCK,
    parse_markdown,
)
from cachelint.skills.indexes.manifests import (
    marketplace_root,
    parse_data,
    parse_marketplace,
    parse_plugin_manifest,
    parse_well_known,
    plugin_root,
)
from cachelint.skills.indexes.detection import (
    LAYOUT_MIN_FOLDERS,
    REPEAT_LIMIT,
    block_hits,
    detect_indexes,
    enclosing_plugin,
    layout_folders,
    listing_blocks,
    only_in_other_plugins,
    parse_index_file,
    selection_blocks,
    stale_entries,
)

__all__ = [
    "HEADING_BLOCK",
    "IndexEntry",
    "IndexFile",
    "IndexRules",
    "LAYOUT_MIN_FOLDERS",
    "REPEAT_LIMIT",
    "Resolution",
    "_SLUG",
    "block_hits",
    "detect_indexes",
    "enclosing_plugin",
    "has_prompt_name",
    "prompt_readers",
    "layout_folders",
    "listing_blocks",
    "marketplace_root",
    "only_in_other_plugins",
    "parse_data",
    "parse_index_file",
    "parse_markdown",
    "parse_marketplace",
    "parse_plugin_manifest",
    "parse_well_known",
    "plugin_root",
    "resolve_path",
    "selection_blocks",
    "stale_entries",
]
