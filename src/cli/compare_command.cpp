// `trit compare A B [--json] [--min-cos X] [--max-abs Y] [--rows]`: two dumps
// of the same vectors or logits (.npy or JSON, sniffed from the bytes)
// compared row by row (runtime/vector_compare.h): the way to check that two
// machines, two builds or two runtimes compute the same thing. Exit 1 when a
// row is beyond a given tolerance, naming the tolerance, the row and the value.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "cli/command.h"
#include "formats/vectors/vector_file.h"
#include "runtime/vector_compare.h"

namespace trit::cli {
namespace {

using runtime::Comparison;
using runtime::RowComparison;
using runtime::ToleranceFailure;
using vectors::VectorTable;

constexpr size_t kWorstRows = 5;  // rows shown without --rows

struct CompareOptions {
  std::string a;
  std::string b;
  bool json = false;
  bool all_rows = false;
  std::optional<double> min_cos;
  std::optional<double> max_abs;
};

nlohmann::ordered_json FileJson(const std::string& path, const VectorTable& t) {
  nlohmann::ordered_json j;
  j["path"] = path;
  j["format"] = vectors::VectorFormatName(t.format);
  j["detail"] = t.detail;
  j["shape"] = t.shape;
  return j;
}

nlohmann::ordered_json RowJson(const RowComparison& r) {
  nlohmann::ordered_json j;
  j["row"] = r.row;
  j["cosine"] = r.cosine;  // NaN prints as null
  j["max_abs"] = r.max_abs;
  j["max_abs_column"] = r.max_abs_col;
  j["mean_abs"] = r.mean_abs;
  j["argmax_a"] = r.argmax_a;
  j["argmax_b"] = r.argmax_b;
  j["argmax_agree"] = r.argmax_a == r.argmax_b;
  j["non_finite"] = r.finite ? nlohmann::ordered_json() : nlohmann::ordered_json(r.non_finite);
  return j;
}

void PrintJson(const CompareOptions& o, const VectorTable& a, const VectorTable& b, const Comparison& c,
               const std::vector<ToleranceFailure>& failures) {
  nlohmann::ordered_json j;
  j["a"] = FileJson(o.a, a);
  j["b"] = FileJson(o.b, b);
  j["rows"] = c.n_rows;
  j["columns"] = c.n_cols;
  j["min_cosine"] = c.min_cosine;
  j["min_cosine_row"] = c.min_cosine_row;
  j["mean_cosine"] = c.mean_cosine;
  j["max_abs"] = c.max_abs;
  j["max_abs_row"] = c.max_abs_row;
  j["max_abs_column"] = c.max_abs_col;
  j["mean_abs"] = c.mean_abs;
  j["argmax_agree"] = c.argmax_agree;
  j["argmax_differ_rows"] = runtime::ArgmaxDifferRows(c);
  j["non_finite_rows"] = c.non_finite_rows;
  nlohmann::ordered_json tol;
  tol["min_cos"] = o.min_cos ? nlohmann::ordered_json(*o.min_cos) : nlohmann::ordered_json();
  tol["max_abs"] = o.max_abs ? nlohmann::ordered_json(*o.max_abs) : nlohmann::ordered_json();
  j["tolerances"] = tol;
  j["within_tolerances"] = failures.empty();
  nlohmann::ordered_json fails = nlohmann::ordered_json::array();
  for (const ToleranceFailure& f : failures) {
    fails.push_back({{"tolerance", f.tolerance}, {"limit", f.limit}, {"row", f.row}, {"value", f.value}});
  }
  j["failures"] = fails;
  nlohmann::ordered_json worst = nlohmann::ordered_json::array();
  for (int64_t i : runtime::WorstRows(c, kWorstRows)) worst.push_back(RowJson(c.rows[static_cast<size_t>(i)]));
  j["worst_rows"] = worst;
  if (o.all_rows) {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const RowComparison& r : c.rows) rows.push_back(RowJson(r));
    j["per_row"] = rows;
  }
  fmt::print("{}\n", j.dump());
}

std::string Plural(int64_t n, const char* word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); }

void PrintRowTable(const Comparison& c, const std::vector<int64_t>& rows) {
  fmt::print("  {:>6}  {:>11}  {:>10}  {:>10}  {:>8}  {:>8}\n", "row", "cosine", "max_abs", "mean_abs", "argmax A",
             "argmax B");
  for (int64_t i : rows) {
    const RowComparison& r = c.rows[static_cast<size_t>(i)];
    fmt::print("  {:>6}  {:>11.8f}  {:>10.3e}  {:>10.3e}  {:>8}  {:>8}{}\n", r.row, r.cosine, r.max_abs, r.mean_abs,
               r.argmax_a, r.argmax_b, r.finite ? "" : "  (" + r.non_finite + ")");
  }
}

