"""CL203 for plugins a marketplace does not list: a marketplace installs only the plugins its
``plugins`` entries name, so a plugin folder beside the listed ones that no entry's source names
is never installed from it. Its look-alikes stay quiet: plugins listed however the source is
written or through another marketplace of the same loader, skills listed by path, plugin
folders elsewhere (templates, examples, tests, another parent folder), marketplaces of remote
plugins only, and the sources that are the marketplace itself or a folder of skills."""

from __future__ import annotations

import json

import pytest

from conftest import check_tree, write_tree
from skilltrees import COMISSAO, CONCILIACAO, EMISSAO, LOGISTICA, PDF, XLSX, findings, skill

BOLETO = "use para emitir, registrar ou cancelar boletos bancários de clientes"

# a marketplace's layout: plugins/<category>/<plugin>/, each with a manifest and skills/
PLUGINS = {
    "plugins/financeiro/cobranca/.claude-plugin/plugin.json": '{"name": "cobranca"}\n',
    "plugins/financeiro/cobranca/skills/boleto/SKILL.md": skill("boleto", BOLETO),
    "plugins/financeiro/fiscal/.claude-plugin/plugin.json": '{"name": "fiscal"}\n',
    "plugins/financeiro/fiscal/skills/emissao-nf/SKILL.md": skill("emissao-nf", EMISSAO),
    "plugins/financeiro/vendas/.claude-plugin/plugin.json": '{"name": "vendas"}\n',
    "plugins/financeiro/vendas/skills/comissao/SKILL.md": skill("comissao", COMISSAO),
    "plugins/financeiro/vendas/skills/conciliacao-cartao/SKILL.md": skill("conciliacao-cartao", CONCILIACAO),
}


def _market(*plugins: dict, **top) -> str:
    return json.dumps({"name": "loja", "owner": {"name": "o"}, **top, "plugins": list(plugins)}, indent=2) + "\n"


def _listing(*sources: str) -> str:
    return _market(*({"name": s.rstrip("/").rsplit("/", 1)[-1], "source": s} for s in sources))


LISTS_TWO = _listing("./plugins/financeiro/cobranca", "./plugins/financeiro/fiscal")


def _cl203(tmp_path, **options):
    return [f for f in findings(check_tree(tmp_path, **options)) if f[2] == "CL203"]


def test_a_plugin_beside_the_listed_ones_that_no_entry_names_is_never_installed(tmp_path):
    write_tree(tmp_path, {**PLUGINS, ".claude-plugin/marketplace.json": LISTS_TWO})
    message = (
        "is in the plugin plugins/financeiro/vendas/, which .claude-plugin/marketplace.json (Claude Code's plugin "
        "marketplace) does not list, though it lists the 2 other plugins of plugins/financeiro/: a marketplace "
        "installs only the plugins it lists, so the skill is never installed"
    )
    assert _cl203(tmp_path) == [
        ("plugins/financeiro/vendas/skills/comissao/SKILL.md", 2, "CL203", f'skill "comissao" {message}'),
        (
            "plugins/financeiro/vendas/skills/conciliacao-cartao/SKILL.md",
            2,
            "CL203",
            f'skill "conciliacao-cartao" {message}',
        ),
    ]
    # a manifest is what loads: the rule's default severity (error), not a catalog's warning
    assert {d.severity for d in check_tree(tmp_path).diagnostics if d.code == "CL203"} == {None}


def test_a_plugin_without_a_manifest_laid_out_like_the_listed_ones(tmp_path):
    # no plugin.json anywhere: the listed plugins and the unlisted ones all keep skills/
    tree = {k: v for k, v in PLUGINS.items() if not k.endswith("plugin.json")}
    tree["plugins/financeiro/logistica/skills/rastreio/SKILL.md"] = skill("rastreio", LOGISTICA)
    write_tree(tmp_path, {**tree, ".claude-plugin/marketplace.json": LISTS_TWO})
    result = _cl203(tmp_path)
    assert [p for p, *_ in result] == [
        "plugins/financeiro/logistica/skills/rastreio/SKILL.md",
        "plugins/financeiro/vendas/skills/comissao/SKILL.md",
        "plugins/financeiro/vendas/skills/conciliacao-cartao/SKILL.md",
    ]
    assert "though it lists 2 of the 3 other plugins of plugins/financeiro/" in result[0][3]


