/* Tokens and metadata with trit's C API: the ids of a text, each id's
 * piece, the text decoded back, and a few metadata values.
 *
 *   tokenize MODEL TEXT
 *
 * Shows the caller-buffer protocol: ask with capacity 0 for the size
 * needed (TRIT_STATUS_BUFFER_TOO_SMALL), allocate, ask again. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <trit/trit.h>

static int fail(const char* what, trit_status status) {
  fprintf(stderr, "tokenize: %s: %s (%s)\n", what, trit_last_error(), trit_status_string(status));
  return 1;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s MODEL TEXT\n", argv[0]);
    return 2;
  }
  trit_model_options load;
  trit_model_options_default(&load);
  load.model = argv[1];
  load.n_threads = 1;
  trit_model* model = NULL;
  trit_status status = trit_model_load(&load, &model);
  if (status != TRIT_STATUS_OK) return fail("load", status);

  printf("architecture %s, %lld tokens, context %lld, embedding %lld, %lld layers\n", trit_model_architecture(model),
         (long long)trit_model_n_vocab(model), (long long)trit_model_n_ctx_train(model),
         (long long)trit_model_n_embd(model), (long long)trit_model_n_layer(model));
  char name[256];
  size_t n = 0;
  status = trit_model_meta_string(model, "general.name", name, sizeof(name), &n);
  printf("general.name %s\n", status == TRIT_STATUS_OK ? name : "(none)");

  /* Ids: first the count, then the ids. */
  const char* text = argv[2];
  size_t n_ids = 0;
  status = trit_tokenize(model, text, strlen(text), TRIT_TOKENIZE_ADD_SPECIAL, NULL, 0, &n_ids);
  if (status != TRIT_STATUS_OK && status != TRIT_STATUS_BUFFER_TOO_SMALL) return fail("tokenize", status);
  int32_t* ids = malloc((n_ids > 0 ? n_ids : 1) * sizeof(int32_t));
  if (ids == NULL) return 1;
  status = trit_tokenize(model, text, strlen(text), TRIT_TOKENIZE_ADD_SPECIAL, ids, n_ids, &n_ids);
  if (status != TRIT_STATUS_OK) return fail("tokenize", status);

  printf("ids");
  for (size_t i = 0; i < n_ids; ++i) printf(" %d", ids[i]);
  printf("\n");
  for (size_t i = 0; i < n_ids; ++i) {
    char piece[64];
    size_t len = 0;
    status = trit_token_to_piece(model, ids[i], TRIT_DETOKENIZE_RENDER_SPECIAL, piece, sizeof(piece), &len);
    if (status != TRIT_STATUS_OK) return fail("token_to_piece", status);
    printf("%d '%s'\n", ids[i], piece);
  }

  /* Text: first the length, then the text and its NUL. The ids after BOS
   * decode to the text (their first token's SentencePiece space dropped, as
   * llama.cpp's llama_detokenize does). */
  const int32_t* text_ids = ids;
  size_t n_text_ids = n_ids;
  if (n_ids > 0 && ids[0] == trit_model_token_bos(model)) {
    ++text_ids;
    --n_text_ids;
  }
  size_t len = 0;
  status = trit_detokenize(model, text_ids, n_text_ids, 0, NULL, 0, &len);
  if (status != TRIT_STATUS_BUFFER_TOO_SMALL) return fail("detokenize", status);
  char* back = malloc(len + 1);
  if (back == NULL) return 1;
  status = trit_detokenize(model, text_ids, n_text_ids, 0, back, len + 1, &len);
  if (status != TRIT_STATUS_OK) return fail("detokenize", status);
  printf("text '%s'\n", back);

  free(back);
  free(ids);
  trit_model_free(model);
  return 0;
}
