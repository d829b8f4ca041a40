#include "store/progress_printer.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>

#include "base/units.h"

namespace trit::store {
namespace {

using Clock = std::chrono::steady_clock;

double Rate(const PullEvent& e) { return e.seconds > 0 ? static_cast<double>(e.session_bytes) / e.seconds : 0; }

// "45% 12.3 MiB of 27.0 MiB, 3.2 MiB/s, ETA 0:05" (the parts that are known).
std::string ProgressText(const PullEvent& e) {
  const double rate = Rate(e);
  std::string text;
  if (e.total.has_value() && *e.total > 0) {
    text = fmt::format("{:3}% {} of {}", e.bytes * 100 / *e.total, FormatBytes(e.bytes), FormatBytes(*e.total));
  } else {
    text = FormatBytes(e.bytes);
  }
  if (rate > 0) text += fmt::format(", {}/s", FormatBytes(static_cast<uint64_t>(rate)));
  if (rate > 0 && e.total.has_value() && *e.total >= e.bytes) {
    text += fmt::format(", ETA {}", FormatDuration(static_cast<double>(*e.total - e.bytes) / rate));
  }
  return text;
}

class Printer {
 public:
  Printer(ProgressStyle style, std::FILE* out) : style_(style), out_(out) {}

  void operator()(const PullEvent& e) {
    switch (style_) {
      case ProgressStyle::kJson: return Json(e);
      case ProgressStyle::kBar: return Bar(e);
      case ProgressStyle::kLines: return Line(e);
    }
  }

 private:
  bool Due(double interval) {
    const Clock::time_point now = Clock::now();
    if (std::chrono::duration<double>(now - last_).count() < interval) return false;
    last_ = now;
    return true;
  }

  void Json(const PullEvent& e) {
    const bool final_progress = e.kind == PullEvent::Kind::kProgress && e.total.has_value() && e.bytes == *e.total;
    if (e.kind == PullEvent::Kind::kProgress && !final_progress && !Due(0.25)) return;
    nlohmann::ordered_json j;
    j["event"] = PullEventKindName(e.kind);
    j["name"] = e.name;
    if (!e.message.empty()) j["message"] = e.message;
    j["bytes"] = e.bytes;
    j["total"] = e.total.has_value() ? nlohmann::ordered_json(*e.total) : nlohmann::ordered_json(nullptr);
    if (e.kind == PullEvent::Kind::kProgress) j["bytes_per_second"] = static_cast<uint64_t>(Rate(e));
    fmt::print(out_, "{}\n", j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
    std::fflush(out_);
  }

  void Bar(const PullEvent& e) {
    if (e.kind == PullEvent::Kind::kProgress) {
      const bool final_progress = e.total.has_value() && e.bytes == *e.total;
      if (!final_progress && !Due(0.1)) return;
      constexpr int kWidth = 30;
      std::string bar;
      if (e.total.has_value() && *e.total > 0) {
        const int filled = static_cast<int>(static_cast<double>(e.bytes) / static_cast<double>(*e.total) * kWidth);
        const int n = std::min(filled, kWidth);
        bar = fmt::format("[{:#<{}}{:.<{}}] ", "", n, "", kWidth - n);
      }
      fmt::print(out_, "\r{} {}{}\033[K", e.name, bar, ProgressText(e));
      std::fflush(out_);
      bar_open_ = true;
      return;
    }
    EndBar();
    Message(e);
  }

  void Line(const PullEvent& e) {
    if (e.kind == PullEvent::Kind::kProgress) {
      // Every 10% when the size is known, every 10 s otherwise.
      if (e.total.has_value() && *e.total > 0) {
        const uint64_t decile = e.bytes * 10 / *e.total;
        if (decile <= last_decile_ && e.bytes != *e.total) return;
        if (e.bytes == *e.total && last_decile_ == 10) return;
        last_decile_ = decile;
      } else if (!Due(10)) {
        return;
      }
      fmt::print(out_, "pull {}: {}\n", e.name, ProgressText(e));
      std::fflush(out_);
      return;
    }
    Message(e);
  }

  void Message(const PullEvent& e) {
    switch (e.kind) {
      case PullEvent::Kind::kStart:
        last_decile_ = 0;
        fmt::print(out_, "pull {}: {}{}\n", e.name, e.message,
                   e.total.has_value() ? fmt::format(" ({})", FormatBytes(*e.total)) : "");
        break;
      case PullEvent::Kind::kDone:
        fmt::print(out_, "pull {}: done, {} at {}\n", e.name, FormatBytes(e.bytes), e.message);
        break;
      case PullEvent::Kind::kVerify:
      case PullEvent::Kind::kWaiting:
      case PullEvent::Kind::kResume:
      case PullEvent::Kind::kRestart:
      case PullEvent::Kind::kAlreadyPresent:
        fmt::print(out_, "pull {}: {}\n", e.name, e.message);
        break;
      case PullEvent::Kind::kProgress:
        break;
    }
    std::fflush(out_);
  }

  void EndBar() {
    if (bar_open_) fmt::print(out_, "\n");
    bar_open_ = false;
  }

  ProgressStyle style_;
  std::FILE* out_;
  Clock::time_point last_{};
  uint64_t last_decile_ = 0;
  bool bar_open_ = false;
};

}  // namespace

const char* PullEventKindName(PullEvent::Kind kind) {
  switch (kind) {
    case PullEvent::Kind::kWaiting: return "waiting";
    case PullEvent::Kind::kStart: return "start";
    case PullEvent::Kind::kResume: return "resume";
    case PullEvent::Kind::kRestart: return "restart";
    case PullEvent::Kind::kProgress: return "progress";
    case PullEvent::Kind::kVerify: return "verify";
    case PullEvent::Kind::kAlreadyPresent: return "already_present";
    case PullEvent::Kind::kDone: return "done";
  }
  return "?";
}

ProgressStyle DefaultProgressStyle(std::FILE* stream) {
  return ::isatty(::fileno(stream)) != 0 ? ProgressStyle::kBar : ProgressStyle::kLines;
}

PullObserver MakeProgressPrinter(ProgressStyle style, std::FILE* stream) {
  auto printer = std::make_shared<Printer>(style, stream);
  return [printer](const PullEvent& e) { (*printer)(e); };
}

}  // namespace trit::store
