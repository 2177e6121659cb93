// One walk of a recording's curves and marker list under one fixed header, fed a byte range at a
// time, stepping through the walk plan of rules.hpp: the engine of stream_validator
// (inputanim/stream.hpp), which keeps its walks in storage of its own so that the class stays
// private to the library and a validator allocates nothing; of the streaming conversion
// (stream_converter), which writes what a walk visits; and of recording's walk by reads, which
// feeds a walk the bytes around each curve's boundaries and skips its keys.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "detail/rules.hpp"
#include "inputanim/detail/decoders.hpp"
#include "inputanim/error.hpp"
#include "inputanim/format.hpp"
#include "inputanim/reader.hpp"
#include "inputanim/recording.hpp"
#include "inputanim/validate.hpp"

namespace inputanim {

namespace detail {

// What a walk checks. `framing`: only what it needs to find the next field (the counts' sign,
// a name length's encoding and range, the end), under no limits: what the streaming conversion,
// which does not validate, refuses. `structure`: the rules of level structure. `content`: those
// of level full too.
enum class walk_checks : std::uint8_t { framing, structure, content };

// A curve header a walk found sound: the curve (its place in the walk), where its header starts,
// its wrap modes and its key count.
struct curve_start {
    walk_curve curve{};
    std::uint16_t index = 0;
    std::uint64_t offset = 0;
    std::int32_t pre_wrap = 0;
    std::int32_t post_wrap = 0;
    std::uint32_t keys = 0;
};

// What a walk hands on, in file order, to a driver that uses the file as it is walked: each curve
// header once found sound, the curve's keys in runs of whole keys, the curve's end (with its
// first key's time, 0 without keys), the end of the curves; the marker list (its offset and
// count), each marker's time and name length, its name in pieces, its end. Nothing of a field
// that failed, and nothing after. A driver hears only what it overrides.
class walk_visitor {
  public:
    virtual void curve(const curve_start&) {}
    virtual void keys(const std::byte*, std::size_t) {}
    virtual void curve_end(float) {}
    virtual void curves_end() {}
    virtual void marker_list(std::uint64_t, std::uint32_t) {}
    virtual void marker(float, std::uint64_t) {}
    virtual void name(const std::byte*, std::size_t) {}
    virtual void marker_end() {}

  protected:
    walk_visitor() = default;
    walk_visitor(const walk_visitor&) = default;
    walk_visitor& operator=(const walk_visitor&) = default;
    ~walk_visitor() = default;
};

// Takes into a header gathered so far (the `size` bytes at `gathered`, with room for
// v11_flags_offset + 3) as many of the `n` bytes at `p` as the header's rule asks for next, so
// that no byte of the first curve is taken. Returns the check of what is gathered: whole, wrong,
// or needing more than the bytes given.
header_check gather_header(std::byte* gathered, std::uint8_t& size, const std::byte*& p,
                           std::size_t& n) noexcept;

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
    // The walk under `h` from the curve at `offset`, handing what it finds to `visitor` (none:
    // null). Under walk_checks::framing, `lim` is ignored.
    void start(const file_header& h, std::uint64_t offset, walk_checks checks, const limits& lim,
               bool defer_limits = false, walk_visitor* visitor = nullptr);
    // Only a visitor's callbacks throw.
    void feed(const std::byte* p, std::size_t n);
    // The end of the input: a field left half read is `truncated`.
    void finish();
    // Inside a curve's keys, once its first has been fed: all but its last key skipped, unread
    // (for a walk without content checks, which needs no more of a curve than its first and last
    // key times); nothing elsewhere.
    void skip_keys() noexcept;

    bool failed() const noexcept { return structural_.code != errc::ok; }
    bool complete() const noexcept { return state_ == state::end; }
    // Whether every curve has been read whole (the marker list, or the trailer, is next).
    bool curves_read() const noexcept { return totals_.curves == curve_count_; }
    bool has_marker_list() const noexcept { return totals_.has_markers; }
    // The offset of the next byte the walk takes (outside May 2019's trailer).
    std::uint64_t next_offset() const noexcept { return field_offset_ + carry_size_; }
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
    void gather(const std::byte*& p, std::size_t& n);
    void on_field(const std::byte* f);
    void on_curve_header(const std::byte* f);
    // A run of `n` whole keys of the curve (as many as it still has, or fewer).
    void on_keys(const std::byte* p, std::size_t n);
    void check_key(const std::byte* f) noexcept;
    void on_marker_list(const std::byte* f);
    void on_marker_time(const std::byte* f) noexcept;
    void on_length_byte(std::uint8_t b);
    void on_name(const std::byte* p, std::size_t n);
    void on_trailer(const std::byte* p, std::size_t n) noexcept;
    // A limit passed at `offset`: true when the walk stopped there (it failed); false when the
    // limits are deferred, and the walk goes on.
    bool stop_at_limit(errc code, std::uint64_t offset, error_place place, std::int64_t index,
                       limit_kind limit) noexcept;
    void begin_curve();
    void end_curve();
    void begin_marker() noexcept;
    void end_marker();
    void fail(errc code, std::uint64_t offset, error_place place, std::int64_t index = -1,
              limit_kind limit = limit_kind::none) noexcept;
    void content_fault(errc code, std::uint64_t offset, error_place place,
                       std::int64_t index) noexcept;

    // Options.
    file_header header_{};
    walk_checks checks_ = walk_checks::content;
    limits limits_{};
    bool defer_limits_ = false;
    walk_visitor* visitor_ = nullptr;

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
    float marker_time_ = 0.0f;
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
