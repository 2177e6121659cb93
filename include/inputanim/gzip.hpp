// gzip input: recordings compressed with gzip (RFC 1952), recognized by their content and
// validated as they inflate, so that neither a .bin.gz file nor a compressed upload is ever
// inflated whole. zlib does the inflating. Only in builds with INPUTANIM_WITH_MAPPING (the I/O
// layer).
//
//     inputanim::gzip_validator v(options);
//     while (auto chunk = receive()) {                      // compressed bytes
//         if (v.feed(*chunk) == inputanim::stream_status::error) break;
//     }
//     const inputanim::report& r = v.finish();
//     if (v.gzip_fault()) { /* not a readable gzip stream: r is no verdict */ }
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "inputanim/stream.hpp"
#include "inputanim/validate.hpp"

namespace inputanim {

// True when `head` starts with gzip's two identification bytes, 1f 8b. A recording starts with
// c6 42 (its magic), so the two kinds of file never clash.
bool is_gzip(std::span<const std::byte> head) noexcept;

enum class gzip_errc : std::uint8_t {
    ok,
    // The input ended inside a gzip member, or held no member at all.
    truncated,
    // Not gzip, or damaged: a bad header, bad deflate data, a CRC or length that does not match,
    // or bytes after the last member that do not start another one.
    corrupt,
    // zlib could not allocate its state.
    no_memory,
};
// "gzip_truncated", "gzip_corrupt", "gzip_no_memory": stable, as the recording error codes.
std::string_view gzip_error_name(gzip_errc code) noexcept;

struct gzip_error {
    gzip_errc code = gzip_errc::ok;
    // Compressed bytes taken when the fault was found (zlib finds a fault at or shortly after
    // the damaged byte).
    std::uint64_t offset = 0;
    // zlib's own words for a `corrupt` stream ("incorrect data check", ...); static storage.
    const char* detail = "";

    explicit operator bool() const noexcept { return code != gzip_errc::ok; }
    // "the gzip stream is damaged (incorrect data check) after 1234 compressed bytes"
    std::string message() const;
};

// Push-style gzip decompression: compressed bytes in, any number at a time; the inflated bytes
// out to a sink, in pieces of at most `piece_size`. The sink can stop the inflation at any piece
// (a byte ceiling, a verdict already reached), so that a small input that inflates to terabytes
// (a "gzip bomb") costs at most one piece beyond what the sink accepted. Members written one
// after another (`cat a.gz b.gz`) are one stream, as gzip(1) reads them. Holds about 60 KiB
// (zlib's state and window, the piece buffer), allocated at the first write.
class gzip_inflater {
  public:
    static constexpr std::size_t piece_size = 16 * 1024;

    gzip_inflater() noexcept;
    gzip_inflater(gzip_inflater&&) noexcept;
    gzip_inflater& operator=(gzip_inflater&&) noexcept;
    gzip_inflater(const gzip_inflater&) = delete;
    gzip_inflater& operator=(const gzip_inflater&) = delete;
    ~gzip_inflater();

    // Inflates `compressed`, calling `sink(std::span<const std::byte>) -> bool` with each piece;
    // the sink returns false to stop. Returns false once the inflation has ended: a fault
    // (error()) or the sink's stop (stopped()); further input is then ignored. An exception from
    // the sink leaves through write (zlib's frames are not in its way).
    template <class Sink>
    bool write(std::span<const std::byte> compressed, Sink&& sink) {
        using callable = std::remove_reference_t<Sink>;
        return write_to(
            compressed,
            [](void* context, std::span<const std::byte> piece) {
                return (*static_cast<callable*>(context))(piece);
            },
            const_cast<void*>(static_cast<const void*>(std::addressof(sink))));
    }
    // The end of the compressed input: `truncated` unless it ended exactly after a whole member
    // (nothing is checked after a stop). Returns error().
    const gzip_error& finish() noexcept;

    const gzip_error& error() const noexcept { return error_; }
    bool stopped() const noexcept { return stopped_; }
    // Compressed bytes taken (up to the stop or the fault), and inflated bytes handed out.
    std::uint64_t compressed_bytes() const noexcept { return compressed_; }
    std::uint64_t inflated_bytes() const noexcept { return inflated_; }

  private:
    using sink_function = bool (*)(void*, std::span<const std::byte>);
    bool write_to(std::span<const std::byte> compressed, sink_function sink, void* context);
    bool start() noexcept;
    void fail(gzip_errc code, const char* detail) noexcept;

    struct state;
    std::unique_ptr<state> state_;
    gzip_error error_{};
    bool stopped_ = false;
    // Some byte of a member was taken and its end has not been reached.
    bool in_member_ = false;
    bool any_member_ = false;
    std::uint64_t compressed_ = 0;
    std::uint64_t inflated_ = 0;
};

// stream_validator behind a gzip_inflater: the compressed bytes of a recording in, the report
// of the stream validator over the inflated bytes out (docs/STREAMING.md: the same as
// `validate` of the inflated bytes, but for the non_unit_quaternion warning). The max_bytes
// limit applies to the inflated recording and stops the inflation when it is passed.
class gzip_validator {
  public:
    explicit gzip_validator(const validate_options& options = {}) noexcept;

    // Returns `error` as soon as the verdict is final: the recording's error in result(), or a
    // damaged gzip stream (gzip_fault()). Never `done`: the gzip trailer (the CRC that vouches for
    // the bytes) follows the recording's last byte, so only finish() concludes.
    stream_status feed(std::span<const std::byte> compressed) noexcept;
    // The end of the compressed input. A gzip stream that ends inside a member is a gzip_error
    // (`truncated`), unless the recording's verdict was already an error.
    const report& finish() noexcept;

    // The recording's verdict once feed returned `error` or after finish(); not a verdict when
    // gzip_fault() is set (the input could not be read whole).
    const report& result() const noexcept { return validator_.result(); }
    // Set when the compressed stream failed before the recording's verdict was an error.
    const gzip_error& gzip_fault() const noexcept { return gzip_; }
    // Recording bytes inflated up to the verdict, and compressed bytes taken for them.
    std::uint64_t inflated_bytes() const noexcept { return validator_.bytes_consumed(); }
    std::uint64_t compressed_bytes() const noexcept { return inflater_.compressed_bytes(); }

  private:
    stream_validator validator_;
    gzip_inflater inflater_;
    gzip_error gzip_{};
    stream_status status_ = stream_status::more;
    bool finished_ = false;
};

}  // namespace inputanim
