"""cachelint: a static linter and prompt-cache auditor for LLM agents."""

__version__ = "0.1.0"
