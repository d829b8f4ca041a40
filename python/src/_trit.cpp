// trit._trit: the Python package's native module. It sees only the C API
// (include/trit/trit.h), no C++ type of the library, so Python runs on
// exactly what C programs link (libtrit.so, shipped beside this module).
//
// What it adds to the C API:
// - every trit_status becomes the exception of trit/_errors.py for it, with
//   trit_last_error()'s message;
// - the GIL is released around every library call, so Python threads run
//   while a model computes and calls on one model run in parallel;
// - close() and calls on other threads never race: calls hold a shared lock
//   (taken without the GIL) for their duration, close() the exclusive one;
// - streamed generation: trit_generate runs on a thread of its own and hands
//   pieces to the Python iterator through a queue.
// Names, docstrings and type hints for users are in trit/__init__.py.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>
#include <trit/trit.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace nb = nanobind;

namespace {

// Raises trit._errors.from_status(status, message). Needs the GIL.
[[noreturn]] void RaiseStatus(trit_status status, const std::string& message) {
  nb::object error = nb::module_::import_("trit._errors").attr("from_status")(static_cast<int>(status), message);
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(error.ptr())), error.ptr());
  throw nb::python_error();
}

// A status and, on failure, the message of the thread that got it.
struct Outcome {
  trit_status status = TRIT_STATUS_OK;
  std::string message;
  bool closed = false;  // the model was closed before the call could run

  static Outcome Of(trit_status s) { return s == TRIT_STATUS_OK ? Outcome{} : Outcome{s, trit_last_error(), false}; }
};

// The C API's text protocol (capacity 0 asks for the size): calls `write`
// with a small buffer, then with one of the size it reported.
template <typename Write>
trit_status ReadText(Write&& write, std::string* text) {
  char small[256];
  size_t n = 0;
  trit_status s = write(small, sizeof(small), &n);
  if (s == TRIT_STATUS_OK) {
    text->assign(small, n);
    return s;
  }
  if (s != TRIT_STATUS_BUFFER_TOO_SMALL) return s;
  text->resize(n + 1);
  s = write(text->data(), text->size(), &n);
  text->resize(s == TRIT_STATUS_OK ? n : 0);
  return s;
}

class Model {
 public:
  Model(const std::string& model, const std::optional<std::string>& engine, int32_t threads, int64_t n_ctx) {
    trit_model_options options;
    trit_model_options_default(&options);
    options.model = model.c_str();
    options.engine = engine ? engine->c_str() : nullptr;
    options.n_threads = threads;
    options.n_ctx = n_ctx;
    Outcome outcome;
    {
      nb::gil_scoped_release no_gil;
      outcome = Outcome::Of(trit_model_load(&options, &model_));
    }
    if (outcome.status != TRIT_STATUS_OK) RaiseStatus(outcome.status, outcome.message);
  }
  ~Model() { Free(); }
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  // Stops streams at their next token, waits for running calls, frees.
  void Close() {
    closing_.store(true);
    nb::gil_scoped_release no_gil;
    Free();
  }
  bool closed() const { return closing_.load(); }
  bool closing() const { return closing_.load(std::memory_order_relaxed); }

  // Runs fn(const trit_model*) -> trit_status without the GIL under the
  // shared lock; raises (with the GIL) when it failed or the model is closed.
  // fn must not touch Python objects.
  template <typename Fn>
  void Call(Fn&& fn) {
    Outcome outcome;
    {
      nb::gil_scoped_release no_gil;
      outcome = CallNoGil(fn);
    }
    Check(outcome);
  }

  // The same on a thread that holds no GIL (the stream's worker).
  template <typename Fn>
  Outcome CallNoGil(Fn&& fn) {
    std::shared_lock lock(mutex_);
    if (model_ == nullptr) return Outcome{TRIT_STATUS_OK, {}, true};
    return Outcome::Of(fn(static_cast<const trit_model*>(model_)));
  }

  static void Check(const Outcome& outcome) {
    if (outcome.closed) throw nb::value_error("this trit.Model is closed");
    if (outcome.status != TRIT_STATUS_OK) RaiseStatus(outcome.status, outcome.message);
  }