def test_the_skills_its_plugin_json_names_are_reported_too(tmp_path):
    tree = dict(PLUGINS)
    tree["plugins/financeiro/vendas/.claude-plugin/plugin.json"] = json.dumps(
        {"name": "vendas", "skills": ["./extras/metas"]}
    )
    tree["plugins/financeiro/vendas/extras/metas/SKILL.md"] = skill("metas", "use para acompanhar metas de vendas")
    write_tree(tmp_path, {**tree, ".claude-plugin/marketplace.json": LISTS_TWO})
    assert [p for p, *_ in _cl203(tmp_path)] == [
        "plugins/financeiro/vendas/extras/metas/SKILL.md",
        "plugins/financeiro/vendas/skills/comissao/SKILL.md",
        "plugins/financeiro/vendas/skills/conciliacao-cartao/SKILL.md",
    ]


def test_a_user_only_skill_of_an_unlisted_plugin_is_reported_as_manifests_report_it(tmp_path):
    # the marketplace would install it for the user to invoke; a manifest is what loads
    tree = {k: v for k, v in PLUGINS.items() if "conciliacao" not in k}
    tree["plugins/financeiro/vendas/skills/comissao/SKILL.md"] = skill(
        "comissao", COMISSAO, "disable-model-invocation: true\n"
    )
    write_tree(tmp_path, {**tree, ".claude-plugin/marketplace.json": LISTS_TWO})
    assert [p for p, *_ in _cl203(tmp_path)] == ["plugins/financeiro/vendas/skills/comissao/SKILL.md"]


def test_partial_runs_report_it_when_the_skill_or_the_marketplace_is_given(tmp_path):
    write_tree(tmp_path, {**PLUGINS, ".claude-plugin/marketplace.json": LISTS_TWO})
    (tmp_path / ".git").mkdir()
    given_skill = _cl203(tmp_path, paths=("plugins/financeiro/vendas/skills/comissao/SKILL.md",))
    assert [p for p, *_ in given_skill] == ["plugins/financeiro/vendas/skills/comissao/SKILL.md"]
    assert len(_cl203(tmp_path, paths=(".claude-plugin/marketplace.json",))) == 2
    assert _cl203(tmp_path, paths=("plugins/financeiro/fiscal/skills/emissao-nf/SKILL.md",)) == []


# --- listed, however the source is written ------------------------------------------------------


@pytest.mark.parametrize(
    "marketplace",
    [
        _listing("./plugins/financeiro/cobranca", "./plugins/financeiro/fiscal", "./plugins/financeiro/vendas"),
        _listing("plugins/financeiro/cobranca", "plugins/financeiro/fiscal/", "./plugins/financeiro/vendas/"),
        # bare names under metadata.pluginRoot (plugin marketplaces: "Base directory prepended to
        # relative plugin source paths")
        _market(
            *({"name": n, "source": n} for n in ("cobranca", "fiscal", "vendas")),
            metadata={"pluginRoot": "./plugins/financeiro"},
        ),
        _market(
            *({"name": n, "source": f"financeiro/{n}"} for n in ("cobranca", "fiscal", "vendas")),
            metadata={"pluginRoot": "plugins"},
        ),
    ],
    ids=["dot-slash", "bare-and-trailing-slash", "plugin-root", "plugin-root-without-dot"],
)
def test_every_plugin_listed_is_quiet(tmp_path, marketplace):
    write_tree(tmp_path, {**PLUGINS, ".claude-plugin/marketplace.json": marketplace})
    assert _cl203(tmp_path) == []


