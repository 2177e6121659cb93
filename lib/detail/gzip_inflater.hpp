// Push-style gzip decompression (RFC 1952, zlib) for the input layer: compressed bytes in, any
// number at a time; the inflated bytes out to a sink, in pieces of at most `piece_size`. Not
// public: chunk_validator (input.hpp) is the door to gzip input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>

namespace inputanim::detail {

// True when `head` starts with gzip's two identification bytes, 1f 8b. A recording starts with
// c6 42 (its magic), so the two kinds of file never clash.
bool is_gzip(std::span<const std::byte> head) noexcept;

enum class gzip_fault : std::uint8_t {
    none,
    // The input ended inside a gzip member, or held no member at all.
    truncated,
    // Not gzip, or damaged: a bad header, bad deflate data, a CRC or length that does not match,
    // or bytes after the last member that do not start another one.
    corrupt,
    // zlib could not allocate its state.
    no_memory,
};

// The sink can stop the inflation at any piece (a byte ceiling, a verdict already reached), so
// that a small input that inflates to terabytes (a "gzip bomb") costs at most one piece beyond
// what the sink accepted. Members written one after another (`cat a.gz b.gz`) are one stream, as
// gzip(1) reads them. Holds about 60 KiB (zlib's state and window, the piece buffer), allocated
// at the first write.
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
    // (fault()) or the sink's stop (stopped()); further input is then ignored. An exception from
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
    // (nothing is checked after a stop). Returns fault().
    gzip_fault finish() noexcept;

    gzip_fault fault() const noexcept { return fault_; }
    // Compressed bytes taken when the fault was found (zlib finds a fault at or shortly after the
    // damaged byte).
    std::uint64_t fault_offset() const noexcept { return fault_offset_; }
    bool stopped() const noexcept { return stopped_; }
    // Compressed bytes taken (up to the stop or the fault), and inflated bytes handed out.
    std::uint64_t compressed_bytes() const noexcept { return compressed_; }
    std::uint64_t inflated_bytes() const noexcept { return inflated_; }

  private:
    using sink_function = bool (*)(void*, std::span<const std::byte>);
    bool write_to(std::span<const std::byte> compressed, sink_function sink, void* context);
    bool start() noexcept;
    void fail(gzip_fault code) noexcept;

    struct state;
    std::unique_ptr<state> state_;
    gzip_fault fault_ = gzip_fault::none;
    std::uint64_t fault_offset_ = 0;
    bool stopped_ = false;
    // Some byte of a member was taken and its end has not been reached.
    bool in_member_ = false;
    bool any_member_ = false;
    std::uint64_t compressed_ = 0;
    std::uint64_t inflated_ = 0;
};

}  // namespace inputanim::detail
