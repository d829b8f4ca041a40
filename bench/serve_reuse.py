"""Time to first token of a follow-up turn in a long conversation, with
prompt reuse on and off (`trit serve --no-prompt-reuse`).

A chat client resends the whole history with every turn. The conversation
here is a long first message (about --history tokens), then --turns turns;
each turn resends everything and adds a short question. The first turn
computes the whole prompt either way; later turns with reuse on compute only
what is new since the last turn. Servers with reuse on and off run one after
the other, --rounds times, alternating, and the answers of both are compared
(they must be the same text: reuse changes nothing but the work).
Results go in docs/PERFORMANCE.md.

  .venv/bin/python bench/serve_reuse.py --trit build/trit --model gemma-3-270m-q4_k_m.gguf --plain
  .venv/bin/python bench/serve_reuse.py --trit build/trit --make-model build/tests/server/make_chat_model
"""
import argparse
import os
import statistics
import sys
import tempfile
import time

import openai

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "python"))
from trit_server import TritServer, make_model  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
FILLER = ("The harbour was quiet that morning. Fishing boats rocked at their moorings, gulls argued over the nets, "
          "and the old lighthouse keeper counted the ships that came in from the grey sea. ")


def conversation(client, model_id, history_tokens, turns, max_tokens, plain):
    """Runs one conversation; returns ([TTFT per turn], [answers], [(prompt tokens, cached tokens) per turn]).
    plain: through /v1/completions with the transcript as text (a model without a chat template answers only
    the last message of a chat), else through /v1/chat/completions."""
    # About 40 tokens per filler sentence on common vocabularies.
    story = FILLER * max(1, history_tokens // 40)
    messages = [{"role": "user", "content": story + "\nSummarise the story."}]
    transcript = story + "\nQuestion: Summarise the story.\nAnswer:"
    ttfts, answers, cached = [], [], []
    for turn in range(turns):
        start = time.perf_counter()
        first = None
        text = ""
        usage = None
        common = dict(model=model_id, max_tokens=max_tokens, seed=turn, temperature=0, stream=True,
                      stream_options={"include_usage": True}, extra_body={"ignore_eos": True})
        if plain:
            stream = client.completions.create(prompt=transcript, **common)
        else:
            stream = client.chat.completions.create(messages=messages, **common)
        for chunk in stream:
            piece = (chunk.choices[0].text if plain else chunk.choices[0].delta.content) if chunk.choices else None
            if piece:
                if first is None:
                    first = time.perf_counter()
                text += piece
            if chunk.usage is not None:
                usage = chunk.usage
        ttfts.append((first or time.perf_counter()) - start)
        answers.append(text)
        details = getattr(usage, "prompt_tokens_details", None)
        cached.append((usage.prompt_tokens, getattr(details, "cached_tokens", 0) or 0))
        question = f"And what happened next, part {turn + 1}?"
        messages.append({"role": "assistant", "content": text})
        messages.append({"role": "user", "content": question})
        transcript += text + f"\nQuestion: {question}\nAnswer:"
    return ttfts, answers, cached


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--trit", required=True)
    p.add_argument("--model", help="a GGUF chat model")
    p.add_argument("--make-model", help="tests/server/make_chat_model, to write a random-weight model instead")
    p.add_argument("--vocab", default=os.path.join(ROOT, "tests/data/vocab/ggml-vocab-llama-spm.gguf"))
    p.add_argument("--template", default=os.path.join(ROOT, "tests/data/chat_templates/HuggingFaceH4-zephyr-7b-beta.jinja"))
    p.add_argument("--threads", default="2")
    p.add_argument("--history", type=int, default=2000, help="tokens of the first message, about")
    p.add_argument("--turns", type=int, default=4)
    p.add_argument("--max-tokens", type=int, default=16)
    p.add_argument("--rounds", type=int, default=2, help="conversations per setting, alternating")
    p.add_argument("--plain", action="store_true",
                   help="resend the conversation as text through /v1/completions (for a model without a chat template)")
    a = p.parse_args()
    if not a.model and not a.make_model:
        p.error("give --model FILE or --make-model PROGRAM")
    with tempfile.TemporaryDirectory() as tmp:
        model = a.model or make_model(a.make_model, a.vocab, a.template, os.path.join(tmp, "reuse.gguf"))
        results = {True: [], False: []}
        answers = {}
        for _ in range(a.rounds):
            for reuse in (True, False):
                extra = [] if reuse else ["--no-prompt-reuse"]
                server = TritServer(a.trit, model, "--parallel", "1", "--ctx", "4096", "--threads", a.threads, *extra)
                try:
                    server.wait_healthy()
                    client = openai.OpenAI(base_url=server.url + "/v1", api_key="none", max_retries=0, timeout=600)
                    model_id = client.models.list().data[0].id
                    ttfts, said, cached = conversation(client, model_id, a.history, a.turns, a.max_tokens, a.plain)
                    results[reuse].append((ttfts, cached))
                    answers.setdefault(reuse, said)
                finally:
                    server.stop()
        same = answers[True] == answers[False]
        print(f"model: {os.path.basename(a.model) if a.model else 'generated llama'}; --threads {a.threads}; "
              f"{a.turns} turns, {a.max_tokens} tokens each, greedy; {a.rounds} rounds alternating; "
              f"{'/v1/completions' if a.plain else '/v1/chat/completions'}")
        print(f"answers with reuse on and off identical: {same}")
        print("| reuse | prompt tokens (turn 1 .. last) | cached tokens | turn-1 TTFT s | follow-up TTFT s (median) |")
        print("|---|---|---|---|---|")
        medians = {}
        for reuse in (True, False):
            firsts = [r[0][0] for r in results[reuse]]
            follow = [t for r in results[reuse] for t in r[0][1:]]
            medians[reuse] = statistics.median(follow)
            cached = results[reuse][-1][1]
            print(f"| {'on' if reuse else 'off'} | {cached[0][0]} .. {cached[-1][0]} | "
                  f"{', '.join(str(c[1]) for c in cached)} | {statistics.median(firsts):.3f} | {medians[reuse]:.3f} |")
        print(f"follow-up TTFT, off / on: {medians[False] / medians[True]:.1f}x")
        if not same:
            sys.exit("reuse changed an answer")


if __name__ == "__main__":
    main()
