"""A back-office agent with the cache breaks of docs/background/agent-patterns.md.

Run `cachelint check examples/agent` to see them; `good_agent.py` is the same agent done right.
"""
from datetime import datetime
from pathlib import Path

import anthropic
import yaml

client = anthropic.Anthropic()
SKILLS_DIR = Path("skills")

TOOL_SCHEMAS = {
    "buscar_pagamento": {"name": "buscar_pagamento", "description": "Busca um pagamento pelo código do pedido.", "input_schema": {"type": "object", "properties": {"pedido": {"type": "string"}}}},
    "baixar_titulo": {"name": "baixar_titulo", "description": "Dá baixa num título conciliado.", "input_schema": {"type": "object", "properties": {"titulo": {"type": "string"}}}},
    "load_skill": {"name": "load_skill", "description": "Carrega as instruções completas de uma habilidade do índice.", "input_schema": {"type": "object", "properties": {"name": {"type": "string"}}}},
}


def read_skill(path):
    _, front, body = path.read_text(encoding="utf-8").split("---", 2)
    return yaml.safe_load(front), body.strip()


def skill_index():
    lines = []
    for f in SKILLS_DIR.glob("*/SKILL.md"):  # file-system order: differs between machines
        meta, _ = read_skill(f)
        lines.append(f"- {meta['name']}: {meta['description']}")
    return "Habilidades disponíveis:\n" + "\n".join(lines)


def run(task, skills):
    enabled = {"buscar_pagamento", "baixar_titulo", "load_skill"}
    tools = [TOOL_SCHEMAS[name] for name in enabled]  # a set decides the order of position 0
    system = f"Você é o agente de back-office. Agora: {datetime.now().isoformat()}\n\n" + skill_index()
    messages = [{"role": "user", "content": task}]
    while True:
        reply = client.messages.create(
            model="claude-opus-4-8", max_tokens=4000, system=system, tools=tools, messages=messages
        )
        if reply.stop_reason != "tool_use":
            return reply.content[0].text
        for call in reply.content:
            if call.type == "tool_use" and call.name == "load_skill":
                skill = skills[call.input["name"]]
                tools += skill["tools"]  # rewrites position 0 mid-session
                system = skill["instructions"]  # replaces the prompt instead of appending
                messages.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id, "content": "ok"}]})
