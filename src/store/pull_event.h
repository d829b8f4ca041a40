// What a pull tells its observer as it goes: the CLI draws a progress bar,
// prints plain lines or JSON events from these (progress_printer.h).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace trit::store {

struct PullEvent {
  enum class Kind {
    kWaiting,         // another process is pulling the same name; waiting for its lock
    kStart,           // fetching begins: "fetching URL" or "copying PATH"
    kResume,          // resuming a partial download at `bytes`
    kRestart,         // the partial could not be resumed; starting over (message says why)
    kProgress,        // bytes of total so far
    kVerify,          // hashing and checking the finished file
    kAlreadyPresent,  // nothing to do
    kDone,            // in place: message is the path
  };
  Kind kind = Kind::kProgress;
  std::string name;
  std::string message;
  uint64_t bytes = 0;
  std::optional<uint64_t> total;  // when known
  double seconds = 0;             // since the fetch started
  uint64_t session_bytes = 0;     // bytes fetched by this process (for the rate)
};

using PullObserver = std::function<void(const PullEvent&)>;

// "waiting", "start", ... as the JSON events name them.
const char* PullEventKindName(PullEvent::Kind kind);

}  // namespace trit::store
