// What the importers share (import.hpp): each reads its format into a model and ends with
// finish_import, the one check of what it built; refusals are made one way.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "inputanim/import.hpp"

namespace inputanim::detail {

import_result import_anim(std::span<const std::byte> bytes, model& out,
                          const import_options& options);
// `binary`: a .glb container; else glTF's JSON.
import_result import_gltf(std::span<const std::byte> bytes, bool binary, model& out,
                          const import_options& options, import_files* files);
import_result import_csv(std::span<const std::byte> bytes, model& out,
                         const import_options& options);

// A refusal with its detail for a person.
import_result refuse(import_error e, std::string detail = {});

// The ceilings on what the model will hold, taken before the keys or markers are read: each curve's
// key count as it becomes known, and the markers'.
class key_budget {
  public:
    explicit key_budget(const limits& l) noexcept : limits_(l) {}
    // Takes `count` keys for the curve named `what`; a refusal when they pass a ceiling.
    std::optional<import_result> take_keys(std::uint64_t count, std::string_view what);
    // Takes `count` markers; a refusal past max_markers.
    std::optional<import_result> take_markers(std::uint64_t count);

  private:
    const limits& limits_;
    std::uint64_t total_ = 0;
};

// The end of every import: the model as written is validated at level full with the options'
// limits (a key not finite, times that do not increase, a bool value other than 0 or 1, a limit,
// a marker name that is not UTF-8 are refused, with the curve and key in the detail); the layout
// becomes compact when every float key is MRTK's linear key, else full. `done` is the importer's
// result so far (its warnings are kept).
import_result finish_import(model& m, const import_options& options, import_result done);

}  // namespace inputanim::detail
