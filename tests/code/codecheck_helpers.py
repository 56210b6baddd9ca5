"""Helpers for the code-check tests: run check_module on a snippet and find the marked lines."""

from __future__ import annotations

from pathlib import Path

from cachelint.code import check_module
from cachelint.config import load_settings
from cachelint.diagnostics import Diagnostic

HEADER = """\
import asyncio
import glob
import json
import os
import random
import secrets
import time
import uuid
from concurrent.futures import ThreadPoolExecutor, as_completed
from datetime import date, datetime
from pathlib import Path

import anthropic
import httpx
import litellm
import openai
import requests

client = anthropic.Anthropic()
oai = openai.OpenAI()
TOOLS = {"search": {"name": "search"}, "fetch": {"name": "fetch"}, "write": {"name": "write"}}
BASE = "You are a careful agent."
"""

_SETTINGS = None


def settings():
    global _SETTINGS
    if _SETTINGS is None:
        _SETTINGS = load_settings(Path.cwd(), isolated=True)
    return _SETTINGS


def run(source: str, path: str = "agent.py", header: bool = True, **kwargs) -> list[Diagnostic]:
    text = (HEADER + source) if header else source
    return check_module(path, text, settings(), **kwargs)


def marked_lines(source: str, header: bool = True) -> list[int]:
    """1-based lines (in the checked text) of lines carrying a ``# here`` marker."""
    offset = HEADER.count("\n") if header else 0
    return [offset + i for i, line in enumerate(source.splitlines(), start=1) if "# here" in line]