@pytest.mark.parametrize(
    "entry",
    [
        {
            "name": "vendas",
            "source": "./",
            "skills": [
                "./plugins/financeiro/vendas/skills/comissao",
                "./plugins/financeiro/vendas/skills/conciliacao-cartao",
            ],
        },
        # strict: false, the entry defines the plugin's components itself
        {
            "name": "vendas",
            "source": "./plugins/financeiro",
            "strict": False,
            "skills": ["./vendas/skills/comissao", "./vendas/skills/conciliacao-cartao"],
        },
    ],
    ids=["skills-paths", "strict-false"],
)
def test_a_plugin_whose_skills_an_entry_lists_by_path_is_reached(tmp_path, entry):
    marketplace = _market(
        {"name": "cobranca", "source": "./plugins/financeiro/cobranca"},
        {"name": "fiscal", "source": "./plugins/financeiro/fiscal"},
        entry,
    )
    write_tree(tmp_path, {**PLUGINS, ".claude-plugin/marketplace.json": marketplace})
    assert _cl203(tmp_path) == []


# --- several marketplaces: each loader installs what its marketplaces list -----------------------


def test_a_second_marketplace_of_the_same_loader_lists_it(tmp_path):
    write_tree(
        tmp_path,
        {
            **PLUGINS,
            ".claude-plugin/marketplace.json": LISTS_TWO,
            ".claude-plugin/marketplace.extended.json": _listing("./plugins/financeiro/vendas"),
        },
    )
    assert _cl203(tmp_path) == []


def test_a_marketplace_file_of_no_known_loader_lists_it_for_every_loader(tmp_path):
    # a marketplace file users add by its path, elsewhere in the repository (its sources resolve
    # from its own folder)
    vendas = {
        "name": "vendas",
        "source": "../plugins/financeiro/vendas",
        "skills": ["./skills/comissao", "./skills/conciliacao-cartao"],
    }
    write_tree(
        tmp_path,
        {**PLUGINS, ".claude-plugin/marketplace.json": LISTS_TWO, "marketplaces/vendas.json": _market(vendas)},
    )
    assert _cl203(tmp_path) == []


def _codex(*paths: str) -> str:
    plugins = ({"name": p.rsplit("/", 1)[-1], "source": {"source": "local", "path": p}} for p in paths)
    return _market(*plugins)


def test_each_loader_is_judged_by_its_own_marketplaces(tmp_path):
    everything = ("./plugins/financeiro/cobranca", "./plugins/financeiro/fiscal", "./plugins/financeiro/vendas")
    write_tree(
        tmp_path,
        {
            **PLUGINS,
            ".claude-plugin/marketplace.json": _listing(*everything),
            # Codex's local source object: {"source": "local", "path": "./plugins/..."}
            ".agents/plugins/marketplace.json": _codex(*everything[:2]),
        },
    )
    result = _cl203(tmp_path)
    assert [p for p, *_ in result] == [
        "plugins/financeiro/vendas/skills/comissao/SKILL.md",
        "plugins/financeiro/vendas/skills/conciliacao-cartao/SKILL.md",
    ]
    assert ".agents/plugins/marketplace.json (Codex's plugin marketplace) does not list" in result[0][3]
    assert ".claude-plugin" not in result[0][3]


def test_a_plugin_two_loaders_leave_out_is_one_finding_naming_both(tmp_path):
    write_tree(
        tmp_path,
        {
            **PLUGINS,
            ".claude-plugin/marketplace.json": LISTS_TWO,
            ".cursor-plugin/marketplace.json": _listing("./plugins/financeiro/fiscal"),
        },
    )
    result = _cl203(tmp_path)
    assert [p for p, *_ in result] == [
        "plugins/financeiro/cobranca/skills/boleto/SKILL.md",  # Cursor's alone
        "plugins/financeiro/vendas/skills/comissao/SKILL.md",
        "plugins/financeiro/vendas/skills/conciliacao-cartao/SKILL.md",
    ]
    assert "which .cursor-plugin/marketplace.json (Cursor's plugin marketplace) does not list" in result[0][3]
    assert ".claude-plugin" not in result[0][3]
    assert (
        "which .claude-plugin/marketplace.json (Claude Code's plugin marketplace) does not list, though it lists "
        "the 2 other plugins of plugins/financeiro/ and .cursor-plugin/marketplace.json (Cursor's plugin "
        "marketplace) does not list, though it lists 1 of the 2 other plugins of plugins/financeiro/"
    ) in result[1][3]