 private:
  void Free() {
    std::unique_lock lock(mutex_);
    trit_model_free(model_);
    model_ = nullptr;
  }

  trit_model* model_ = nullptr;
  std::shared_mutex mutex_;
  std::atomic<bool> closing_{false};
};

// What a generation reports besides its text.
struct Summary {
  int64_t n_prompt_tokens = 0;
  int64_t n_generated = 0;
  int stop = 0;
  uint64_t seed = 0;
  std::vector<int32_t> tokens;
};

Summary SummaryOf(const trit_generate_result& r, std::vector<int32_t> tokens) {
  return Summary{r.n_prompt_tokens, r.n_generated, static_cast<int>(r.stop), r.seed, std::move(tokens)};
}

// A prompt as the C API takes it: text, or ids used as given.
struct Prompt {
  std::optional<std::string> text;
  std::vector<int32_t> ids;
};

Prompt PromptFrom(nb::handle prompt) {
  if (nb::isinstance<nb::str>(prompt)) return Prompt{nb::cast<std::string>(prompt), {}};
  return Prompt{std::nullopt, nb::cast<std::vector<int32_t>>(prompt)};
}

// Callback state of a generation collecting the whole text.
struct Collect {
  std::string text;
  const Model* model;
};

int CollectPiece(const char* piece, size_t len, int32_t /*token*/, void* user_data) {
  auto* c = static_cast<Collect*>(user_data);
  c->text.append(piece, len);
  return c->model->closing() ? 0 : 1;
}

trit_status GenerateWith(const trit_model* m, const Prompt& prompt, const trit_generate_options& options,
                         trit_token_callback callback, void* user_data, trit_generate_result* result) {
  if (prompt.text) return trit_generate(m, prompt.text->c_str(), &options, callback, user_data, result);
  return trit_generate_ids(m, prompt.ids.data(), prompt.ids.size(), &options, callback, user_data, result);
}

nb::bytes Generate(Model& model, nb::handle prompt_object, const trit_generate_options& options) {
  const Prompt prompt = PromptFrom(prompt_object);
  Collect collect{{}, &model};
  model.Call([&](const trit_model* m) { return GenerateWith(m, prompt, options, CollectPiece, &collect, nullptr); });
  return nb::bytes(collect.text.data(), collect.text.size());
}

// Streamed generation: a worker thread runs trit_generate and queues the
// pieces; next() waits for one without the GIL. The queue is bounded, so a
// stream nobody reads stops computing after kQueued pieces instead of
// running to max_tokens. Closing (or dropping) the stream, or closing the
// model, stops the generation at its next token and joins the worker.
class Stream {
 public:
  static constexpr size_t kQueued = 64;

  Stream(Model& model, nb::handle prompt, const trit_generate_options& options)
      : model_(model), prompt_(PromptFrom(prompt)), options_(options) {
    result_.struct_size = sizeof(result_);
    worker_ = std::thread([this] { Run(); });
  }
  ~Stream() {
    nb::gil_scoped_release no_gil;
    Stop();
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  // The next piece, or None when the generation has ended (raising its
  // error, once, if it failed).
  std::optional<nb::bytes> Next() {
    std::string piece;
    Outcome outcome;
    bool have_piece = false;
    {
      nb::gil_scoped_release no_gil;
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [this] { return !pieces_.empty() || done_; });
      if (!pieces_.empty()) {
        piece = std::move(pieces_.front());
        pieces_.pop_front();
        have_piece = true;
      } else {
        outcome = std::exchange(outcome_, Outcome{});
      }
    }
    if (have_piece) {
      space_.notify_one();
      return nb::bytes(piece.data(), piece.size());
    }
    Model::Check(outcome);
    return std::nullopt;
  }

  // Stops the generation and returns the text it made that next() has not
  // given yet (so the result's text is all of it).
  nb::bytes Close() {
    std::string rest;
    {
      nb::gil_scoped_release no_gil;
      Stop();
      std::lock_guard lock(mutex_);
      for (const std::string& p : pieces_) rest += p;
      pieces_.clear();
    }
    return nb::bytes(rest.data(), rest.size());
  }

  // The summary once the generation has ended successfully, else None.
  std::optional<Summary> Result() {
    std::lock_guard lock(mutex_);
    if (!done_ || failed_) return std::nullopt;
    return SummaryOf(result_, tokens_);
  }

