"""The description lexicons: packs, inflection, configuration, and the CL206 clustering core."""
from __future__ import annotations

import pytest

from cachelint.catalog import load_packs
from cachelint.config import ConfigError, load_settings
from cachelint.rules.skills.cl202_generic_skill_description import description_signals
from cachelint.rules.skills.cl206_indistinct_skill_descriptions import _jaccard_pairs
from cachelint.skills.lexicon import build_lexicon, fold, load_lexicon


@pytest.fixture(scope="module")
def lexicon():
    return load_lexicon((), {})


def test_packs_cover_three_languages():
    languages = sorted(p["language"] for p in load_packs("skills-lexicon"))
    assert languages == ["en", "es", "pt"]
    for pack in load_packs("skills-lexicon"):
        assert pack["as_of"] and pack["sources"]


@pytest.mark.parametrize(
    "word",
    ["reconciling", "reconciles", "reconciliation", "conciliação", "concilia", "emitindo", "emissão", "facturación",
     "summarizes", "onboarding", "exportar", "audits",
     # agent-framework's escalation-policy, and other task verbs of support, code and access work
     "escalate", "escalates", "escalation", "classified", "classification", "assigning", "reverted", "deprecation",
     "backported", "bisecting", "pruning", "revoking", "authorization", "anonymization", "rephrasing", "paraphrases",
     "invitation", "enrolled"],
)
def test_task_words_with_inflections(lexicon, word):
    assert lexicon.is_task_word(fold(word))


@pytest.mark.parametrize("word", ["thing", "information", "informação", "ajuda", "helps", "comando", "moment"])
def test_not_task_words(lexicon, word):
    assert not lexicon.is_task_word(fold(word))


@pytest.mark.parametrize(
    "description,expected",
    [
        ("use para bater recebimentos de cartão com o extrato e dar baixa no título", []),
        ("Use when you have a spec or requirements for a multi-step task, before touching code", []),
        ("Comprehensive document creation, editing, and analysis with support for tracked changes", []),
        ("úsalo cuando necesites conciliar pagos con el extracto bancario", []),
        ("útil para varias tareas", ['generic phrase "útil para varias tareas"', "no task verb or trigger"]),
        ("Descripción aquí", ['placeholder "Descripción aquí"', "only 2 content words", "no task verb or trigger"]),
        ("A FAZER", ['placeholder "A FAZER"', "only 1 content word", "no task verb or trigger"]),
        ("This skill is a placeholder pending future integration of the ledger", ['placeholder "placeholder"', "no task verb or trigger"]),
        # a placeholder is a description that IS one; with a trigger and a task verb beside it, the
        # word is the skill's subject (agent-framework's foundry-config-setup)
        ("Use when a sample fails because it uses a placeholder endpoint instead of reading it from the environment.", []),
        ("Use when replacing placeholder values in config files with real settings.", []),
        (
            "Resolve missing setup caused by a hardcoded Foundry project endpoint or model in a sample. Use when a sample"
            ' fails because it uses a placeholder/hardcoded project_endpoint (for example "https://your-project.services.ai.azure.com")'
            " or a hardcoded model instead of reading them from the environment.",
            [],
        ),
        ("Use when triaging TODO and FIXME comments left in a pull request", []),
        ("Placeholder skill for reviewing code", ['placeholder "Placeholder"']),  # a task verb, no trigger
        ("Use when reviewing TODO", ['placeholder "TODO"', "only 1 content word"]),  # too little beside it
        ("Use when the TODO", ['placeholder "TODO"', "only 0 content words"]),
        # template slots left unfilled; an HTML tag is not one
        ("<describe what this skill does and when to use it>", ['placeholder "<describe what this skill does and when to use it>"', "only 1 content word"]),
        ("{{ description }}", ['placeholder "{{ description }}"', "only 1 content word", "no task verb or trigger"]),
        ("Builds <svg> icons from brand colours", []),
        # listed task verbs and nouns that not_task_words also names (to veto the suffix guess on
        # the nouns "comment", "moment"…): listed, they are task words (gptme's descriptions)
        ("Document the endpoints and their parameters", []),
        ("Python REPL automation with helpers", []),
        ("Notes about the documents and segments of the old versions", ["no task verb or trigger"]),
        # "When and how to <verb>" says when, like "Use when" (agent-framework's escalation-policy)
        ("When and how to escalate Contoso Outdoors customer-support tickets.", []),
        ("When and how to contact the Contoso Outdoors support desk", []),
        ("How and when to contact the Contoso Outdoors support desk", []),
        ("Escalate Contoso Outdoors customer-support tickets to tier two", []),
        ("Trivia about when and how Contoso Outdoors was founded", ["no task verb or trigger"]),
        # its sibling support-style passes on the task noun "formatting", not on a verb
        ("Contoso Outdoors customer-support tone and formatting guidelines.", []),
    ],
)
def test_description_signals(lexicon, description, expected):
    assert description_signals(description, lexicon, 3) == expected


def test_configured_extras_extend_the_packs():
    base = build_lexicon(load_packs("skills-lexicon"), {})
    extended = build_lexicon(load_packs("skills-lexicon"), {"task-verbs": ["frob"], "stop-words": ["acme"]})
    assert not base.is_task_word("frobs") and extended.is_task_word("frobs")
    assert "acme" in extended.stop_words


def test_invalid_skills_options_are_configuration_errors(tmp_path):
    with pytest.raises(ConfigError, match="skills/similarity-threshold"):
        load_settings(tmp_path, isolated=True, overrides={"skills": {"similarity-threshold": 2}})
    with pytest.raises(ConfigError, match="skills"):
        load_settings(tmp_path, isolated=True, overrides={"skills": {"lexicon": {"verbs": ["x"]}}})


def test_jaccard_pairs_match_brute_force():
    import itertools
    import random

    rng = random.Random(3)
    vocab = [f"w{i}" for i in range(30)]
    sets = [frozenset(rng.sample(vocab, rng.randint(3, 9))) for _ in range(200)]
    for threshold in (0.5, 0.7, 0.8, 1.0):
        fast = {tuple(sorted(p)) for p in _jaccard_pairs(sets, threshold)}
        brute = {
            (i, j)
            for i, j in itertools.combinations(range(len(sets)), 2)
            if len(sets[i] & sets[j]) / len(sets[i] | sets[j]) >= threshold
        }
        assert fast == brute
