#include "inputanim/gzip.hpp"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <new>

namespace inputanim {

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

std::string_view gzip_error_name(gzip_errc code) noexcept {
    switch (code) {
        case gzip_errc::ok:
            return "ok";
        case gzip_errc::truncated:
            return "gzip_truncated";
        case gzip_errc::corrupt:
            return "gzip_corrupt";
        case gzip_errc::no_memory:
            return "gzip_no_memory";
    }
    return "unknown";
}

std::string gzip_error::message() const {
    const std::string where = " after " + std::to_string(offset) + " compressed bytes";
    switch (code) {
        case gzip_errc::ok:
            return "no error";
        case gzip_errc::truncated:
            return offset == 0 ? "the gzip stream is empty" : "the gzip stream ends early" + where;
        case gzip_errc::corrupt:
            return "the gzip stream is damaged (" + std::string(detail) + ")" + where;
        case gzip_errc::no_memory:
            return "out of memory for the gzip inflater";
    }
    return "unknown gzip error";
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
        fail(gzip_errc::no_memory, "");
        return false;
    }
    if (inflateInit2(&state_->z, gzip_window_bits) != Z_OK) {
        state_.reset();
        fail(gzip_errc::no_memory, "");
        return false;
    }
    return true;
}

void gzip_inflater::fail(gzip_errc code, const char* detail) noexcept {
    error_ = gzip_error{code, compressed_, detail != nullptr ? detail : ""};
}

bool gzip_inflater::write_to(std::span<const std::byte> compressed, sink_function sink,
                             void* context) {
    if (error_ || stopped_) return false;
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
                fail(rc == Z_MEM_ERROR ? gzip_errc::no_memory : gzip_errc::corrupt, z.msg);
                return false;
            }
        }
    }
    return true;
}

const gzip_error& gzip_inflater::finish() noexcept {
    if (!error_ && !stopped_ && (in_member_ || !any_member_)) fail(gzip_errc::truncated, "");
    return error_;
}

gzip_validator::gzip_validator(const validate_options& options) noexcept : validator_(options) {}

stream_status gzip_validator::feed(std::span<const std::byte> compressed) noexcept {
    if (status_ == stream_status::error || finished_) return status_;
    // The validator's own max_bytes check stops the inflation of a bomb at the piece that
    // passes the ceiling.
    inflater_.write(compressed, [this](std::span<const std::byte> piece) {
        return validator_.feed(piece) != stream_status::error;
    });
    if (validator_.status() == stream_status::error) {
        status_ = stream_status::error;
    } else if (inflater_.error()) {
        gzip_ = inflater_.error();
        status_ = stream_status::error;
    }
    return status_;
}

const report& gzip_validator::finish() noexcept {
    if (finished_) return result();
    finished_ = true;
    if (status_ == stream_status::error) return result();
    if (const gzip_error& e = inflater_.finish()) {
        gzip_ = e;
        status_ = stream_status::error;
        return result();
    }
    return validator_.finish();
}

}  // namespace inputanim