 private:
  bool Stopping() const { return stop_.load() || model_.closing(); }

  static int OnPiece(const char* piece, size_t len, int32_t token, void* user_data) {
    auto* self = static_cast<Stream*>(user_data);
    {
      std::unique_lock lock(self->mutex_);
      // Model::Close cannot notify this stream, so the wait polls for it.
      while (self->pieces_.size() >= kQueued && !self->Stopping()) {
        self->space_.wait_for(lock, std::chrono::milliseconds(20));
      }
      if (token != TRIT_NO_TOKEN) self->tokens_.push_back(token);
      if (len > 0) self->pieces_.emplace_back(piece, len);
    }
    self->ready_.notify_one();
    return self->Stopping() ? 0 : 1;
  }

  void Run() {
    Outcome outcome = model_.CallNoGil(
        [this](const trit_model* m) { return GenerateWith(m, prompt_, options_, OnPiece, this, &result_); });
    {
      std::lock_guard lock(mutex_);
      failed_ = outcome.closed || outcome.status != TRIT_STATUS_OK;
      outcome_ = std::move(outcome);
      done_ = true;
    }
    ready_.notify_all();
  }

  void Stop() {
    stop_.store(true);
    space_.notify_all();
    if (worker_.joinable()) worker_.join();
  }

  Model& model_;  // kept alive by the Python object (keep_alive in the binding)
  const Prompt prompt_;
  const trit_generate_options options_;
  std::thread worker_;
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::condition_variable ready_;  // a piece was queued, or the generation ended
  std::condition_variable space_;  // a piece was taken, or the stream stops
  std::deque<std::string> pieces_;
  std::vector<int32_t> tokens_;
  trit_generate_result result_{};
  Outcome outcome_;
  bool done_ = false;
  bool failed_ = false;
};

using IdArray = nb::ndarray<const int32_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using FloatMatrix = nb::ndarray<nb::numpy, float, nb::ndim<2>>;

// A float buffer handed to numpy, freed when the array is.
FloatMatrix NumpyMatrix(std::unique_ptr<float[]> data, size_t rows, size_t cols) {
  float* raw = data.release();
  nb::capsule owner(raw, [](void* p) noexcept { delete[] static_cast<float*>(p); });
  return FloatMatrix(raw, {rows, cols}, owner);
}

FloatMatrix Verify(Model& model, IdArray ids, int64_t n_vocab) {
  const size_t n = ids.shape(0);
  const size_t count = n * static_cast<size_t>(n_vocab);
  // An empty sequence is the C API's to refuse (with its message); no buffer then.
  std::unique_ptr<float[]> logits(new float[count == 0 ? 1 : count]);
  const int32_t* data = ids.data();
  model.Call([&](const trit_model* m) { return trit_verify(m, data, n, logits.get(), count); });
  return NumpyMatrix(std::move(logits), n, static_cast<size_t>(n_vocab));
}

FloatMatrix Embed(Model& model, const std::vector<std::string>& texts) {
  std::vector<std::vector<float>> rows(texts.size());
  model.Call([&](const trit_model* m) {
    for (size_t i = 0; i < texts.size(); ++i) {
      size_t n = 0;
      trit_status s = trit_embed(m, texts[i].data(), texts[i].size(), nullptr, 0, &n);
      if (s != TRIT_STATUS_OK && s != TRIT_STATUS_BUFFER_TOO_SMALL) return s;
      rows[i].resize(n);
      s = trit_embed(m, texts[i].data(), texts[i].size(), rows[i].data(), rows[i].size(), &n);
      if (s != TRIT_STATUS_OK) return s;
    }
    return TRIT_STATUS_OK;
  });
  const size_t dim = rows.empty() ? 0 : rows[0].size();
  std::unique_ptr<float[]> out(new float[texts.size() * dim + 1]);
  for (size_t i = 0; i < rows.size(); ++i) std::copy(rows[i].begin(), rows[i].end(), out.get() + i * dim);
  return NumpyMatrix(std::move(out), texts.size(), dim);
}

