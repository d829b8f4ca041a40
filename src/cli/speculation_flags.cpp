#include "cli/speculation_flags.h"

namespace trit::cli {

void AddSpeculationFlags(CLI::App* app, SpeculationFlags* flags, const std::string& unit) {
  app->add_option("--spec", flags->spec,
                  "Speculative decoding: 'lookup' drafts by continuing n-grams already in the context (no second "
                  "model); the tokens are those of plain decoding, bit for bit, only sooner")
      ->default_val("none")
      ->check(CLI::IsMember({"none", "lookup"}));
  app->add_option("--draft", flags->draft,
                  "Speculative decoding with a draft model (a path or store name): a smaller model of the same "
                  "vocabulary guesses, the model checks every guess in one pass; the tokens are unchanged");
  app->add_option("--draft-max", flags->draft_max, "Most tokens drafted per " + unit + " (the length adapts below it)")
      ->default_val(8)
      ->check(CLI::Range(1, 64));
  app->add_option("--draft-p-min", flags->draft_p_min,
                  "With --draft: end a draft at a guess the draft model gives less than this probability (0: always "
                  "the full length)")
      ->default_val(runtime::ModelDrafter::kDefaultMinProbability)
      ->check(CLI::Range(0.0f, 1.0f));
}

Status CheckSpeculationFlags(const SpeculationFlags& flags) {
  if (flags.lookup() && !flags.draft.empty()) {
    return Error(ErrorCode::kInvalidArgument, "--spec lookup and --draft MODEL are two drafters: choose one");
  }
  return Status::Ok();
}

}  // namespace trit::cli
