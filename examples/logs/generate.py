"""Writes backoffice-session.jsonl: a captured Anthropic session (JSONL envelopes) with the
cache breaks of the example agent. Run: python examples/logs/generate.py"""
import copy
import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

TOOLS = {
    "baixar_titulo": {"name": "baixar_titulo", "description": "Dá baixa num título conciliado.", "input_schema": {"type": "object", "properties": {"titulo": {"type": "string"}}, "required": ["titulo"]}},
    "buscar_pagamento": {"name": "buscar_pagamento", "description": "Busca um pagamento pelo código do pedido.", "input_schema": {"type": "object", "properties": {"pedido": {"type": "string"}}, "required": ["pedido"]}},
    "load_skill": {"name": "load_skill", "description": "Carrega as instruções completas de uma habilidade do índice.", "input_schema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}},
}
INDEX = "\n".join(f"- skill-{i:02d}: use para a tarefa de back-office número {i} com o passo a passo completo." for i in range(60))
START = datetime(2026, 11, 27, 9, 0, 0, tzinfo=timezone.utc)


def system(now):
    return [{"type": "text", "text": f"Você é o agente de back-office. Agora: {now.isoformat(timespec='seconds')}\n\n{INDEX}", "cache_control": {"type": "ephemeral"}}]


def body(order, now, messages):
    messages = copy.deepcopy(messages)
    last = messages[-1]  # the moving breakpoint on the newest message, as agents place it
    if isinstance(last["content"], str):
        last["content"] = [{"type": "text", "text": last["content"]}]
    last["content"][-1]["cache_control"] = {"type": "ephemeral"}
    return {"model": "claude-opus-4-8", "max_tokens": 4000, "tools": [TOOLS[n] for n in order], "system": system(now), "messages": messages}


def usage(read, write, uncached):
    return {"id": "msg_x", "type": "message", "role": "assistant", "content": [{"type": "text", "text": "ok"}],
            "usage": {"input_tokens": uncached, "output_tokens": 120, "cache_read_input_tokens": read, "cache_creation_input_tokens": write}}


order = ["baixar_titulo", "buscar_pagamento", "load_skill"]
msgs = [{"role": "user", "content": "Concilie os recebimentos do cartão de ontem."}]
records = []
t = START
sys_time = START
records.append({"time": t.isoformat(), "request": body(order, sys_time, copy.deepcopy(msgs)), "response": usage(0, 2600, 12)})
msgs += [{"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "load_skill", "input": {"name": "conciliacao-cartao"}}]},
         {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "1. Baixe o extrato. 2. Procure o título. 3. Dê baixa."}]}]
t += timedelta(seconds=40)
records.append({"time": t.isoformat(), "request": body(order, sys_time, copy.deepcopy(msgs)), "response": usage(2600, 90, 10)})
# the tool list comes from a set: a new process renders it in another order
order2 = ["load_skill", "baixar_titulo", "buscar_pagamento"]
msgs += [{"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_2", "name": "buscar_pagamento", "input": {"pedido": "88231"}}]},
         {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_2", "content": "{\"valor\": 1520.30, \"nsu\": \"004512\"}"}]}]
t += timedelta(seconds=35)
records.append({"time": t.isoformat(), "request": body(order2, sys_time, copy.deepcopy(msgs)), "response": usage(0, 2720, 10)})
# the system prompt carries the clock: every request rewrites it
sys_time = t + timedelta(seconds=30)
msgs += [{"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_3", "name": "baixar_titulo", "input": {"titulo": "T-1182"}}]},
         {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_3", "content": "baixado"}]}]
t += timedelta(seconds=30)
records.append({"time": t.isoformat(), "request": body(order2, sys_time, copy.deepcopy(msgs)), "response": usage(0, 2790, 10)})
# a history message edited in place (a tool result truncated after the fact)
msgs[2]["content"][0]["content"] = "(instruções resumidas)"
msgs += [{"role": "assistant", "content": [{"type": "text", "text": "Conciliado."}]}, {"role": "user", "content": "Obrigado. Algo mais pendente?"}]
t += timedelta(seconds=25)
records.append({"time": t.isoformat(), "request": body(order2, sys_time, copy.deepcopy(msgs)), "response": usage(2700, 210, 12)})

out = Path(__file__).with_name("backoffice-session.jsonl")
with open(out, "w", encoding="utf-8") as handle:
    for r in records:
        handle.write(json.dumps(r, ensure_ascii=False) + "\n")
print(f"wrote {out}")