std::vector<int32_t> Tokenize(Model& model, const std::string& text, uint32_t flags) {
  std::vector<int32_t> ids;
  model.Call([&](const trit_model* m) {
    // One pass as a rule: a token covers at least one byte, plus BOS/EOS.
    // Only a tokenizer that breaks that bound costs a second pass.
    size_t n = 0;
    ids.resize(text.size() + 4);
    trit_status s = trit_tokenize(m, text.data(), text.size(), flags, ids.data(), ids.size(), &n);
    if (s == TRIT_STATUS_BUFFER_TOO_SMALL) {
      ids.resize(n);
      s = trit_tokenize(m, text.data(), text.size(), flags, ids.data(), ids.size(), &n);
    }
    ids.resize(s == TRIT_STATUS_OK ? n : 0);
    return s;
  });
  return ids;
}

nb::bytes Detokenize(Model& model, const std::vector<int32_t>& ids, uint32_t flags) {
  std::string text;
  model.Call([&](const trit_model* m) {
    return ReadText([&](char* out, size_t cap, size_t* n) { return trit_detokenize(m, ids.data(), ids.size(), flags, out, cap, n); },
                    &text);
  });
  return nb::bytes(text.data(), text.size());
}

nb::bytes TokenToPiece(Model& model, int32_t token, uint32_t flags) {
  std::string text;
  model.Call([&](const trit_model* m) {
    return ReadText([&](char* out, size_t cap, size_t* n) { return trit_token_to_piece(m, token, flags, out, cap, n); },
                    &text);
  });
  return nb::bytes(text.data(), text.size());
}

std::string RenderChat(Model& model, const std::vector<std::pair<std::string, std::string>>& messages,
                       bool add_generation_prompt) {
  std::vector<trit_chat_message> c_messages;
  for (const auto& [role, content] : messages) c_messages.push_back({role.c_str(), content.c_str()});
  std::string text;
  model.Call([&](const trit_model* m) {
    return ReadText(
        [&](char* out, size_t cap, size_t* n) {
          return trit_chat_render(m, c_messages.data(), c_messages.size(), add_generation_prompt ? 1 : 0, out, cap, n);
        },
        &text);
  });
  return text;
}

// The model's fixed facts, read once (they never change while it is loaded).
nb::dict Info(Model& model) {
  std::string path, engine, architecture;
  int64_t n_vocab = 0, n_ctx_train = 0, n_ctx = 0, n_embd = 0, n_layer = 0;
  int32_t bos = TRIT_NO_TOKEN, eos = TRIT_NO_TOKEN;
  bool chat = false;
  std::vector<std::pair<std::string, std::string>> metadata;
  model.Call([&](const trit_model* m) {
    path = trit_model_path(m);
    engine = trit_model_engine(m);
    architecture = trit_model_architecture(m);
    n_vocab = trit_model_n_vocab(m);
    n_ctx_train = trit_model_n_ctx_train(m);
    n_ctx = trit_model_n_ctx(m);
    n_embd = trit_model_n_embd(m);
    n_layer = trit_model_n_layer(m);
    bos = trit_model_token_bos(m);
    eos = trit_model_token_eos(m);
    chat = trit_model_has_chat_template(m) != 0;
    for (size_t i = 0; i < trit_model_meta_count(m); ++i) {
      const char* key = trit_model_meta_key(m, i);
      std::string value;
      const trit_status s = ReadText([&](char* out, size_t cap, size_t* n) { return trit_model_meta_string(m, key, out, cap, n); },
                                     &value);
      if (s == TRIT_STATUS_UNSUPPORTED) continue;  // an array: only scalars are given as text
      if (s != TRIT_STATUS_OK) return s;
      metadata.emplace_back(key, std::move(value));
    }
    return TRIT_STATUS_OK;
  });
  nb::dict info;
  info["path"] = path;
  info["engine"] = engine;
  info["architecture"] = architecture;
  info["n_vocab"] = n_vocab;
  info["n_ctx_train"] = n_ctx_train;
  info["n_ctx"] = n_ctx;
  info["n_embd"] = n_embd;
  info["n_layer"] = n_layer;
  const auto token = [](int32_t id) { return id == TRIT_NO_TOKEN ? nb::object(nb::none()) : nb::object(nb::int_(id)); };
  info["bos"] = token(bos);
  info["eos"] = token(eos);
  info["has_chat_template"] = chat;
  nb::dict meta;
  for (const auto& [key, value] : metadata) meta[nb::bytes(key.data(), key.size()).attr("decode")("utf-8", "replace")] =
      nb::bytes(value.data(), value.size()).attr("decode")("utf-8", "replace");
  info["metadata"] = meta;
  return info;
}

