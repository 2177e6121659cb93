#include "detail/gzip_inflater.hpp"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <new>

namespace inputanim::detail {

namespace {

constexpr std::byte gzip_id1{0x1f};
constexpr std::byte gzip_id2{0x8b};
// The largest window, and only the gzip wrapper (RFC 1952), not zlib's own (RFC 1950).
constexpr int gzip_window_bits = 15 + 16;
// zlib counts input in 32-bit `uInt`: larger inputs are handed over in slices.
constexpr std::size_t max_slice = std::size_t{1} << 30;

}  // namespace

bool is_gzip(std::span<const std::byte> head) noexcept {
    return head.size() >= 2 && head[0] == gzip_id1 && head[1] == gzip_id2;
}

struct gzip_inflater::state {
    // zlib keeps a pointer back to its z_stream: it lives here, at a fixed address, for good.
    z_stream z{};
    std::array<std::byte, piece_size> piece{};

    ~state() { inflateEnd(&z); }
};

gzip_inflater::gzip_inflater() noexcept = default;
gzip_inflater::gzip_inflater(gzip_inflater&&) noexcept = default;
gzip_inflater& gzip_inflater::operator=(gzip_inflater&&) noexcept = default;
gzip_inflater::~gzip_inflater() = default;

bool gzip_inflater::start() noexcept {
    state_.reset(new (std::nothrow) state);
    if (!state_) {
        fail(gzip_fault::no_memory);
        return false;
    }
    if (inflateInit2(&state_->z, gzip_window_bits) != Z_OK) {
        state_.reset();
        fail(gzip_fault::no_memory);
        return false;
    }
    return true;
}

void gzip_inflater::fail(gzip_fault code) noexcept {
    fault_ = code;
    fault_offset_ = compressed_;
}

bool gzip_inflater::write_to(std::span<const std::byte> compressed, sink_function sink,
                             void* context) {
    if (fault_ != gzip_fault::none || stopped_) return false;
    if (!state_ && !start()) return false;
    z_stream& z = state_->z;
    const std::byte* next = compressed.data();
    std::size_t left = compressed.size();
    while (left > 0) {
        const std::size_t slice = std::min(left, max_slice);
        // zlib's input pointer is not const, but inflate never writes through it.
        z.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(next));
        z.avail_in = static_cast<uInt>(slice);
        next += slice;
        left -= slice;
        // A piece filled to the brim may have more output behind it even with no input left.
        bool output_pending = false;
        while (z.avail_in > 0 || output_pending) {
            z.next_out = reinterpret_cast<Bytef*>(state_->piece.data());
            z.avail_out = static_cast<uInt>(piece_size);
            const uInt before = z.avail_in;
            if (before > 0) {
                in_member_ = true;
                any_member_ = true;
            }
            const int rc = inflate(&z, Z_NO_FLUSH);
            compressed_ += before - z.avail_in;
            const std::size_t produced = piece_size - z.avail_out;
            output_pending = z.avail_out == 0;
            if (produced > 0) {
                inflated_ += produced;
                if (!sink(context, {state_->piece.data(), produced})) {
                    stopped_ = true;
                    return false;
                }
            }
            if (rc == Z_STREAM_END) {
                // The member's CRC and length matched; what follows must be another member.
                in_member_ = false;
                output_pending = false;
                inflateReset(&z);
            } else if (rc == Z_BUF_ERROR) {
                // No progress without more input: this slice is used up.
                break;
            } else if (rc != Z_OK) {
                fail(rc == Z_MEM_ERROR ? gzip_fault::no_memory : gzip_fault::corrupt);
                return false;
            }
        }
    }
    return true;
}

gzip_fault gzip_inflater::finish() noexcept {
    if (fault_ == gzip_fault::none && !stopped_ && (in_member_ || !any_member_)) {
        fail(gzip_fault::truncated);
    }
    return fault_;
}

}  // namespace inputanim::detail
