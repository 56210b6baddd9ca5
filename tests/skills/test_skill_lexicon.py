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
    packs = load_packs("skills-lexicon")
    # the languages whose descriptions the lexicon judges (stop words, task verbs); Japanese has
    # placeholders only
    assert sorted(p["language"] for p in packs if p.get("task_verbs")) == ["en", "es", "pt"]
    assert sorted(p["language"] for p in packs if not p.get("task_verbs")) == ["ja"]
    for pack in packs:
        assert pack["as_of"] and pack["sources"]


@pytest.mark.parametrize(
    "description,known",
    [
        ("Use when extracting tables from PDF files", True),
        ("Fetch data for any Bilibili (B站) video: title, uploader, comments and danmaku", True),  # a name in Han
        ("Integrates with the Zürich and Malmö transit APIs to plan routes", True),
        ("use para emitir, cancelar ou consultar NF-e e conciliação de cartões", True),
        ("úsalo cuando necesites conciliar pagos con el extracto bancario", True),
        ("—", True),
        (
            "TypeScript、JavaScript、React、Node.js開発のための汎用コーディング標準、ベストプラクティス、パターン。",
            False,
        ),
        ("使用单元经济、客户质量与可扩展性评估获客渠道。适用于决定某个增长渠道该扩大投入。", False),
        ("TypeScript, JavaScript, React, Node.js 개발을 위한 범용 코딩 표준, 모범 사례 및 패턴.", False),
        ("REST API tasarım kalıpları; kaynak isimlendirme, durum kodları, sayfalama", False),  # Turkish ı, ş
        ("Создание и проверка манифестов Kubernetes", False),
    ],
)
def test_language_of_a_description(lexicon, description, known):
    assert lexicon.knows_language_of(description) is known


@pytest.mark.parametrize(
    "description,expected",
    [
        # a language the lexicon does not know is not judged generic for lacking its task verbs
        ("TypeScript、JavaScript、React、Node.js開発のための汎用コーディング標準、ベストプラクティス、パターン。", []),
        ("生成一份公司研究简报，包含高管观点、产品战略和组织背景。", []),
        ("Claude Code 会话的全面验证系统。", []),
        ("TypeScript, JavaScript, React ve Node.js geliştirme için evrensel kodlama standartları", []),
        ("管理 TODO 列表和提醒事项", []),  # an uppercase word it names, not a template left
        # ... but a template left in it still is one
        ("日本語翻訳：このファイルは perl-testing 用の日本語翻訳が必要です", ['placeholder "翻訳が必要です"']),
        ("{{ description }} 技能说明", ['placeholder "{{ description }}"']),
        # English and Portuguese keep every signal
        ("Helps with various tasks", ['generic phrase "Helps with various tasks"', "no task verb or trigger"]),
        (
            "Ferramenta útil no back-office",
            ['generic phrase "útil no back-office"', "only 2 content words", "no task verb or trigger"],
        ),
        ("Coisas diversas do financeiro", ['generic phrase "Coisas diversas"', "no task verb or trigger"]),
        ("use para conciliar recebimentos de cartão com o extrato", []),
    ],
)
def test_descriptions_in_other_languages(lexicon, description, expected):
    assert description_signals(description, lexicon, 3) == expected


@pytest.mark.parametrize(
    "word",
    [
        "reconciling",
        "reconciles",
        "reconciliation",
        "conciliação",
        "concilia",
        "emitindo",
        "emissão",
        "facturación",
        "summarizes",
        "onboarding",
        "exportar",
        "audits",
        # agent-framework's escalation-policy, and other task verbs of support, code and access work
        "escalate",
        "escalates",
        "escalation",
        "classified",
        "classification",
        "assigning",
        "reverted",
        "deprecation",
        "backported",
        "bisecting",
        "pruning",
        "revoking",
        "authorization",
        "anonymization",
        "rephrasing",
        "paraphrases",
        "invitation",
        "enrolled",
    ],
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
        (
            "This skill is a placeholder pending future integration of the ledger",
            ['placeholder "placeholder"', "no task verb or trigger"],
        ),
        # a placeholder is a description that IS one; with a trigger and a task verb beside it, the
        # word is the skill's subject (agent-framework's foundry-config-setup)
        (
            "Use when a sample fails because it uses a placeholder endpoint instead of reading it from the environment.",
            [],
        ),
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
        (
            "<describe what this skill does and when to use it>",
            ['placeholder "<describe what this skill does and when to use it>"', "only 1 content word"],
        ),
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
