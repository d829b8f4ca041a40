// JSON schemas as `response_format` brings them to trit serve: any text must
// convert to a grammar or give an error (never a crash, a throw, unbounded
// recursion or a giant grammar), and a grammar that converts must parse
// (grammar/gbnf.h) and run: else the target aborts, printing both.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "grammar/gbnf.h"
#include "grammar/json_schema.h"
#include "grammar/matcher.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  trit::Expected<std::string> gbnf = trit::grammar::JsonSchemaToGbnf(text);
  if (!gbnf) return 0;
  auto grammar = trit::grammar::ParseGbnf(*gbnf);
  if (!grammar) {
    std::fprintf(stderr, "json_schema_fuzz: the grammar of a converted schema does not parse: %s\n%s\n",
                 grammar.status().message().c_str(), gbnf->c_str());
    std::abort();
  }
  for (std::string_view doc : {"{}", "[]", "null", "\"\"", "0", "{\"a\":1}", "[\"x\",2]"}) {
    (void)trit::grammar::Matches(*grammar, doc);
  }
  return 0;
}
