#pragma once
// The reason a run that a person stopped ends with (spec "Stop"): builder turns (the stream's
// abort chunk) and app agent runs (the run's error, on the web and in the worker's callback)
// say the same sentence, which clients show as it is.
#include <string_view>

namespace platform {

inline constexpr std::string_view user_stop_reason = "Stopped by the user.";

// The run's `stopReason` for it (issue 34): the run stays `failed`, as the spec says, and the
// page says "Stopped by you" rather than showing a failure.
inline constexpr std::string_view user_stop_code = "user";

}  // namespace platform
