// One walk of a recording's curves and marker list under one fixed header, fed a byte range at a
// time: the engine of stream_validator (inputanim/stream.hpp), which keeps its walks in storage of
// its own so that the class stays private to the library and a validator allocates nothing.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "inputanim/detail/decoders.hpp"
#include "inputanim/error.hpp"
#include "inputanim/format.hpp"
#include "inputanim/reader.hpp"
#include "inputanim/recording.hpp"
#include "inputanim/validate.hpp"

namespace inputanim {

namespace detail {

// One walk of the curves and the marker list (or the May 2019 trailer) under one fixed header,
// fed a byte range at a time. It keeps its first structural error (which ends the walk) and,
// separately, its first content error (the walk goes on: a structural error further on would
// win). Internal to stream_validator, which runs one walk per candidate of the layout choice
// (detail::layout_candidates: one, two or three).
class layout_walk {
  public:
    // With `defer_limits`, a limit passed does not stop the walk: the walk goes on as if there
    // were none and keeps the first limit passed (limit_error), which is the file's error if the
    // walk turns out sound. That is how the reader detects a 2019 layout: whether the whole file
    // is of the layout, whatever the limits, then the limits.
    // The walk under `h` from the curve at `offset`.
    void start(const file_header& h, std::uint64_t offset, bool content, const limits& lim,
               bool defer_limits = false) noexcept;
    void feed(const std::byte* p, std::size_t n) noexcept;
    // The end of the input: a field left half read is `truncated`.
    void finish() noexcept;

    bool failed() const noexcept { return structural_.code != errc::ok; }
    bool complete() const noexcept { return state_ == state::end; }
    const error& structural_error() const noexcept { return structural_; }
    const error& content_error() const noexcept { return content_; }
    const error& limit_error() const noexcept { return limit_; }
    const file_header& header() const noexcept { return header_; }
    // What validate's summary holds from the walk: the counts of the curves read whole, etc.
    void fill(summary& s) const noexcept;
    // negative_time and dropped_rotation_w for a walk that ended without error.
    void add_warnings(report& r) const noexcept;

  private:
    enum class state : std::uint8_t {
        curve_header,
        keyframe,
        marker_list,
        marker_time,
        name_length,
        name,
        trailer,
        end,
        failed
    };
    // What the warnings need from one curve, filled when its last key has been read.
    struct tally {
        std::uint32_t keys = 0;
        float first_time = 0.0f;
    };

    std::size_t field_size() const noexcept;
    void on_field(const std::byte* f) noexcept;
    void on_curve_header(const std::byte* f) noexcept;
    void on_keyframe(const std::byte* f) noexcept;
    void on_marker_list(const std::byte* f) noexcept;
    void on_marker_time(const std::byte* f) noexcept;
    void on_length_byte(std::uint8_t b) noexcept;
    void on_name(const std::byte* p, std::size_t n) noexcept;
    void on_trailer(const std::byte* p, std::size_t n) noexcept;
    // A limit passed at `offset`: true when the walk stopped there (it failed); false when the
    // limits are deferred, and the walk goes on.
    bool stop_at_limit(errc code, std::uint64_t offset, error_place place, std::int64_t index,
                       limit_kind limit) noexcept;
    void begin_curve() noexcept;
    void end_curve() noexcept;
    void begin_marker() noexcept;
    void end_marker() noexcept;
    void fail(errc code, std::uint64_t offset, error_place place, std::int64_t index = -1,
              limit_kind limit = limit_kind::none) noexcept;
    void content_fault(errc code, std::uint64_t offset, error_place place,
                       std::int64_t index) noexcept;

    // Options.
    file_header header_{};
    bool content_checks_ = true;
    limits limits_{};
    bool defer_limits_ = false;

    state state_ = state::end;
    // Offset of the first byte of the field being read; the carry holds its bytes seen so far
    // when it straddles chunks (a keyframe, at most 28 bytes, is the largest field).
    std::uint64_t field_offset_ = 0;
    std::array<std::byte, full_keyframe_size> carry_{};
    std::uint8_t carry_size_ = 0;

    // The curve being read.
    std::uint16_t curve_count_ = 0;
    curve_id curve_{};
    curve_kind kind_ = curve_kind::float_curve;
    std::uint8_t stride_ = 0;
    std::uint64_t curve_offset_ = 0;
    std::uint32_t key_count_ = 0;
    std::uint32_t keys_read_ = 0;
    float first_time_ = 0.0f;
    float last_time_ = 0.0f;

    // The curves read whole, and the marker count once read.
    walk_totals totals_{};
    std::array<tally, curve_id_count> tallies_{};

    // The marker list.
    std::uint32_t marker_index_ = 0;
    std::uint64_t marker_offset_ = 0;
    std::uint64_t length_offset_ = 0;
    std::uint64_t name_offset_ = 0;
    std::uint64_t name_left_ = 0;
    length_decoder length_{};
    utf8_decoder utf8_{};
    bool name_valid_ = true;

    // What fill() reports of a walk whose deferred limit is the file's error: the walk as it was
    // when the limit passed, where the reader's walk under the limits would have stopped.
    walk_totals at_limit_{};

    // The May 2019 trailer: its bytes seen so far and the last of them.
    std::uint64_t trailer_offset_ = 0;
    std::uint64_t trailer_seen_ = 0;
    std::uint8_t trailer_last_ = 0;

    error structural_{};
    error content_{};
    error limit_{};
};

}  // namespace detail

}  // namespace inputanim
