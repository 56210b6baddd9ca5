"""The same agent, cache-friendly: sorted sources, a frozen prefix, loaded skills appended."""
from datetime import date
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
    for f in sorted(SKILLS_DIR.glob("*/SKILL.md")):
        meta, _ = read_skill(f)
        lines.append(f"- {meta['name']}: {meta['description']}")
    return "Habilidades disponíveis:\n" + "\n".join(lines)


SYSTEM = "Você é o agente de back-office.\n\n" + skill_index()
TOOLS = [TOOL_SCHEMAS[name] for name in sorted(TOOL_SCHEMAS)]


def run(task, skills):
    seen = {"load_skill"}  # a set used only for membership is fine
    messages = [{"role": "user", "content": f"{task}\n(hoje: {date.today().isoformat()})"}]
    while True:
        reply = client.messages.create(
            model="claude-opus-4-8", max_tokens=4000, system=SYSTEM, tools=TOOLS, messages=messages
        )
        if reply.stop_reason != "tool_use":
            return reply.content[0].text
        for call in reply.content:
            if call.type == "tool_use" and call.name in seen:
                skill = skills[call.input["name"]]
                # the skill body is appended at the end of the history: the prefix stays intact
                messages.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id, "content": skill["instructions"]}]})
