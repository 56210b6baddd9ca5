"""The YAML loader every user-written YAML file is read with (SKILL.md front matter, index
manifests, packs): safe, libyaml's parser when available, and a scalar that YAML 1.1 would turn
into a value Python cannot hold stays the string it is written as.

PyYAML resolves plain scalars by YAML 1.1's implicit types, and two of them raise a ValueError, not
a YAMLError, for text that looks right: a timestamp that is not a calendar date
(``updated: 2024-02-30``) and an integer longer than Python's int-to-str limit (4300 digits). One
such value took down the whole file's reading, and in the skill checks every other skill's
findings with it. The YAML 1.2 core schema, which the JavaScript loaders of the agents that read
skills implement, has no timestamp type at all (https://yaml.org/spec/1.2.2/#1032-tag-resolution),
so keeping the text is what those readers see anyway.
"""

from __future__ import annotations

from typing import Any

import yaml

_Base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when available: ~10x faster


class SafeLoader(_Base):
    """``yaml.SafeLoader`` (or ``CSafeLoader``) whose timestamps and integers that are not valid
    values are kept as their text."""


def _keeping_text(construct: Any) -> Any:
    def construct_or_text(loader: Any, node: yaml.ScalarNode) -> Any:
        try:
            return construct(loader, node)
        except (ValueError, OverflowError):
            return loader.construct_scalar(node)

    return construct_or_text


SafeLoader.add_constructor(
    "tag:yaml.org,2002:timestamp", _keeping_text(yaml.constructor.SafeConstructor.construct_yaml_timestamp)
)
SafeLoader.add_constructor("tag:yaml.org,2002:int", _keeping_text(yaml.constructor.SafeConstructor.construct_yaml_int))
