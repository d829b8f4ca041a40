// A request's answer, collected from its channel's events: the scheduler
// tests compare answers whole (text, logprobs, finish, counts).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "server/request_channel.h"

namespace trit::server {

struct Answer {
  std::string text;
  std::vector<float> logprobs;
  FinishReason finish = FinishReason::kNone;
  int64_t n_generated = 0;
  int64_t n_cached = 0;
};

inline Answer Collect(RequestChannel& channel) {
  Answer a;
  for (;;) {
    for (Event& e : channel.Wait(std::chrono::milliseconds(1000))) {
      a.text += e.text;
      for (const TokenLogprob& t : e.logprobs) a.logprobs.push_back(t.logprob);
      if (e.done) {
        a.finish = e.finish;
        a.n_generated = e.n_generated;
        a.n_cached = e.n_cached;
        return a;
      }
    }
  }
}

}  // namespace trit::server
