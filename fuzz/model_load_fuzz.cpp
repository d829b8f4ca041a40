// Model files: arbitrary bytes loaded as a model, the way `trit run` loads a
// downloaded GGUF: the tokenizer from its metadata (then a short text
// encoded and decoded), the architecture's hyper-parameters, every tensor
// bound by name, type and shape, and, when all of that loads, one step of
// generation on an 8-position session. Any input must load or give an error;
// under ASan + UBSan an out-of-bounds read, an overflow, a crash or an
// allocation the file's size does not justify is a bug. Seeds: the tiny
// models make_model_seeds writes, one per architecture.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <string>

#include "base/check.h"
#include "formats/gguf/reader.h"
#include "model/model.h"
#include "runtime/session.h"
#include "tokenizer/tokenizer.h"

namespace {

// The input as a file: the loaders open paths (and map them). A memfd keeps
// it in memory, and /proc/self/fd names it.
const std::string& InputPath(const uint8_t* data, size_t size) {
  static const int fd = memfd_create("trit-model-fuzz", 0);
  static const std::string path = "/proc/self/fd/" + std::to_string(fd);
  TRIT_CHECK(fd >= 0);
  TRIT_CHECK(ftruncate(fd, 0) == 0);
  size_t done = 0;
  while (done < size) {
    const ssize_t n = pwrite(fd, data + done, size - done, static_cast<off_t>(done));
    TRIT_CHECK(n > 0);
    done += static_cast<size_t>(n);
  }
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trit;
  const std::string& path = InputPath(data, size);
  Expected<gguf::File> file = gguf::File::Open(path);
  if (!file.ok()) return 0;  // gguf_reader_fuzz covers the container

  if (auto tok = tokenizer::Tokenizer::FromGguf(*file); tok.ok()) {
    const std::vector<tokenizer::TokenId> ids = (*tok)->Encode("Hello, the world\n", {.add_special = true});
    for (tokenizer::TokenId id : ids) TRIT_CHECK((*tok)->vocab().Valid(id));
    (void)(*tok)->Decode(ids, {});
  }

  Expected<std::unique_ptr<model::Model>> model = model::LoadModel(path);
  if (!model.ok()) {
    TRIT_CHECK(!model.status().message().empty());
    return 0;
  }
  const model::HParams& h = (*model)->hparams();
  TRIT_CHECK(h.n_vocab > 0 && h.n_embd > 0 && h.n_layer > 0);
  Expected<std::unique_ptr<runtime::Session>> session =
      runtime::Session::Create(**model, runtime::SessionOptions{.n_ctx = 8});
  if (!session.ok()) return 0;
  runtime::Batch batch;
  batch.Add(0, 0, 0, false);
  batch.Add(static_cast<int32_t>(h.n_vocab - 1), 1, 0, true);
  Expected<runtime::Logits> logits = (*session)->Decode(batch);
  TRIT_CHECK(logits.ok());
  TRIT_CHECK(logits->values.size() == static_cast<size_t>(h.n_vocab));
  return 0;
}
