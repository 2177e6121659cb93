#include "inputanim/loaded.hpp"

#include <cstdint>
#include <new>

#include "inputanim/stream.hpp"

namespace inputanim {

namespace {

// A check by reads takes the file a MiB at a time: one buffer, whatever the file's size.
constexpr std::size_t check_piece = std::size_t{1} << 20;

}  // namespace

const whole_input& loaded_recording::load(inputanim::input in,
                                          const validate_options& options) noexcept {
    rec_ = inputanim::recording();
    in_ = std::move(in);
    whole_ = read_whole(in_, options, storage_);
    if (!whole_.mapped) in_ = inputanim::input();
    return whole_;
}

const whole_input& loaded_recording::load(std::string_view name,
                                          const validate_options& options) noexcept {
    std::error_code ec;
    inputanim::input in = inputanim::input::open(name, ec);
    if (ec) return unreadable(ec);
    return load(std::move(in), options);
}

const whole_input& loaded_recording::load_bytes(std::span<const std::byte> bytes,
                                                const validate_options& options) noexcept {
    std::error_code ec;
    inputanim::input in = inputanim::input::from_bytes(bytes, ec);
    if (ec) return unreadable(ec);
    return load(std::move(in), options);
}

const whole_input& loaded_recording::unreadable(std::error_code io) noexcept {
    rec_ = inputanim::recording();
    in_ = inputanim::input();
    storage_.clear();
    whole_ = whole_input{};
    whole_.io = io;
    return whole_;
}

error loaded_recording::open(const read_options& options, bool by_reads,
                             std::error_code& io) noexcept {
    io.clear();
    if (by_reads && whole_.mapped && rec_.open_by_reads(whole_.bytes, in_, options)) return {};
    error structural;
    io = run([&] { structural = rec_.open(whole_.bytes, options); });
    return structural;
}

report loaded_recording::check(const validate_options& options, bool by_reads,
                               std::error_code& io) const noexcept {
    io.clear();
    if (!by_reads || !whole_.mapped) return validate(whole_.bytes, options);
    std::vector<std::byte> buffer;
    try {
        buffer.resize(check_piece);
    } catch (const std::bad_alloc&) {
        io = std::make_error_code(std::errc::not_enough_memory);
        return {};
    }
    chunk_validator v(options);
    for (std::uint64_t at = 0;;) {
        const std::size_t n = in_.read_at(at, buffer, io);
        if (io) return {};
        if (n == 0) break;
        at += n;
        if (v.feed({buffer.data(), n}) == stream_status::error) break;
    }
    return v.finish();
}

std::error_code loaded_recording::copy() noexcept {
    if (!whole_.mapped) return {};
    try {
        storage_.resize(whole_.bytes.size());
    } catch (const std::bad_alloc&) {
        return std::make_error_code(std::errc::not_enough_memory);
    }
    std::error_code ec;
    if (in_.read_at(0, storage_, ec) != storage_.size() && !ec) {
        ec = std::make_error_code(std::errc::io_error);
    }
    if (ec) {
        storage_.clear();
        return ec;
    }
    in_ = inputanim::input();
    whole_.bytes = storage_;
    whole_.mapped = false;
    return {};
}

}  // namespace inputanim
