#!/usr/bin/env python3
"""Cross-checks trit's chat templates against the real jinja2 package.

Every *.jinja file in --templates is rendered by jinja2 exactly as HF
transformers' apply_chat_template does (ImmutableSandboxedEnvironment with
trim_blocks, lstrip_blocks, loopcontrols, the raise_exception and
strftime_now globals and HF's tojson; render(messages=, tools=, documents=,
add_generation_prompt=, ...) with tools=None when there are none) and by
trit's chat_render program, for several conversations; the outputs must be
byte-identical, and where jinja2 raises, trit must fail too.

Conversations with tools are written the way HF takes them (a tool call's
arguments a dict, content None beside tool calls) and handed to trit the way
an OpenAI client sends them (arguments as compact JSON text, content null),
so trit's own conversion between the two is under test.

Prints one line per check and a closing "N passed, N failed" line.
"""
import argparse
import copy
import datetime
import json
import os
import subprocess
import sys
import tempfile

import jinja2
from jinja2.ext import loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment

SYSTEM = {"role": "system", "content": "You are a helpful assistant."}
CONVERSATIONS = {
    "user": [{"role": "user", "content": "Hello!"}],
    "system_user": [SYSTEM, {"role": "user", "content": "What is 2+2?"}],
    "multi_turn": [
        SYSTEM,
        {"role": "user", "content": "Hi there"},
        {"role": "assistant", "content": "  Hello! How can I help?  "},
        {"role": "user", "content": "Tell me a joke.\nMake it short."},
    ],
    "no_system_multi": [
        {"role": "user", "content": "Q1"},
        {"role": "assistant", "content": "A1"},
        {"role": "user", "content": "Q2 with 'quotes' and \"double\" and unicode: héllo 日本"},
    ],
    "ends_with_assistant": [
        {"role": "user", "content": "Q1"},
        {"role": "assistant", "content": "A1"},
    ],
}

# Tool definitions in OpenAI's shape. Key order is part of the test: Qwen and
# Llama print each definition with |tojson, so the order shows in the prompt.
WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather in a city — in °C or °F.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "The city, e.g. \"Paris\" or 東京"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "description": "Temperature unit"},
            },
            "required": ["city"],
        },
    },
}
CONVERT_TOOL = {
    "type": "function",
    "function": {
        "name": "convert_currency",
        "description": "Convert an amount between currencies.",
        "parameters": {
            "type": "object",
            "properties": {
                "amount": {"type": "number", "description": "How much"},
                "from": {"type": "string", "description": "ISO code"},
                "to": {"type": "array", "items": {"type": "string"}, "description": "Target ISO codes"},
                "round": {"type": "integer", "description": "Decimals"},
                "strict": {"type": ["boolean", "string"], "description": "Refuse unknown codes  "},
            },
            "required": ["amount", "from", "to"],
        },
        "return": {"type": "object", "description": "Amounts by currency"},
    },
}
TIME_TOOL = {
    "type": "function",
    "function": {"name": "get_time", "description": "The current UTC time.",
                 "parameters": {"type": "object", "properties": {}}},
}
TOOLS = [WEATHER_TOOL, CONVERT_TOOL, TIME_TOOL]


def tool_call(call_id, name, arguments):
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


WEATHER_CALL = tool_call("call0wthr", "get_weather", {"city": "Paris", "unit": "celsius"})
CONVERT_CALL = tool_call("call1conv", "convert_currency",
                         {"amount": 12.5, "from": "EUR", "to": ["USD", "JPY"], "round": 2, "strict": None,
                          "note": "€ 'quoted' \"double\"\n", "tiny": 1e-07, "big": 12345678901234, "ok": True})
ASK = {"role": "user", "content": "What is the weather in Paris, and 12.5 EUR in USD and JPY?"}
WEATHER_RESULT = {"role": "tool", "content": '{"temperature": 21, "sky": "clear"}', "tool_call_id": "call0wthr",
                  "name": "get_weather"}
CONVERT_RESULT = {"role": "tool", "content": '{"USD": 13.6, "JPY": 2110}', "tool_call_id": "call1conv",
                  "name": "convert_currency"}
ANSWER = {"role": "assistant", "content": "It is 21 °C and clear in Paris; 12.5 EUR is 13.60 USD or 2110 JPY."}