void PrintText(const CompareOptions& o, const VectorTable& a, const VectorTable& b, const Comparison& c) {
  fmt::print("A  {}: {}, shape {}\n", o.a, a.detail, a.ShapeText());
  fmt::print("B  {}: {}, shape {}\n", o.b, b.detail, b.ShapeText());
  fmt::print("{} x {}\n", Plural(c.n_rows, "row"), Plural(c.n_cols, "column"));
  if (c.min_cosine_row >= 0) {
    fmt::print("cosine    min {:.8f} (row {}), mean {:.8f}\n", c.min_cosine, c.min_cosine_row, c.mean_cosine);
    fmt::print("abs diff  max {:.3e} (row {}, column {}), mean {:.3e}\n", c.max_abs, c.max_abs_row, c.max_abs_col,
               c.mean_abs);
  }
  const std::vector<int64_t> differ = runtime::ArgmaxDifferRows(c);
  std::string which;
  if (!differ.empty()) {
    const size_t shown = std::min<size_t>(differ.size(), kWorstRows);
    which = fmt::format("; differ: {} {}", differ.size() == 1 ? "row" : "rows",
                        fmt::join(differ.begin(), differ.begin() + static_cast<std::ptrdiff_t>(shown), ", "));
    if (differ.size() > shown) which += fmt::format(" and {} more", differ.size() - shown);
  }
  fmt::print("argmax    the same in {} of {}{}\n", c.argmax_agree, Plural(c.n_rows, "row"), which);
  if (c.non_finite_rows > 0) {
    fmt::print("non-finite {} (NaN or infinity), left out of the figures above\n", Plural(c.non_finite_rows, "row"));
  }
  if (o.all_rows) {
    std::vector<int64_t> every(c.rows.size());
    for (size_t i = 0; i < every.size(); ++i) every[i] = static_cast<int64_t>(i);
    fmt::print("rows:\n");
    PrintRowTable(c, every);
  } else if (c.n_rows > 1) {
    const std::vector<int64_t> worst = runtime::WorstRows(c, kWorstRows);
    fmt::print("worst {}:\n", worst.size() == 1 ? "row" : fmt::format("{} rows", worst.size()));
    PrintRowTable(c, worst);
  }
}

// One line per tolerance broken: its worst row and value, and how many rows are beyond it.
std::vector<std::string> FailureMessages(const Comparison& c, const std::vector<ToleranceFailure>& failures) {
  std::vector<std::string> out;
  for (const runtime::BrokenTolerance& b : runtime::SummarizeFailures(failures)) {
    const RowComparison& r = c.rows[static_cast<size_t>(b.worst_row)];
    std::string what;
    if (!r.finite) {
      what = fmt::format("row {} holds a non-finite value ({})", r.row, r.non_finite);
    } else if (b.tolerance == "min-cos") {
      what = fmt::format("row {} has cosine {:.8f}", r.row, r.cosine);
    } else {
      what = fmt::format("row {} differs by {:.6g} at column {}", r.row, r.max_abs, r.max_abs_col);
    }
    out.push_back(fmt::format("beyond --{} {}: {} ({} of {} beyond it)", b.tolerance, b.limit, what, b.n_rows,
                              Plural(c.n_rows, "row")));
  }
  return out;
}

int RunCompare(const CompareOptions& o) {
  Expected<VectorTable> a = vectors::ReadVectorFile(o.a);
  if (!a.ok()) {
    PrintError(a.status().message());
    return kExitFailure;
  }
  Expected<VectorTable> b = vectors::ReadVectorFile(o.b);
  if (!b.ok()) {
    PrintError(b.status().message());
    return kExitFailure;
  }
  if (a->n_rows != b->n_rows || a->n_cols != b->n_cols) {
    PrintError(fmt::format("shapes differ: A ({}) is {} ({} x {}), B ({}) is {} ({} x {})", o.a, a->ShapeText(),
                           Plural(a->n_rows, "row"), Plural(a->n_cols, "column"), o.b, b->ShapeText(),
                           Plural(b->n_rows, "row"), Plural(b->n_cols, "column")));
    return kExitFailure;
  }
  for (const auto& [name, path, t] : {std::tuple{"A", &o.a, &*a}, std::tuple{"B", &o.b, &*b}}) {
    if (t->n_rows == 0 || t->n_cols == 0) {
      PrintError(fmt::format("nothing to compare: {} ({}) holds no values, shape {}", name, *path, t->ShapeText()));
      return kExitFailure;
    }
  }
  Expected<Comparison> c = runtime::CompareRows({a->n_rows, a->n_cols, a->values}, {b->n_rows, b->n_cols, b->values});
  if (!c.ok()) {
    PrintError(c.status().message());
    return kExitFailure;
  }
  const std::vector<ToleranceFailure> failures =
      runtime::CheckTolerances(*c, runtime::Tolerances{o.min_cos, o.max_abs});
  if (o.json) {
    PrintJson(o, *a, *b, *c, failures);
  } else {
    PrintText(o, *a, *b, *c);
    if (failures.empty() && (o.min_cos || o.max_abs)) {
      std::string limits;
      if (o.min_cos) limits += fmt::format("--min-cos {}", *o.min_cos);
      if (o.max_abs) limits += fmt::format("{}--max-abs {}", limits.empty() ? "" : " and ", *o.max_abs);
      fmt::print("within {}\n", limits);
    }
  }
  for (const std::string& m : FailureMessages(*c, failures)) PrintError(m);
  return failures.empty() ? kExitSuccess : kExitFailure;
}

}  // namespace

