"""Structured output through the official OpenAI Python client, as
extraction scripts use it: `response_format` with a JSON schema (given by
hand and made by the client from a pydantic model), `json_object`,
llama.cpp's `grammar`, `logit_bias`, `echo`, and the parameters trit refuses
by name rather than ignore. Every constrained answer is parsed and checked
against its schema by `jsonschema` (an independent validator, pinned in
requirements.txt), for many schemas and seeds, and a constrained request
gives the same answer alone or beside others.

The model is written at test time: a real vocabulary (llama SentencePiece)
and chat template (zephyr) with random weights, so only the grammar makes
its answers JSON."""
import json
import os
import sys
import tempfile
import threading
import unittest
import urllib.request
from typing import List, Literal

import jsonschema
import openai
import pydantic

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trit_server import TritServer, make_model, server_test_args  # noqa: E402

ARGS = None

# Schemas a random model must finish within max_tokens: strings bounded or
# enumerated, arrays bounded (an unbounded string under a random model ends
# only when a token with a quote happens to win).
SCHEMAS = [
    {"type": "object", "properties": {"age": {"type": "integer", "minimum": 0, "maximum": 150},
                                      "ok": {"type": "boolean"}},
     "required": ["age", "ok"], "additionalProperties": False},
    {"type": "object", "properties": {"colour": {"enum": ["red", "green", "blue"]},
                                      "shade": {"type": "number"}},
     "required": ["colour"], "additionalProperties": False},
    {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 4},
    {"type": "object", "properties": {"name": {"type": "string", "maxLength": 8},
                                      "tags": {"type": "array", "items": {"enum": ["a", "b", "c"]}, "maxItems": 3}},
     "required": ["name", "tags"], "additionalProperties": False},
    {"anyOf": [{"type": "integer"}, {"type": "null"}, {"const": "none"}]},
    {"$defs": {"point": {"type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}},
                         "required": ["x", "y"], "additionalProperties": False}},
     "type": "object", "properties": {"from": {"$ref": "#/$defs/point"}, "to": {"$ref": "#/$defs/point"}},
     "required": ["from", "to"], "additionalProperties": False},
    {"type": "object", "properties": {"id": {"type": "string", "format": "uuid"},
                                      "day": {"type": "string", "format": "date"}},
     "required": ["id", "day"], "additionalProperties": False},
]


class Person(pydantic.BaseModel):
    name: str = pydantic.Field(max_length=10)
    age: int
    role: Literal["admin", "user"]
    scores: List[int] = pydantic.Field(max_length=3)


class StructuredTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.model_path = make_model(ARGS.make_model, ARGS.vocab, ARGS.template,
                                    os.path.join(cls.tmp.name, "structured.gguf"))
        cls.server = TritServer(ARGS.trit, cls.model_path, "--parallel", "4", "--ctx", "1024", "--threads", "2")
        cls.server.wait_healthy()
        cls.client = openai.OpenAI(base_url=cls.server.url + "/v1", api_key="none", max_retries=0, timeout=120)

    @classmethod
    def tearDownClass(cls):
        rc = cls.server.stop()
        cls.tmp.cleanup()
        assert rc == 0, f"trit serve exited with {rc}"

    def chat(self, **kw):
        args = dict(model="structured", messages=[{"role": "user", "content": "Reply in JSON."}], max_tokens=400)
        args.update(kw)
        return self.client.chat.completions.create(**args)

    def test_json_schema_answers_validate_for_many_schemas_and_seeds(self):
        for i, schema in enumerate(SCHEMAS):
            fmt = {"type": "json_schema", "json_schema": {"name": f"s{i}", "schema": schema, "strict": True}}
            for seed in range(1, 9):
                r = self.chat(response_format=fmt, seed=seed, temperature=1.0)
                text = r.choices[0].message.content
                with self.subTest(schema=i, seed=seed, text=text):
                    self.assertEqual(r.choices[0].finish_reason, "stop")
                    jsonschema.validate(json.loads(text), schema)

    def test_pydantic_model_through_the_clients_parse(self):
        for seed in range(1, 6):
            r = self.client.chat.completions.parse(model="structured", response_format=Person, seed=seed,
                                                   messages=[{"role": "user", "content": "Who are you?"}],
                                                   max_tokens=400, temperature=0.9)
            person = r.choices[0].message.parsed
            self.assertIsInstance(person, Person)
            self.assertIn(person.role, ("admin", "user"))
            self.assertLessEqual(len(person.scores), 3)

    def test_json_object_and_gbnf_grammar(self):
        for seed in range(1, 6):
            r = self.chat(response_format={"type": "json_object"}, seed=seed, max_tokens=600,
                          temperature=0.7, extra_body={"logit_bias": {}})
            if r.choices[0].finish_reason == "stop":
                self.assertIsInstance(json.loads(r.choices[0].message.content), dict)
            else:  # a random model may write a long string; what there is still follows the grammar
                self.assertTrue(r.choices[0].message.content.startswith("{"))
        grammar = 'root ::= ("yes" | "no") " because " [a-z]{2,5} "."'
        for seed in range(1, 6):
            text = self.chat(seed=seed, extra_body={"grammar": grammar}).choices[0].message.content
            self.assertRegex(text, r"^(yes|no) because [a-z]{2,5}\.$")

    def test_constrained_answer_is_the_same_alone_or_beside_others(self):
        fmt = {"type": "json_schema", "json_schema": {"name": "p", "schema": SCHEMAS[3]}}
        alone = self.chat(response_format=fmt, seed=77, temperature=1.0, logprobs=True)
        results = {}

        def run(i):
            if i == 0:
                results[i] = self.chat(response_format=fmt, seed=77, temperature=1.0, logprobs=True)
            else:
                results[i] = self.chat(messages=[{"role": "user", "content": f"Other {i}"}], max_tokens=30,
                                       seed=i, extra_body={"ignore_eos": True})
        threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(results[0].choices[0].message.content, alone.choices[0].message.content)
        self.assertEqual([t.logprob for t in results[0].choices[0].logprobs.content],
                         [t.logprob for t in alone.choices[0].logprobs.content])

    def test_logit_bias_and_echo(self):
        base = self.chat(temperature=0, max_tokens=1, extra_body={"ignore_eos": True}, logprobs=True)
        first = base.choices[0].logprobs.content[0].token
        # Ban the token greedy chose first: the answer's first token changes.
        # This vocabulary adds a space before the text (SentencePiece), so a
        # piece that starts with one is found by tokenizing the rest.
        ids = self.tokenize(first[1:] if first.startswith(" ") else first)
        self.assertEqual(len(ids), 1, f"{first!r} is not one token: {ids}")
        banned = self.chat(temperature=0, max_tokens=1, logit_bias={str(i): -100 for i in ids},
                           extra_body={"ignore_eos": True}, logprobs=True)
        self.assertNotEqual(banned.choices[0].logprobs.content[0].token, first)
        # A strong positive bias makes a token certain.
        forced_id, piece = self.tokenize(" zebra", with_pieces=True)[-1].values()
        forced = self.chat(temperature=1.0, seed=3, max_tokens=3, logit_bias={str(forced_id): 100},
                           extra_body={"ignore_eos": True})
        self.assertEqual(forced.usage.completion_tokens, 3)
        self.assertEqual(forced.choices[0].message.content, piece * 3)
        with self.assertRaises(openai.BadRequestError) as cm:
            self.chat(logit_bias={"99999999": 1})
        self.assertEqual(cm.exception.body["param"], "logit_bias")

        r = self.client.completions.create(model="structured", prompt="Once upon a time", max_tokens=5, seed=2,
                                           echo=True, extra_body={"ignore_eos": True})
        plain = self.client.completions.create(model="structured", prompt="Once upon a time", max_tokens=5, seed=2,
                                               extra_body={"ignore_eos": True})
        self.assertEqual(r.choices[0].text, "Once upon a time" + plain.choices[0].text)
        streamed = "".join(c.choices[0].text for c in self.client.completions.create(
            model="structured", prompt="Once upon a time", max_tokens=5, seed=2, echo=True, stream=True,
            extra_body={"ignore_eos": True}))
        self.assertEqual(streamed, r.choices[0].text)

    def test_what_trit_does_not_do_is_refused_by_name(self):
        cases = [
            (dict(functions=[{"name": "f", "parameters": {"type": "object"}}]), "functions"),
            (dict(response_format={"type": "json_schema",
                                   "json_schema": {"name": "n", "schema": {"type": "integer", "multipleOf": 7}}}),
             "response_format"),
            (dict(extra_body={"mirostat": 2}), "mirostat"),
            (dict(extra_body={"grammar": "root ::= missing"}), "grammar"),
            (dict(n=17), "n"),
        ]
        for kw, param in cases:
            with self.subTest(param=param):
                with self.assertRaises(openai.BadRequestError) as cm:
                    self.chat(**kw)
                self.assertEqual(cm.exception.body["param"], param)
                self.assertIn(param, cm.exception.body["message"])
        # Advisory fields are accepted.
        r = self.chat(max_tokens=2, user="someone", metadata={"k": "v"}, store=False)
        self.assertLessEqual(r.usage.completion_tokens, 2)

    def tokenize(self, text, with_pieces=False):
        body = {"content": text, "with_pieces": with_pieces}
        req = urllib.request.Request(self.server.url + "/tokenize", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req) as resp:
            return json.loads(resp.read())["tokens"]


if __name__ == "__main__":
    ARGS, rest = server_test_args()
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
