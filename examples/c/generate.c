/* Generate text with trit's C API: load a GGUF model, generate greedily
 * from a prompt and stream the text to stdout as it comes.
 *
 *   generate MODEL [PROMPT] [N_TOKENS]
 *
 * MODEL is a GGUF path or the name of a model in the store. stdout holds
 * exactly the generated text, what `trit run MODEL PROMPT -n N_TOKENS
 * --temp 0 --raw` prints; a summary goes to stderr. Exit 0 on success, 1 on
 * a trit error (its message on stderr), 2 on bad usage. */
#include <stdio.h>
#include <stdlib.h>
#include <trit/trit.h>

/* Called once per generated token with the text it completes. */
static int print_piece(const char* piece, size_t len, int32_t token, void* user_data) {
  (void)token;
  (void)user_data;
  fwrite(piece, 1, len, stdout);
  fflush(stdout);
  return 1; /* go on; 0 would stop generation */
}

static const char* stop_name(trit_stop_reason stop) {
  switch (stop) {
    case TRIT_STOP_MAX_TOKENS: return "token limit";
    case TRIT_STOP_END_OF_GENERATION: return "end of generation";
    case TRIT_STOP_CALLBACK: return "stopped by the callback";
    case TRIT_STOP_CONTEXT_FULL: return "context full";
  }
  return "?";
}

int main(int argc, char** argv) {
  if (argc < 2 || argc > 4) {
    fprintf(stderr, "usage: %s MODEL [PROMPT] [N_TOKENS]\n", argv[0]);
    return 2;
  }
  long n_tokens = 20;
  if (argc > 3) {
    char* end = NULL;
    n_tokens = strtol(argv[3], &end, 10);
    if (*argv[3] == '\0' || *end != '\0' || n_tokens <= 0) {
      fprintf(stderr, "generate: N_TOKENS '%s': expected a positive integer\n", argv[3]);
      return 2;
    }
  }
  if (trit_abi_version() != TRIT_ABI_VERSION) {
    fprintf(stderr, "generate: built for trit ABI %u, the library is ABI %u\n", TRIT_ABI_VERSION, trit_abi_version());
    return 1;
  }

  trit_model_options load;
  trit_model_options_default(&load);
  load.model = argv[1];
  trit_model* model = NULL;
  trit_status status = trit_model_load(&load, &model);
  if (status != TRIT_STATUS_OK) {
    fprintf(stderr, "generate: %s (%s)\n", trit_last_error(), trit_status_string(status));
    return 1;
  }

  trit_generate_options options;
  trit_generate_options_default(&options);
  options.max_tokens = n_tokens;
  options.temperature = 0.0f;                       /* greedy: the same text every run */
  options.tokenize_flags = TRIT_TOKENIZE_ADD_SPECIAL; /* plain text after BOS, as trit run --raw */
  trit_generate_result result;
  result.struct_size = sizeof(result);
  status = trit_generate(model, argc > 2 ? argv[2] : "", &options, print_piece, NULL, &result);
  if (status != TRIT_STATUS_OK) {
    fprintf(stderr, "generate: %s (%s)\n", trit_last_error(), trit_status_string(status));
    trit_model_free(model);
    return 1;
  }
  fprintf(stderr, "[%s on %s: %lld prompt tokens, %lld generated, %s]\n", trit_model_architecture(model),
          trit_model_engine(model), (long long)result.n_prompt_tokens, (long long)result.n_generated,
          stop_name(result.stop));
  trit_model_free(model);
  return 0;
}
