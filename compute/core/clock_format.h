#pragma once

#include <string>

namespace ks {

/// The current time as ISO 8601 UTC with seconds: "2026-11-22T01:42:46Z".
std::string utcTimestamp();

/// A compact, sortable identifier for a run session: "20261122T014246-<pid>".
std::string sessionStamp();

} // namespace ks
