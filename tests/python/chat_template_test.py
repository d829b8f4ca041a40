#!/usr/bin/env python3
"""Cross-checks trit's chat templates against the real jinja2 package.

Every *.jinja file in --templates is rendered by jinja2 exactly as HF
transformers' apply_chat_template does (ImmutableSandboxedEnvironment with
trim_blocks, lstrip_blocks, loopcontrols, a raise_exception global and HF's
tojson) and by trit's chat_render program, for several conversations; the
outputs must be byte-identical, and where jinja2 raises, trit must fail too.

Prints one line per check and a closing "N passed, N failed" line.
"""
import argparse
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

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    return env


def render_jinja(env, source, messages, add_generation_prompt):
    try:
        template = env.from_string(source)
        return template.render(messages=messages, add_generation_prompt=add_generation_prompt, **TOKENS, **EXTRA), None
    except Exception as e:  # noqa: BLE001 - any jinja2 failure is an expected failure for trit too
        return None, f"{type(e).__name__}: {e}"


def render_trit(render, template_path, messages, add_generation_prompt, workdir):
    conversation = {"messages": messages, "add_generation_prompt": add_generation_prompt, **TOKENS, "extra": EXTRA}
    path = os.path.join(workdir, "conversation.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(conversation, f)
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
            for conv_name, messages in CONVERSATIONS.items():
                for agp in (False, True):
                    what = f"{name} {conv_name} add_generation_prompt={agp}"
                    expected, jinja_error = render_jinja(env, source, messages, agp)
                    actual, trit_error = render_trit(args.render, path, messages, agp, workdir)
                    if jinja_error is not None:
                        check(trit_error is not None, what + " (jinja2 raises: both must fail)",
                              f"  jinja2: {jinja_error}\n  trit rendered: {actual!r}")
                        continue
                    n_rendered += 1
                    check(actual == expected, what,
                          f"  jinja2: {expected!r}\n  trit:   {actual!r}\n  trit error: {trit_error}")
            check(n_rendered > 0, f"{name}: jinja2 renders at least one conversation")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
