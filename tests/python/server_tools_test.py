"""Tool calls through the official OpenAI Python client.

The model is written at test time: a real vocabulary (llama SentencePiece),
Qwen 2.5's chat template (it teaches <tool_call> calls and renders tools and
tool results), random weights. A random model never calls a tool of its own
accord, so calls are forced: tool_choice "required" or a named function
(the grammar of a call makes the reply one), or under "auto" a `grammar`
that writes a call, which the server must then read out of the text.
- forced calls parse, name an offered function, and their arguments
  validate against its schema (jsonschema), for several seeds;
- a round trip: the call, its result sent back as a "tool" message, an
  answer;
- streamed calls reassembled by the client's own stream helper equal the
  plain reply's; text that cannot be a call streams as it is written;
- under "auto", text with a call in it becomes content plus tool_calls, and
  text without one stays content;
- bad tools and tool_choice are refused by name."""
import json
import os
import sys
import tempfile
import unittest

import jsonschema
import openai

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trit_server import TritServer, make_model, server_test_args  # noqa: E402

ARGS = None

WEATHER = {"type": "object", "additionalProperties": False, "required": ["city", "unit"],
           "properties": {"city": {"enum": ["Paris", "Oslo", "Lima"]}, "unit": {"enum": ["C", "F"]}}}
ADD = {"type": "object", "additionalProperties": False, "required": ["a", "b"],
       "properties": {"a": {"type": "integer", "minimum": -99, "maximum": 99},
                      "b": {"type": "integer", "minimum": -99, "maximum": 99}}}
TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "description": "Weather in a city", "parameters": WEATHER}},
    {"type": "function", "function": {"name": "add", "description": "Adds two integers", "parameters": ADD}},
]
SCHEMAS = {"get_weather": WEATHER, "add": ADD}
QUESTION = [{"role": "user", "content": "What is the weather in Oslo?"}]


class ToolsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        template = os.path.join(os.path.dirname(ARGS.template), "Qwen-Qwen2.5-7B-Instruct.jinja")
        cls.model_path = make_model(ARGS.make_model, ARGS.vocab, template, os.path.join(cls.tmp.name, "tools.gguf"))
        cls.server = TritServer(ARGS.trit, cls.model_path, "--parallel", "2", "--ctx", "2048", "--threads", "2")
        cls.server.wait_healthy()
        cls.client = openai.OpenAI(base_url=cls.server.url + "/v1", api_key="none", max_retries=0, timeout=120)

    @classmethod
    def tearDownClass(cls):
        rc = cls.server.stop()
        cls.tmp.cleanup()
        assert rc == 0, f"trit serve exited with {rc}"

    def chat(self, **kw):
        args = dict(model="tools", messages=QUESTION, tools=TOOLS, max_tokens=200, temperature=1.0)
        args.update(kw)
        return self.client.chat.completions.create(**args)

    def assert_valid_calls(self, calls):
        self.assertTrue(calls)
        for call in calls:
            self.assertEqual(call.type, "function")
            self.assertEqual(len(call.id), 9)
            self.assertIn(call.function.name, SCHEMAS)
            jsonschema.validate(json.loads(call.function.arguments), SCHEMAS[call.function.name])

    def test_required_calls_parse_and_validate(self):
        for seed in range(1, 7):
            r = self.chat(tool_choice="required", parallel_tool_calls=False, seed=seed)
            with self.subTest(seed=seed):
                choice = r.choices[0]
                self.assertEqual(choice.finish_reason, "tool_calls")
                self.assertIsNone(choice.message.content)
                self.assertEqual(len(choice.message.tool_calls), 1)
                self.assert_valid_calls(choice.message.tool_calls)

    def test_a_named_function_is_the_one_called(self):
        for seed in range(1, 4):
            r = self.chat(tool_choice={"type": "function", "function": {"name": "add"}}, seed=seed)
            self.assertEqual(r.choices[0].finish_reason, "tool_calls")
            self.assertEqual({c.function.name for c in r.choices[0].message.tool_calls}, {"add"})
            self.assert_valid_calls(r.choices[0].message.tool_calls)

    def test_round_trip_call_result_answer(self):
        first = self.chat(tool_choice={"type": "function", "function": {"name": "get_weather"}},
                          parallel_tool_calls=False, seed=5)
        call = first.choices[0].message.tool_calls[0]
        messages = QUESTION + [
            first.choices[0].message.model_dump(exclude_none=True),
            {"role": "tool", "tool_call_id": call.id, "content": json.dumps({"temperature": 7, "sky": "grey"})},
        ]
        answer = self.chat(messages=messages, tool_choice="none", max_tokens=8, seed=6,
                           extra_body={"ignore_eos": True})
        self.assertEqual(answer.choices[0].finish_reason, "length")
        self.assertIsNone(answer.choices[0].message.tool_calls)
        self.assertIsInstance(answer.choices[0].message.content, str)
        # The call and its result are in the prompt.
        self.assertGreater(answer.usage.prompt_tokens, first.usage.prompt_tokens + 20)

    def test_streamed_calls_reassemble_to_the_plain_reply(self):
        for seed in (11, 12):
            kw = dict(tool_choice="required", seed=seed)
            plain = self.chat(**kw).choices[0]
            with self.client.chat.completions.stream(model="tools", messages=QUESTION, tools=TOOLS, max_tokens=200,
                                                     temperature=1.0, **kw) as stream:
                final = stream.get_final_completion().choices[0]
            self.assertEqual(final.finish_reason, "tool_calls")
            self.assertEqual([(c.function.name, c.function.arguments) for c in final.message.tool_calls],
                             [(c.function.name, c.function.arguments) for c in plain.message.tool_calls])

    def test_auto_reads_calls_out_of_the_text(self):
        call = '{"name": "get_weather", "arguments": {"city": "Lima", "unit": "C"}}'
        written = "Checking. <tool_call>\n" + call + "\n</tool_call>"
        grammar = "root ::= " + json.dumps(written)
        r = self.chat(tool_choice="auto", seed=1, extra_body={"grammar": grammar})
        choice = r.choices[0]
        self.assertEqual(choice.finish_reason, "tool_calls")
        self.assertEqual(choice.message.content, "Checking.")
        self.assertEqual([(c.function.name, json.loads(c.function.arguments)) for c in choice.message.tool_calls],
                         [("get_weather", {"city": "Lima", "unit": "C"})])
        text = self.chat(seed=1, extra_body={"grammar": 'root ::= "It is sunny."'}).choices[0]
        self.assertEqual(text.finish_reason, "stop")
        self.assertEqual(text.message.content, "It is sunny.")
        self.assertIsNone(text.message.tool_calls)
        # A call to a function not offered stays text.
        other = written.replace("get_weather", "launch_rocket")
        stray = self.chat(seed=1, extra_body={"grammar": "root ::= " + json.dumps(other)}).choices[0]
        self.assertEqual(stray.message.content, other)
        self.assertIsNone(stray.message.tool_calls)

    def test_text_streams_as_it_is_written_and_calls_come_whole(self):
        # Plain text (under a grammar that cannot write a call) arrives token by token.
        grammar = 'root ::= "It is " [a-z]{12,20} "."'
        plain = self.chat(seed=3, extra_body={"grammar": grammar}).choices[0].message.content
        pieces = [c.choices[0].delta.content for c in self.chat(seed=3, stream=True, extra_body={"grammar": grammar})
                  if c.choices and c.choices[0].delta.content]
        self.assertGreater(len(pieces), 3)
        self.assertEqual("".join(pieces), plain)
        # Text before a call streams; the call comes in one delta at the end.
        written = "Checking. <tool_call>\n" + json.dumps({"name": "add", "arguments": {"a": 1, "b": 2}}) + "\n</tool_call>"
        grammar = "root ::= " + json.dumps(written)
        content, calls, finish = "", {}, None
        for chunk in self.chat(seed=1, stream=True, extra_body={"grammar": grammar}):
            if not chunk.choices:
                continue
            delta = chunk.choices[0].delta
            content += delta.content or ""
            for call in delta.tool_calls or []:
                calls[call.index] = (call.function.name, json.loads(call.function.arguments))
            finish = chunk.choices[0].finish_reason or finish
        self.assertEqual(content, "Checking.")
        self.assertEqual(calls, {0: ("add", {"a": 1, "b": 2})})
        self.assertEqual(finish, "tool_calls")

    def test_bad_tools_are_refused_by_name(self):
        cases = [
            (dict(tool_choice={"type": "function", "function": {"name": "fly"}}), "tool_choice"),
            (dict(tools=[{"type": "function", "function": {"name": "has space"}}]), "tools"),
            (dict(tools=[{"type": "function", "function": {"name": "f", "parameters": {
                "type": "object", "properties": {"x": {"type": "integer", "multipleOf": 3}}}}}],
                  tool_choice="required"), "tools"),
            (dict(tools=None, tool_choice="required"), "tool_choice"),
        ]
        for kw, param in cases:
            with self.subTest(param=param, kw=kw):
                args = dict(kw)
                if args.get("tools", TOOLS) is None:
                    args.pop("tools")
                    with self.assertRaises(openai.BadRequestError) as cm:
                        self.client.chat.completions.create(model="tools", messages=QUESTION, **args)
                else:
                    with self.assertRaises(openai.BadRequestError) as cm:
                        self.chat(**args)
                self.assertEqual(cm.exception.body["param"], param)


if __name__ == "__main__":
    ARGS, rest = server_test_args()
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