def test_codex_local_sources_lead_to_their_plugins(tmp_path):
    write_tree(
        tmp_path,
        {
            **PLUGINS,
            ".agents/plugins/marketplace.json": _codex("./plugins/financeiro/cobranca", "./plugins/financeiro/gone"),
        },
    )
    result = findings(check_tree(tmp_path))
    assert [(p, c) for p, _, c, _ in result if c == "CL204"] == [(".agents/plugins/marketplace.json", "CL204")]
    assert "./plugins/financeiro/gone" in [m for _, _, c, m in result if c == "CL204"][0]


# --- plugin folders outside the marketplace's layout ---------------------------------------------


@pytest.mark.parametrize(
    "elsewhere",
    [
        "templates/plugin-starter",
        "examples/demo-plugin",
        "backups/financeiro/vendas-old",
        "tests/fixtures/plugin",
        "plugins/financeiro/template",  # a plugin to copy, beside the listed ones
        "plugins/operacoes/estoque",  # a category folder none of whose plugins is listed
        "plugins/financeiro/.archive",  # a dot-folder
    ],
)
def test_a_plugin_folder_outside_the_listed_plugins_folders_is_quiet(tmp_path, elsewhere):
    tree = {k: v for k, v in PLUGINS.items() if "/vendas/" not in k}
    tree[f"{elsewhere}/.claude-plugin/plugin.json"] = '{"name": "x"}\n'
    tree[f"{elsewhere}/skills/planilha/SKILL.md"] = skill("planilha", XLSX)
    write_tree(tmp_path, {**tree, ".claude-plugin/marketplace.json": LISTS_TWO})
    assert _cl203(tmp_path) == []


def test_a_marketplace_of_remote_plugins_only_has_no_local_layout(tmp_path):
    remote = _market(
        {"name": "cobranca", "source": {"source": "github", "repo": "acme/cobranca"}},
        {"name": "fiscal", "source": {"source": "url", "url": "https://git.example.com/fiscal.git"}},
    )
    write_tree(tmp_path, {**PLUGINS, ".claude-plugin/marketplace.json": remote})
    assert _cl203(tmp_path) == []


def test_at_the_repository_root_only_a_folder_with_a_manifest_is_a_plugin(tmp_path):
    # the listed plugins sit at the root: .claude/skills and docs/skills there are no plugins
    write_tree(
        tmp_path,
        {
            "cobranca/skills/boleto/SKILL.md": skill("boleto", BOLETO),
            "fiscal/skills/emissao-nf/SKILL.md": skill("emissao-nf", EMISSAO),
            ".claude/skills/planilha/SKILL.md": skill("planilha", XLSX),
            "docs/skills/pdf/SKILL.md": skill("pdf", PDF),
            "vendas/.claude-plugin/plugin.json": '{"name": "vendas"}\n',
            "vendas/skills/comissao/SKILL.md": skill("comissao", COMISSAO),
            ".claude-plugin/marketplace.json": _listing("./cobranca", "./fiscal"),
        },
    )
    assert [p for p, *_ in _cl203(tmp_path)] == ["vendas/skills/comissao/SKILL.md"]


@pytest.mark.parametrize(
    "plugin", [{"name": "tudo", "source": "./"}, {"name": "tudo", "source": "./skills"}], ids=["root", "skills-folder"]
)
def test_a_source_that_is_the_marketplace_itself_or_a_folder_of_skills_sets_no_layout(tmp_path, plugin):
    write_tree(
        tmp_path,
        {
            "skills/boleto/SKILL.md": skill("boleto", BOLETO),
            "skills/emissao-nf/SKILL.md": skill("emissao-nf", EMISSAO),
            "vendas/.claude-plugin/plugin.json": '{"name": "vendas"}\n',
            "vendas/skills/comissao/SKILL.md": skill("comissao", COMISSAO),
            ".claude-plugin/marketplace.json": _market(plugin),
        },
    )
    assert _cl203(tmp_path) == []