Command AddCompareCommand(CLI::App& parent) {
  auto o = std::make_shared<CompareOptions>();
  CLI::App* app = parent.add_subcommand(
      "compare", "Compare two dumps of vectors or logits row by row: cosine, max and mean |A-B|, argmax agreement");
  app->add_option("a", o->a, "The first file: .npy or JSON (the format is read from the bytes, not the name)")
      ->required();
  app->add_option("b", o->b, "The second file, of the same rows x columns")->required();
  app->add_option("--min-cos", o->min_cos, "Fail (exit 1) when any row's cosine similarity is below X")
      ->type_name("X")
      ->check(CLI::Range(-1.0, 1.0));
  app->add_option("--max-abs", o->max_abs, "Fail (exit 1) when any |A-B| of any row is above Y")
      ->type_name("Y")
      ->check(CLI::NonNegativeNumber);
  app->add_flag("--rows", o->all_rows, "Print every row (default: the totals and the 5 worst rows)");
  app->add_flag("--json", o->json,
                "Print one object: {a, b: {path, format, detail, shape}, rows, columns, min_cosine, min_cosine_row, "
                "mean_cosine, max_abs, max_abs_row, max_abs_column, mean_abs, argmax_agree, argmax_differ_rows, "
                "non_finite_rows, "
                "tolerances: {min_cos, max_abs}, within_tolerances, failures: [{tolerance, limit, row, value}], "
                "worst_rows and (with --rows) per_row: [{row, cosine, max_abs, max_abs_column, mean_abs, argmax_a, "
                "argmax_b, argmax_agree, non_finite}]}; NaN prints as null");
  app->footer(
      "Files: .npy (numpy.save's float16, float32 or float64, one vector (n,) or rows (rows, columns), C order; "
      "versions 1.0-3.0) or JSON: an array of numbers, an array of arrays, or an object holding one under \"data\", "
      "\"embeddings\", \"embedding\" or \"logits\", such as a saved /v1/embeddings response "
      "({\"data\": [{\"embedding\": [...]}, ...]}). A shape (n,) compares with (1, n).\n"
      "Rows are compared in order, in double precision. A zero row has cosine 1 against a zero row and 0 against "
      "any other. A row holding NaN or infinity is left out of the totals and fails every tolerance given. The "
      "argmax (numpy's: the first maximum) matters for logits: the same greedy token.\n"
      "Exit 0: within the tolerances given (none given: the files could be compared); 1: beyond one (each "
      "tolerance broken is named with its worst row and value), or a file unreadable or malformed (named, with "
      "what is wrong); 2: wrong command line.\n"
      "Examples:\n"
      "  # two machines: the same request to each one's trit serve, the answers saved as they came\n"
      "  curl -s http://box1:8080/v1/embeddings -d @req.json > box1.json\n"
      "  curl -s http://box2:8080/v1/embeddings -d @req.json > box2.json\n"
      "  trit compare box1.json box2.json --min-cos 0.9999\n"
      "  # trit against llama.cpp: llama-embedding's JSON beside trit serve's answer for the same text\n"
      "  llama-embedding -m m.gguf -p 'hello' --embd-output-format json 2>/dev/null > llama.json\n"
      "  curl -s http://localhost:8080/v1/embeddings -d '{\"input\": \"hello\"}' > trit.json\n"
      "  trit compare llama.json trit.json --min-cos 0.999\n"
      "  # two builds: the same dump from each, bit for bit\n"
      "  trit compare build-a.npy build-b.npy --max-abs 0 --rows\n"
      "See docs/COMPARE.md.");
  return {app, [o] { return RunCompare(*o); }};
}

}  // namespace trit::cli
