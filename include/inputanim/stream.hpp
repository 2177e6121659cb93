// The streaming validator: the report of `validate` over bytes that arrive in chunks of any size
// (an upload), in a fixed few kilobytes and without allocating. docs/STREAMING.md has the design.
//
//     inputanim::stream_validator v(options);
//     while (auto chunk = receive()) {
//         if (v.feed(*chunk) == inputanim::stream_status::error) break;  // cut the upload
//     }
//     const inputanim::report& r = v.finish();
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "inputanim/error.hpp"
#include "inputanim/format.hpp"
#include "inputanim/reader.hpp"
#include "inputanim/validate.hpp"

namespace inputanim {

// What `stream_validator::feed` tells the caller.
enum class stream_status : std::uint8_t {
    // No verdict yet: feed more bytes, or finish() at the end of the input.
    more,
    // The verdict is final and it is an error: result() holds it; further bytes are ignored.
    error,
    // The marker list is complete, so the file is whole: one more byte would be trailing_bytes.
    // finish() gives the verdict (content errors and warnings are already known).
    done,
};

// Push-style validation with the verdict of `validate(bytes, options)`: the same error (code,
// offset, place, curve, index, limit), summary and warnings, except non_unit_quaternion (it
// needs the keys of four curves side by side; see docs/STREAMING.md). Nothing is allocated and
// nothing is kept of the input but a field of at most 28 bytes that straddles two chunks, so a
// stream_validator is a few kilobytes wherever it lives. Copyable: a copy goes on independently
// (a snapshot of a stream in progress).
class stream_validator {
  public:
    explicit stream_validator(const validate_options& options = {}) noexcept;

    // The next bytes of the input, any number. Returns `error` as soon as the verdict is known
    // to be an error that more bytes cannot change; bytes fed after that, or after finish(), are
    // ignored.
    stream_status feed(std::span<const std::byte> chunk) noexcept;
    // The end of the input: decides what only the end can tell (a truncated file, the layout of
    // a v1.1 file read with `automatic`, content errors, warnings). Calling it again is harmless.
    const report& finish() noexcept;

    // The verdict once feed returned `error` or finish() was called; an empty report before.
    const report& result() const noexcept { return report_; }
    stream_status status() const noexcept { return status_; }
    bool finished() const noexcept { return finished_; }
    // Bytes taken by feed() up to the verdict (summary.bytes holds the same at the end).
    std::uint64_t bytes_consumed() const noexcept { return consumed_; }
    // The header the file is read with if it turns out valid, as soon as no byte to come can
    // change it: after the header for a v1.0 file or a layout asked for by name; for a v1.1 file
    // under `automatic`, once one layout's walk is left (the other's usually fails within the
    // first curves); for a file without the magic never, since only its end tells a 2019 layout.
    // nullopt before, and once the verdict is an error. A consumer of the bytes in file order
    // (the streaming conversion) can start on them from then on.
    std::optional<file_header> layout_known() const noexcept;

  private:
    // The walks of the layouts a file may be in (one per candidate of the layout choice), private
    // to the library: stream.cpp constructs them in walks_, copies them and reaches them with
    // walk(). Their bytes are here so that a validator allocates nothing and stays copyable.
    static constexpr std::size_t walk_bytes = 3648;
    static constexpr std::size_t max_walks = 3;
    struct walk_slots {
        walk_slots() noexcept;
        walk_slots(const walk_slots& other) noexcept;
        walk_slots& operator=(const walk_slots& other) noexcept;
        ~walk_slots() = default;
        alignas(8) std::array<std::byte, max_walks * walk_bytes> bytes;
    };

    template <typename Self>
    static auto& walk(Self& v, std::size_t i) noexcept;
    void feed_header(const std::byte*& p, std::size_t& n) noexcept;
    template <typename Candidates>
    void start_walks(const Candidates& c) noexcept;
    bool start_named_2019() noexcept;
    void fail_header(errc code, std::uint64_t offset) noexcept;
    void update_status() noexcept;
    // The index of the walk FORMAT.md sections 3 and 9 choose (the rule module's choose_walk);
    // walk_count_ when no 2019 layout was detected.
    std::size_t chosen() const noexcept;
    void conclude() noexcept;

    validate_options options_{};
    // The 16-byte header and the three v1.1 flags, gathered across chunks.
    std::array<std::byte, header_size + 3> header_{};
    std::uint8_t header_size_ = 0;
    bool header_done_ = false;
    walk_slots walks_;
    std::uint8_t walk_count_ = 0;
    // The walks are the 2019 layouts tried on a file without the magic: the first sound one is
    // the file's, and none is bad_magic.
    bool detecting_ = false;

    std::uint64_t consumed_ = 0;
    stream_status status_ = stream_status::more;
    bool finished_ = false;
    report report_{};
};

}  // namespace inputanim