def test_single_skill_plugins_listed_one_by_one_leave_out_their_unlisted_sibling(tmp_path):
    # each plugin is a folder with a SKILL.md at its root (no skills/ folder, no manifest)
    write_tree(
        tmp_path,
        {
            "pacotes/boleto/SKILL.md": skill("boleto", BOLETO),
            "pacotes/emissao-nf/SKILL.md": skill("emissao-nf", EMISSAO),
            "pacotes/comissao/SKILL.md": skill("comissao", COMISSAO),
            ".claude-plugin/marketplace.json": _listing("./pacotes/boleto", "./pacotes/emissao-nf"),
        },
    )
    assert [p for p, *_ in _cl203(tmp_path)] == ["pacotes/comissao/SKILL.md"]


def test_a_folder_holding_listed_plugins_is_their_group_not_a_plugin_left_out(tmp_path):
    tree = {k: v for k, v in PLUGINS.items() if "/vendas/" not in k}
    tree["plugins/financeiro/suite/skills/planilha/SKILL.md"] = skill("planilha", XLSX)
    tree["plugins/financeiro/suite/relatorios/skills/pdf/SKILL.md"] = skill("pdf", PDF)
    marketplace = _listing(
        "./plugins/financeiro/cobranca", "./plugins/financeiro/fiscal", "./plugins/financeiro/suite/relatorios"
    )
    write_tree(tmp_path, {**tree, ".claude-plugin/marketplace.json": marketplace})
    assert _cl203(tmp_path) == []


def test_another_marketplace_file_beside_codex_own_resolves_sources_as_it_does(tmp_path):
    # both files in .agents/plugins/: "./plugins/..." is relative to the repository root for both
    codex = _codex("./plugins/financeiro/cobranca", "./plugins/financeiro/fiscal", "./plugins/financeiro/vendas")
    write_tree(
        tmp_path,
        {**PLUGINS, ".agents/plugins/marketplace.json": codex, ".agents/plugins/api_marketplace.json": codex},
    )
    assert [(p, c) for p, _, c, _ in findings(check_tree(tmp_path)) if c in ("CL203", "CL204")] == []


def test_a_codex_plugin_loads_the_skills_folder_its_manifest_names(tmp_path):
    from cachelint.skills.frontmatter import parse_front_matter
    from cachelint.skills.indexes.manifests import source_skills
    from cachelint.skills.loaders import builtin_loaders
    from cachelint.skills.tree import Skill, SkillTree

    files = {
        "plugin/.codex-plugin/plugin.json": '{"name": "p", "skills": "./skills/"}\n',
        "plugin/skills/boleto/SKILL.md": skill("boleto", BOLETO),
        "plugin/.claude/skills/copia/SKILL.md": skill("copia", EMISSAO),  # another agent's copy
    }
    write_tree(tmp_path, files)
    tree = SkillTree(root=tmp_path)
    for rel in ("plugin/skills/boleto/SKILL.md", "plugin/.claude/skills/copia/SKILL.md"):
        tree.skills.append(Skill(tmp_path / rel, rel, parse_front_matter(files[rel])))
    tree.finish()
    codex = next(loader for loader in builtin_loaders().loaders if loader.key == "codex")
    assert [s.display for s in source_skills(tree, tmp_path / "plugin", codex)] == ["plugin/skills/boleto/SKILL.md"]
    # a plugin whose manifest names no skills folder: every skill below it
    write_tree(tmp_path, {"plugin/.codex-plugin/plugin.json": '{"name": "p"}\n'})
    assert len(source_skills(tree, tmp_path / "plugin", codex)) == 2
