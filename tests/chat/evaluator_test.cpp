// Tests of src/chat/evaluator.* and builtins.*: expression semantics,
// filters, tests, methods, scoping and limits. Expected strings are what
// jinja2 3.1 renders for the same template.
#include "chat/evaluator.h"

#include <gtest/gtest.h>

#include "chat/lexer.h"
#include "chat/parser.h"

namespace trit::chat {
namespace {

std::string RenderSource(const std::string& source, RenderLimits limits = {}) {
  Dict globals;
  globals.Set("s", Value::String("  Hello World  "));
  globals.Set("n", Value::Int(7));
  Dict m1;
  m1.Set("role", Value::String("system"));
  m1.Set("content", Value::String("sys"));
  Dict m2;
  m2.Set("role", Value::String("user"));
  m2.Set("content", Value::String("hi"));
  globals.Set("msgs", Value::MakeList({Value::MakeDict(m1), Value::MakeDict(m2)}));
  return Render(Parse(Tokenize(source)), globals, limits);
}

std::string ErrorOf(const std::string& source, RenderLimits limits = {}) {
  try {
    RenderSource(source, limits);
  } catch (const TemplateError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ChatEvaluator, ValuesRenderAsPythonStr) {
  EXPECT_EQ(RenderSource("{{ none }} {{ true }} {{ 1.0 }} {{ 0.1 + 0.2 }} {{ 1e20 }} {{ [1, 'a', none] }} {{ {'k': 'v'} }}"),
            "None True 1.0 0.30000000000000004 1e+20 [1, 'a', None] {'k': 'v'}");
  EXPECT_EQ(RenderSource("{{ undefined_thing }}|{{ 7 // 2 }} {{ -7 // 2 }} {{ -7 % 3 }} {{ 7 / 2 }} {{ 2 ** 10 }}"),
            "|3 -4 2 3.5 1024");
  EXPECT_EQ(RenderSource("{{ 'a' ~ 1 ~ none }} {{ 'ab' * 3 }} {{ [1] + [2] }}"), "a1None ababab [1, 2]");
}

TEST(ChatEvaluator, ComparisonsAndLogic) {
  EXPECT_EQ(RenderSource("{{ 1 == 1.0 }} {{ 'a' < 'b' }} {{ 1 < 2 < 3 }} {{ 'ell' in s }} {{ 3 not in [1, 2] }}"),
            "True True True True True");
  EXPECT_EQ(RenderSource("{{ 0 or 'x' }} {{ 'y' and '' }}|{{ not none }}"), "x |True");
  EXPECT_EQ(RenderSource("{{ 'yes' if n > 5 else 'no' }}"), "yes");
}

TEST(ChatEvaluator, StringMethodsAndFilters) {
  EXPECT_EQ(RenderSource("[{{ s.strip() }}][{{ s.lstrip() }}][{{ s.rstrip() }}][{{ s | trim }}]"),
            "[Hello World][Hello World  ][  Hello World][Hello World]");
  EXPECT_EQ(RenderSource("{{ 'a,b,,c'.split(',') }} {{ ' a  b '.split() }} {{ 'x y z'.split(' ', 1) }}"),
            "['a', 'b', '', 'c'] ['a', 'b'] ['x', 'y z']");
  EXPECT_EQ(RenderSource("{{ 'hELLO wORLD'.title() }} {{ 'hello-world x' | title }} {{ 'aBC' | capitalize }}"),
            "Hello World Hello-World X Abc");
  EXPECT_EQ(RenderSource("{{ 'abc'.startswith('a') }} {{ 'abc'.endswith(('x', 'c')) }} {{ 'aaa'.replace('a', 'b', 2) }}"),
            "True True bba");
  EXPECT_EQ(RenderSource("{{ 'héllo'[1] }} {{ 'héllo' | length }} {{ 'abc'[::-1] }} {{ [1,2,3,4][1:3] }} {{ 'abc'[-1] }}"),
            "é 5 cba [2, 3] c");
  EXPECT_EQ(RenderSource("{{ msgs | map(attribute='role') | join(', ') }}|{{ msgs | selectattr('role', 'equalto', 'user') "
                "| map(attribute='content') | list }}|{{ msgs | rejectattr('role', 'eq', 'user') | list | length }}"),
            "system, user|['hi']|1");
  EXPECT_EQ(RenderSource("{{ x | default('d') }} {{ '' | default('e', true) }} {{ '5' | int + 1 }} {{ 3 | string ~ 'x' }}"),
            "d e 6 3x");
  EXPECT_EQ(RenderSource("{{ 'a\nb\n\nc' | indent(2) }}|{{ 'a\nb' | indent(2, true) }}"), "a\n  b\n\n  c|  a\n  b");
  EXPECT_EQ(RenderSource("{{ [3, 1, 2] | sort | first }} {{ [3, 1, 2] | last }} {{ [1, 1, 2] | unique | list }}"),
            "1 2 [1, 2]");
}

TEST(ChatEvaluator, HugeAttributePathIndexIsAnError) {
  // The same std::stoll as the parser's, in map(attribute=...) paths.
  EXPECT_EQ(ErrorOf("{{ msgs | map(attribute='99999999999999999999') | list }}"),
            "attribute path index '99999999999999999999' is too large");
  EXPECT_EQ(RenderSource("{{ msgs | map(attribute='role.0') | list }}"), "['s', 'u']");
}

TEST(ChatEvaluator, ToJsonMatchesHfJsonDumps) {
  EXPECT_EQ(RenderSource("{{ {'a': [1, 2.5, true, none], 'b': 'é\"\n'} | tojson }}"),
            "{\"a\": [1, 2.5, true, null], \"b\": \"é\\\"\\n\"}");
  EXPECT_EQ(RenderSource("{{ {'a': [1], 'b': {}} | tojson(indent=2) }}"), "{\n  \"a\": [\n    1\n  ],\n  \"b\": {}\n}");
}

TEST(ChatEvaluator, DictMethodsAndTests) {
  EXPECT_EQ(RenderSource("{% set d = {'a': 1, 'b': 2} %}{{ d.get('a') }} {{ d.get('z', 0) }} {{ d.get('z') }} "
                "{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %} {{ d.keys() | list }} {{ d.values() | list }}"),
            "1 0 None a=1;b=2; ['a', 'b'] [1, 2]");
  EXPECT_EQ(RenderSource("{{ s is string }} {{ n is number }} {{ n is integer }} {{ {} is mapping }} {{ none is none }} "
                "{{ x is defined }} {{ n is odd }} {{ n is divisibleby 7 }} {{ msgs[0].nothing is defined }}"),
            "True True True True True False True True False");
}

TEST(ChatEvaluator, UndefinedSubscriptIsUndefined) {
  // jinja2 turns a failed lookup into Undefined, an undefined key included;
  // only using the result (an attribute of it) is an error.
  EXPECT_EQ(RenderSource("{{ {'a': 1}[nothing] is defined }} {{ [1][nothing] is defined }} {{ s[nothing] }}|"
                         "{{ none[0] is defined }} {{ {'string': 'str'}[{'k': 1}.type] is defined }}"),
            "False False |False False");
  EXPECT_EQ(ErrorOf("{{ {'a': 1}[nothing].x }}"),
            "'dict object' has no element 'Undefined' is undefined (reading attribute 'x')");
}

TEST(ChatEvaluator, LoopVariablesAndControl) {
  EXPECT_EQ(RenderSource("{% for x in ['a', 'b', 'c'] %}{{ loop.index }}{{ loop.index0 }}{{ loop.first }}{{ loop.last }}"
                "{{ loop.length }}{{ loop.previtem }}{{ loop.nextitem }};{% endfor %}"),
            "10TrueFalse3b;21FalseFalse3ac;32FalseTrue3b;");
  EXPECT_EQ(RenderSource("{% for x in [] %}x{% else %}empty{% endfor %}"), "empty");
  EXPECT_EQ(RenderSource("{% for x in range(10) if x is odd %}{% if x > 5 %}{% break %}{% endif %}{{ x }}{{ loop.length }}"
                "{% endfor %}"),
            "153555");
  EXPECT_EQ(RenderSource("{% for x in range(4) %}{% if x == 1 %}{% continue %}{% endif %}{{ x }}{% endfor %}"), "023");
  EXPECT_EQ(RenderSource("{% for x in range(2, 8, 3) %}{{ x }}{% endfor %}"), "25");
}

TEST(ChatEvaluator, ScopingNamespacesAndMacros) {
  // set inside a loop does not leak; namespace attributes do.
  EXPECT_EQ(RenderSource("{% set a = 1 %}{% set ns = namespace(b=1) %}{% for x in [1, 2] %}{% set a = a + x %}"
                "{% set ns.b = ns.b + x %}{% endfor %}{{ a }} {{ ns.b }}"),
            "1 4");
  EXPECT_EQ(RenderSource("{% if true %}{% set a = 5 %}{% endif %}{{ a }}"), "5");
  EXPECT_EQ(RenderSource("{% macro greet(name, punct='!') %}Hi {{ name }}{{ punct }}{% endmacro %}"
                "{{ greet('Bob') }} {{ greet('Al', punct='?') }}"),
            "Hi Bob! Hi Al?");
  EXPECT_EQ(RenderSource("{% set x %}a{{ n }}b{% endset %}[{{ x }}]"), "[a7b]");
}

TEST(ChatEvaluator, ErrorsNameTheConstruct) {
  EXPECT_EQ(ErrorOf("{{ raise_exception('bad roles') }}"), "raise_exception: bad roles");
  EXPECT_EQ(ErrorOf("{{ x.y }}"), "'x' is undefined (reading attribute 'y')");
  EXPECT_EQ(ErrorOf("{{ 'a' + 1 }}"), "unsupported operand types for +: 'str' and 'int'");
  EXPECT_EQ(ErrorOf("{{ 1 // 0 }}"), "integer division or modulo by zero");
  EXPECT_EQ(ErrorOf("{{ s.frob() }}"), "'str' object has no method 'frob'");
  EXPECT_EQ(ErrorOf("{% set ns = 1 %}{% set ns.a = 2 %}"),
            "cannot assign attribute 'a' of 'ns': not a namespace() object");
  EXPECT_EQ(ErrorOf("{{ msgs.append(1) }}"),
            "lists are immutable in chat templates ('append' is refused, as in HF's sandbox)");
}

TEST(ChatEvaluator, HostileTemplatesHitLimits) {
  RenderLimits small;
  small.max_output_bytes = 1000;
  EXPECT_NE(ErrorOf("{% for i in range(100) %}{{ 'xxxxxxxxxxxxxxxxxxxx' }}{% endfor %}", small).find("output limit"),
            std::string::npos);
  EXPECT_NE(ErrorOf("{{ 'x' * 100000 }}", small).find("output limit"), std::string::npos);
  EXPECT_NE(ErrorOf("{{ range(100000000) | length }}").find("output limit"), std::string::npos);
  RenderLimits few_steps;
  few_steps.max_steps = 10000;
  EXPECT_NE(ErrorOf("{% for i in range(1000) %}{% for j in range(1000) %}{% endfor %}{% endfor %}", few_steps)
                .find("step budget"),
            std::string::npos);
  // Found by chat_template_fuzz (a 675-byte template looping three deep over
  // the characters of `messages ~ s`, 42 s under the sanitizers): the default
  // budget ends such a template within a few million steps.
  EXPECT_NE(ErrorOf("{% set s = 'x' * 300 %}{% for a in s %}{% for b in s %}{% for c in s %}"
                    "{% endfor %}{% endfor %}{% endfor %}")
                .find("step budget (4000000 steps)"),
            std::string::npos);
  EXPECT_NE(ErrorOf("{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}").find("nested deeper"), std::string::npos);
  EXPECT_NE(ErrorOf("{{ 9223372036854775807 + 1 }}").find("overflow"), std::string::npos);
}

}  // namespace
}  // namespace trit::chat