# name -> (messages, tools). Messages are HF's form: the arguments of a tool
# call a dict (or the raw text where it is not JSON), content None beside calls.
CONVERSATIONS_WITH_TOOLS = {
    "tools_prompt": ([SYSTEM, ASK], TOOLS),
    "tools_prompt_no_system": ([ASK], [WEATHER_TOOL]),
    "tools_empty_list": ([SYSTEM, ASK], []),
    "tools_one_call": ([SYSTEM, ASK, {"role": "assistant", "content": None, "tool_calls": [WEATHER_CALL]}], TOOLS),
    "tools_one_result": ([SYSTEM, ASK, {"role": "assistant", "content": None, "tool_calls": [WEATHER_CALL]},
                          WEATHER_RESULT], TOOLS),
    "tools_final_answer": ([SYSTEM, ASK, {"role": "assistant", "content": None, "tool_calls": [WEATHER_CALL]},
                            WEATHER_RESULT, ANSWER, {"role": "user", "content": "Thanks!"}], TOOLS),
    "tools_two_calls": ([SYSTEM, ASK,
                         {"role": "assistant", "content": None, "tool_calls": [WEATHER_CALL, CONVERT_CALL]},
                         WEATHER_RESULT, CONVERT_RESULT, ANSWER], TOOLS),
    "tools_call_with_content": ([ASK, {"role": "assistant", "content": "Let me check.",
                                       "tool_calls": [WEATHER_CALL]}, WEATHER_RESULT], [WEATHER_TOOL]),
    # Arguments that are not a JSON object reach the template as the text.
    "tools_unparsed_arguments": ([
        ASK, {"role": "assistant", "content": None,
              "tool_calls": [tool_call("call2bad0", "get_weather", '{"city": "Paris"')]},
        {"role": "tool", "content": "error: arguments are not JSON", "tool_call_id": "call2bad0"},
        {"role": "assistant", "content": None,
         "tool_calls": [tool_call("call3bad0", "get_weather", '["Paris"]')]}], [WEATHER_TOOL]),
    "tools_history_without_tools": ([ASK, {"role": "assistant", "content": None, "tool_calls": [WEATHER_CALL]},
                                     WEATHER_RESULT, ANSWER], None),
}
TOKENS = {"bos_token": "<s>", "eos_token": "</s>"}
EXTRA = {"date_string": "26 Jul 2024"}

passed = 0
failed = 0


def check(ok, what, detail=""):
    global passed, failed
    print(("PASS " if ok else "FAIL ") + what, flush=True)
    if not ok and detail:
        print(detail, flush=True)
    if ok:
        passed += 1
    else:
        failed += 1


def make_env():
    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    def strftime_now(format):
        return datetime.datetime.now().strftime(format)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


def render_jinja(env, source, messages, tools, add_generation_prompt):
    try:
        template = env.from_string(source)
        return template.render(messages=copy.deepcopy(messages), tools=copy.deepcopy(tools), documents=None,
                               add_generation_prompt=add_generation_prompt, **TOKENS, **EXTRA), None
    except Exception as e:  # noqa: BLE001 - any jinja2 failure is an expected failure for trit too
        return None, f"{type(e).__name__}: {e}"


def to_openai(message):
    """A message as an OpenAI client sends it: tool-call arguments as JSON text.

    The text is compact (no spaces), unlike what templates print with |tojson,
    so trit must parse it and dump it again rather than pass it through.
    """
    message = copy.deepcopy(message)
    for call in message.get("tool_calls", []):
        arguments = call["function"]["arguments"]
        if not isinstance(arguments, str):
            call["function"]["arguments"] = json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))
    return message


def render_trit(render, template_path, messages, tools, add_generation_prompt, workdir):
    conversation = {"messages": [to_openai(m) for m in messages], "add_generation_prompt": add_generation_prompt,
                    **TOKENS, "extra": EXTRA}
    if tools is not None:
        conversation["tools"] = tools
    path = os.path.join(workdir, "conversation.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(conversation, f, ensure_ascii=False)
    proc = subprocess.run([render, template_path, path], capture_output=True, timeout=60)
    if proc.returncode != 0:
        return None, proc.stderr.decode("utf-8", "replace").strip()
    return proc.stdout.decode("utf-8"), None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--render", required=True, help="path to trit's chat_render")
    parser.add_argument("--templates", required=True, help="directory of *.jinja templates")
    args = parser.parse_args()

    env = make_env()
    names = sorted(n for n in os.listdir(args.templates) if n.endswith(".jinja"))
    if not names:
        check(False, f"no templates in {args.templates}")
    with tempfile.TemporaryDirectory() as workdir:
        for name in names:
            path = os.path.join(args.templates, name)
            with open(path, encoding="utf-8") as f:
                source = f.read()
            n_rendered = 0
            n_tool_rendered = 0
            cases = [(n, m, None) for n, m in CONVERSATIONS.items()]
            cases += [(n, m, t) for n, (m, t) in CONVERSATIONS_WITH_TOOLS.items()]
            for conv_name, messages, tools in cases:
                for agp in (False, True):
                    what = f"{name} {conv_name} add_generation_prompt={agp}"
                    expected, jinja_error = render_jinja(env, source, messages, tools, agp)
                    actual, trit_error = render_trit(args.render, path, messages, tools, agp, workdir)
                    if jinja_error is not None:
                        # raise_exception("...") in the template: trit must raise the same message.
                        raised = jinja_error.removeprefix("TemplateError: ") if jinja_error.startswith(
                            "TemplateError: ") else None
                        same = trit_error is not None and (raised is None or "raise_exception: " + raised in trit_error)
                        check(same, what + " (jinja2 raises: both must fail)",
                              f"  jinja2: {jinja_error}\n  trit rendered: {actual!r}\n  trit error: {trit_error}")
                        continue
                    n_rendered += 1
                    n_tool_rendered += 1 if any("tool_calls" in m for m in messages) else 0
                    check(actual == expected, what,
                          f"  jinja2: {expected!r}\n  trit:   {actual!r}\n  trit error: {trit_error}")
            check(n_rendered > 0, f"{name}: jinja2 renders at least one conversation")
            if "tool_calls" in source:
                check(n_tool_rendered > 0, f"{name}: jinja2 renders at least one conversation with tool calls")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
