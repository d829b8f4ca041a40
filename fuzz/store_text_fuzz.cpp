// libFuzzer entry point for the model store's parsers of untrusted text:
// manifests (store/manifest.h), model names and the names pulls derive from
// URLs and paths (store/model_name.h), Hub paths (store/source.h).
//
// Any input must parse or give an error, never crash. Promises checked: a
// derived name is a valid name; a parsed manifest re-serializes to the same
// manifest; a Hub path that resolves gives an https://huggingface.co URL.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/check.h"
#include "store/manifest.h"
#include "store/model_name.h"
#include "store/source.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trit::store;
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  if (trit::Expected<Manifest> m = ManifestFromJson(text); m.ok()) {
    TRIT_CHECK(ValidateModelName(m->name).ok());
    trit::Expected<Manifest> again = ManifestFromJson(ManifestToJson(*m));
    TRIT_CHECK(again.ok());
    TRIT_CHECK(again->name == m->name && again->source == m->source && again->size == m->size &&
               again->sha256 == m->sha256 && again->added == m->added);
  }
  if (trit::Expected<std::string> name = NameFromSource(text); name.ok()) {
    TRIT_CHECK(ValidateModelName(*name).ok());
  }
  if (ValidateModelName(text).ok()) {
    TRIT_CHECK(text.find('/') == std::string_view::npos && text != ".." && text[0] != '.');
  }
  if (trit::Expected<std::string> url = HubDownloadUrl(text); url.ok()) {
    TRIT_CHECK(url->starts_with("https://huggingface.co/") && IsHttpUrl(*url));
  }
  return 0;
}
