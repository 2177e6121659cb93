// The JSON of a comparison (docs/DIFF.md, "JSON"), for `inputanim diff --format json` and for any
// other front end that reports one.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "inputanim/compare.hpp"

namespace inputanim::tools {

// {"same", "a", "b" (summary_json of each side), "tolerance", "grid", "structure", "motion",
// "tracking_mismatch_rows", "state", "markers", "keys"}: every field documented in docs/DIFF.md.
// Times are the float32 times of the grid rows (json_number); errors that are not finite are null.
nlohmann::json compare_json(const comparison& c);

// What to do about a refused alignment, to follow its message: `offset` and `rate` name the
// front end's options ("--offset" and "--rate", or Python's "offset=" and "rate").
std::string align_hint(align_error e, std::string_view offset, std::string_view rate);

}  // namespace inputanim::tools