bool IsEndOfGeneration(Model& model, int32_t token) {
  bool end = false;
  model.Call([&](const trit_model* m) {
    end = trit_model_token_is_end_of_generation(m, token) != 0;
    return TRIT_STATUS_OK;
  });
  return end;
}

}  // namespace

NB_MODULE(_trit, m) {
  m.doc() = "trit's C API for Python (internal: use the trit package)";
  m.attr("ABI_VERSION") = TRIT_ABI_VERSION;
  m.def("abi_version", &trit_abi_version);
  m.def("library_version", [] { return std::string(trit_version()); });
  m.attr("TOKENIZE_ADD_SPECIAL") = TRIT_TOKENIZE_ADD_SPECIAL;
  m.attr("TOKENIZE_PARSE_SPECIAL") = TRIT_TOKENIZE_PARSE_SPECIAL;
  m.attr("DETOKENIZE_REMOVE_SPECIAL") = TRIT_DETOKENIZE_REMOVE_SPECIAL;
  m.attr("DETOKENIZE_RENDER_SPECIAL") = TRIT_DETOKENIZE_RENDER_SPECIAL;
  m.attr("SEED_RANDOM") = TRIT_SEED_RANDOM;

  nb::class_<trit_generate_options>(m, "GenerateOptions")
      .def("__init__", [](trit_generate_options* o) {
        new (o) trit_generate_options;
        trit_generate_options_default(o);
      })
      .def_rw("max_tokens", &trit_generate_options::max_tokens)
      .def_rw("temperature", &trit_generate_options::temperature)
      .def_rw("top_k", &trit_generate_options::top_k)
      .def_rw("top_p", &trit_generate_options::top_p)
      .def_rw("min_p", &trit_generate_options::min_p)
      .def_rw("repeat_penalty", &trit_generate_options::repeat_penalty)
      .def_rw("frequency_penalty", &trit_generate_options::frequency_penalty)
      .def_rw("presence_penalty", &trit_generate_options::presence_penalty)
      .def_rw("penalty_last_n", &trit_generate_options::penalty_last_n)
      .def_rw("seed", &trit_generate_options::seed)
      .def_rw("stop_at_end_of_generation", &trit_generate_options::stop_at_end_of_generation)
      .def_rw("tokenize_flags", &trit_generate_options::tokenize_flags);

  nb::class_<Summary>(m, "Summary")
      .def_ro("n_prompt_tokens", &Summary::n_prompt_tokens)
      .def_ro("n_generated", &Summary::n_generated)
      .def_ro("stop", &Summary::stop)
      .def_ro("seed", &Summary::seed)
      .def_ro("tokens", &Summary::tokens);

  nb::class_<Model>(m, "Model")
      .def(nb::init<const std::string&, const std::optional<std::string>&, int32_t, int64_t>(), nb::arg("model"),
           nb::arg("engine").none(), nb::arg("threads"), nb::arg("n_ctx"))
      .def("close", &Model::Close)
      .def_prop_ro("closed", &Model::closed)
      .def("info", &Info, nb::sig("def info(self) -> dict[str, typing.Any]"))
      .def("tokenize", &Tokenize)
      .def("detokenize", &Detokenize)
      .def("token_to_piece", &TokenToPiece)
      .def("is_end_of_generation", &IsEndOfGeneration)
      .def("render_chat", &RenderChat)
      .def("generate", &Generate)
      .def("stream", [](Model& model, nb::handle prompt, const trit_generate_options& options) {
             return new Stream(model, prompt, options);
           }, nb::keep_alive<0, 1>(), nb::rv_policy::take_ownership)
      .def("verify", &Verify)
      .def("embed", &Embed);

  nb::class_<Stream>(m, "Stream")
      .def("next", &Stream::Next)
      .def("close", &Stream::Close)
      .def("result", &Stream::Result);
}
