// The pull parser: walks a whole buffer's layout and yields views. Forward-only, no allocation,
// errors as values. Every count is checked against the bytes left before anything is yielded; the
// rules themselves are lib/detail/rules.hpp's, shared with the push walker (stream.hpp).
//
//     inputanim::reader r(bytes);
//     for (auto item = r.next(); item == inputanim::item::curve; item = r.next()) { ... }
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "inputanim/error.hpp"
#include "inputanim/format.hpp"
#include "inputanim/limits.hpp"
#include "inputanim/views.hpp"

namespace inputanim {

// The error of a recording of `size` bytes under `lim` (limit_exceeded for max_bytes, where the
// reader and the validators report it), or none: for a tool that stops taking bytes itself (an
// upload, a source held in memory) and says so as they would.
error size_error(std::uint64_t size, const limits& lim) noexcept;

struct read_options {
    // compact and full apply to v1.1 files (v1.0 files are always `full`); june_2019 and may_2019
    // read the file as that layout whatever its first bytes.
    layout_choice layout = layout_choice::automatic;
    inputanim::limits limits{};
};

struct file_header {
    inputanim::edition edition = edition::v1;
    // 1.0 or 1.1 for v1 files; 0.0 for the 2019 layouts, which carry no version.
    int major = 0;
    int minor = 0;
    inputanim::layout layout = layout::full;
    // The 2019 layouts hold what v1.0 holds: camera and hands.
    block_flags blocks{};
    std::uint16_t curve_count = 0;
    // 8, or 28 in the May 2019 files that wrote their bool curves with full keyframes.
    std::uint8_t bool_key_size = bool_keyframe_size;
};

// "1.0", "1.1", "2019-06", "2019-05": the version reports and the index give a file; empty when
// no header was read (major 0 of edition v1).
std::string_view version_name(edition e, int major, int minor) noexcept;
// The choice that reads a file as it was read when it gave header `h`, without detecting again.
layout_choice choice_of(const file_header& h) noexcept;
// Whether a file whose first bytes are `head` (8 of them, or fewer when that is the whole file)
// may be a 2019 layout under layout `automatic`: no magic, and the first curve's two wrap modes.
// Only a walk of the whole file can say that it is one. A tool sorting recordings from other
// files asks this before it reads a file without the magic.
bool may_be_2019(std::span<const std::byte> head) noexcept;

// What `reader::next` reached.
enum class item : std::uint8_t { curve, marker, end, error };

class reader {
  public:
    explicit reader(std::span<const std::byte> bytes, const read_options& options = {}) noexcept;

    // Reads the header (and, where the layout choice has candidates to choose between: a v1.1
    // file under `automatic`, May 2019, a file without the magic, walks the curve headers to
    // pick the layout). Called by the first `next` if not called before.
    const inputanim::error& open() noexcept;

    // The next curve, then each marker, then `end`, or `error` at the first structural error.
    // After `end` or `error` it keeps returning the same.
    item next() noexcept;

    // Valid after `next` returned curve / marker / error respectively.
    const curve_view& curve() const noexcept { return curve_; }
    const marker_view& marker() const noexcept { return marker_; }
    const inputanim::error& error() const noexcept { return error_; }

    // Valid once open succeeded.
    const file_header& header() const noexcept { return header_; }
    // Valid once the curves are done: whether the file has a marker list, and its count.
    bool has_marker_list() const noexcept { return has_markers_; }
    std::uint32_t marker_count() const noexcept { return marker_count_; }
    // Sum of the keyframe counts of the curves yielded so far.
    std::uint64_t total_keyframes() const noexcept { return total_keys_; }

    std::span<const std::byte> bytes() const noexcept { return bytes_; }
    // Offset of the next unread byte.
    std::uint64_t position() const noexcept { return pos_; }

  private:
    enum class state : std::uint8_t { start, curves, marker_list, markers, done, failed };

    item fail(errc code, std::uint64_t offset, error_place place, std::int64_t index = -1,
              limit_kind limit = limit_kind::none) noexcept;
    bool fail_header(errc code, std::uint64_t offset) noexcept;
    // The size ceiling, then the walk options_.layout chooses (detail::layout_candidates and
    // detail::choose_walk), or the header's error.
    bool read_header() noexcept;
    // The error a walk of the whole file under `h` from `first` ends with (ok when sound).
    inputanim::error walk_as(const file_header& h, std::uint64_t first,
                             const inputanim::limits& lim) const noexcept;
    item next_curve() noexcept;
    item next_marker_list() noexcept;
    item next_marker() noexcept;
    std::size_t remaining() const noexcept { return bytes_.size() - pos_; }

    std::span<const std::byte> bytes_;
    read_options options_;
    file_header header_{};
    state state_ = state::start;
    std::uint64_t pos_ = 0;
    std::uint16_t next_curve_ = 0;
    std::uint32_t marker_count_ = 0;
    std::uint32_t next_marker_ = 0;
    bool has_markers_ = false;
    std::uint64_t total_keys_ = 0;
    curve_view curve_{};
    marker_view marker_{};
    inputanim::error error_{};
};

}  // namespace inputanim
