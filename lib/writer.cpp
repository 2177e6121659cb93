#include "inputanim/writer.hpp"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <string>

#include "detail/load.hpp"
#include "detail/rules.hpp"
#include "inputanim/detail/codes.hpp"
#include "inputanim/recording.hpp"

namespace inputanim {

std::error_code vector_sink::write(std::span<const std::byte> bytes) {
    out_.insert(out_.end(), bytes.begin(), bytes.end());
    return {};
}

namespace {

constexpr detail::code_row<encoder_error> encoder_rows[] = {
    {encoder_error::none, "none", "no error"},
    {encoder_error::too_many_keys, "too_many_keys",
     "a curve has more keys than the format's Int32 count holds"},
    {encoder_error::too_many_markers, "too_many_markers",
     "there are more markers than the format's Int32 count holds"},
    {encoder_error::name_too_long, "name_too_long",
     "a marker name is longer than the format's Int32 length holds"},
};
constexpr detail::code_table<encoder_error> encoder_codes{encoder_rows, "unknown error"};

class encoder_category final : public detail::code_category<encoder_error> {
  public:
    using code_category::code_category;
    // Each code is a value too large for the format's Int32, which is EOVERFLOW's meaning.
    std::error_condition default_error_condition(int value) const noexcept override {
        if (value < static_cast<int>(encoder_error::too_many_keys) ||
            value > static_cast<int>(encoder_error::name_too_long)) {
            return {value, *this};
        }
        return std::errc::value_too_large;
    }
};

}  // namespace

const std::error_category& encoder_error_category() noexcept {
    static const encoder_category category("inputanim.encoder", encoder_codes);
    return category;
}

std::error_code make_error_code(encoder_error e) noexcept {
    return {static_cast<int>(e), encoder_error_category()};
}

bool encoder::misuse(bool wrong) noexcept {
    if (wrong && !error_) error_ = std::make_error_code(std::errc::invalid_argument);
    return wrong;
}

bool encoder::curves_done() const noexcept {
    return stage_ == stage::curves && next_curve_ == header_.curve_count && left_ == 0;
}

bool encoder::reserve(std::size_t n) noexcept {
    if (n > buffer_.size() - used_) flush();
    return !error_;
}

void encoder::flush() noexcept {
    if (used_ == 0 || error_) return;
    error_ = sink_.write(std::span<const std::byte>(buffer_.data(), used_));
    used_ = 0;
}

void encoder::put_u8(std::uint8_t v) noexcept {
    if (!reserve(1)) return;
    buffer_[used_++] = static_cast<std::byte>(v);
}

void encoder::put_i32(std::int32_t v) noexcept {
    if (!reserve(4)) return;
    detail::store_i32_le(buffer_.data() + used_, v);
    used_ += 4;
}

void encoder::put_f32(float v) noexcept {
    if (!reserve(4)) return;
    detail::store_f32_le(buffer_.data() + used_, v);
    used_ += 4;
}

void encoder::put_bytes(std::span<const std::byte> bytes) noexcept {
    while (!bytes.empty()) {
        if (used_ == buffer_.size()) flush();
        if (error_) return;
        const std::size_t n = std::min(bytes.size(), buffer_.size() - used_);
        std::memcpy(buffer_.data() + used_, bytes.data(), n);
        used_ += n;
        bytes = bytes.subspan(n);
    }
}

std::error_code encoder::write_header(int major, int minor, inputanim::layout layout,
                                      block_flags blocks) {
    if (error_ || misuse(stage_ != stage::start)) return error_;
    header_ = detail::v1_header(major, minor, layout, blocks);
    stage_ = stage::curves;
    const detail::encoded_header e = detail::encode_header(header_);
    put_bytes(std::span(e.bytes).first(e.size));
    return error_;
}

std::error_code encoder::begin_curve(curve_id id, std::int32_t pre_wrap, std::int32_t post_wrap,
                                     std::size_t key_count) {
    if (error_ ||
        misuse(stage_ != stage::curves || left_ != 0 || next_curve_ == header_.curve_count ||
               curve_at(header_.blocks, next_curve_) != id)) {
        return error_;
    }
    if (key_count > detail::int32_max) {
        error_ = encoder_error::too_many_keys;
        return error_;
    }
    ++next_curve_;
    left_ = key_count;
    current_full_ = detail::stride_of(header_, id) == full_keyframe_size;
    put_i32(pre_wrap);
    put_i32(post_wrap);
    put_i32(static_cast<std::int32_t>(key_count));
    return error_;
}

std::error_code encoder::write_key(const keyframe& key) {
    return write_keys(std::span<const keyframe>(&key, 1));
}

std::error_code encoder::write_keys(std::span<const keyframe> keys) {
    if (error_ || misuse(stage_ != stage::curves || keys.size() > left_)) return error_;
    left_ -= keys.size();
    for (const keyframe& k : keys) {
        put_f32(k.time);
        put_f32(k.value);
        if (current_full_) {
            put_f32(k.in_tangent);
            put_f32(k.out_tangent);
            put_f32(k.in_weight);
            put_f32(k.out_weight);
            put_i32(k.weighted_mode);
        }
    }
    return error_;
}

std::error_code encoder::write_encoded_keys(std::span<const std::byte> bytes, std::size_t count) {
    const std::size_t stride = current_full_ ? full_keyframe_size : compact_keyframe_size;
    if (error_ || misuse(stage_ != stage::curves || count > left_ ||
                         bytes.size() / stride != count || bytes.size() % stride != 0)) {
        return error_;
    }
    left_ -= count;
    if (bytes.size() < buffer_.size()) {
        put_bytes(bytes);
        return error_;
    }
    flush();
    if (!error_) error_ = sink_.write(bytes);
    return error_;
}

std::error_code encoder::write_curve(curve_id id, const inputanim::curve& c) {
    if (begin_curve(id, c.pre_wrap, c.post_wrap, c.keys.size())) return error_;
    return write_keys(c.keys);
}

std::error_code encoder::begin_markers(std::size_t count) {
    if (error_ || misuse(!curves_done())) return error_;
    if (count > detail::int32_max) {
        error_ = encoder_error::too_many_markers;
        return error_;
    }
    stage_ = stage::markers;
    left_ = count;
    put_i32(static_cast<std::int32_t>(count));
    return error_;
}

std::error_code encoder::write_marker(float time, std::string_view name) {
    if (begin_marker(time, name.size())) return error_;
    return write_marker_name(std::as_bytes(std::span<const char>(name.data(), name.size())));
}

std::error_code encoder::begin_marker(float time, std::size_t name_size) {
    if (error_ || misuse(stage_ != stage::markers || left_ == 0 || name_left_ != 0)) return error_;
    if (name_size > detail::int32_max) {
        error_ = encoder_error::name_too_long;
        return error_;
    }
    --left_;
    name_left_ = name_size;
    put_f32(time);
    // .NET BinaryWriter.Write7BitEncodedInt.
    auto v = static_cast<std::uint32_t>(name_size);
    while (v >= 0x80) {
        put_u8(static_cast<std::uint8_t>(v | 0x80));
        v >>= 7;
    }
    put_u8(static_cast<std::uint8_t>(v));
    return error_;
}

std::error_code encoder::write_marker_name(std::span<const std::byte> bytes) {
    if (error_ || misuse(stage_ != stage::markers || bytes.size() > name_left_)) return error_;
    name_left_ -= bytes.size();
    put_bytes(bytes);
    return error_;
}

std::error_code encoder::write_markers(std::span<const inputanim::marker> list) {
    if (begin_markers(list.size())) return error_;
    for (const inputanim::marker& m : list) {
        if (write_marker(m.time, m.name)) break;
    }
    return error_;
}

std::error_code encoder::finish() {
    if (error_ ||
        misuse(!curves_done() && !(stage_ == stage::markers && left_ == 0 && name_left_ == 0))) {
        return error_;
    }
    stage_ = stage::done;
    flush();
    return error_;
}

namespace {

std::size_t encoded_size(const model& m) noexcept {
    const file_header h = detail::v1_header(m.major, m.minor, m.layout, m.blocks);
    std::size_t n = detail::encode_header(h).size;
    for (std::size_t i = 0; i < h.curve_count; ++i) {
        const detail::walk_curve c = detail::curve_of_walk(h, i);
        n += curve_header_size + m[c.id].keys.size() * c.stride;
    }
    if (m.markers) {
        n += 4;
        for (const marker& mk : *m.markers) n += 4 + 5 + mk.name.size();
    }
    return n;
}

}  // namespace

void write(const model& m, std::vector<std::byte>& out) {
    out.clear();
    out.reserve(encoded_size(m));
    vector_sink sink(out);
    encoder e(sink);
    e.write_header(m.major, m.minor, m.layout, m.blocks);
    const file_header h = detail::v1_header(m.major, m.minor, m.layout, m.blocks);
    for (std::size_t i = 0; i < h.curve_count; ++i) {
        const curve_id id = curve_at(h.blocks, i);
        e.write_curve(id, m[id]);
    }
    if (m.markers) e.write_markers(*m.markers);
    // A vector never refuses bytes, and the order above is the file's: only a count beyond
    // Int32, which the precondition rules out, could fail.
    [[maybe_unused]] const std::error_code ec = e.finish();
    assert(!ec);
}

std::vector<std::byte> write(const model& m) {
    std::vector<std::byte> out;
    write(m, out);
    return out;
}

error read_model(std::span<const std::byte> bytes, model& out, const read_options& options) {
    recording rec;
    if (error e = rec.open(bytes, options)) return e;
    out = model{};
    // A 2019 file holds a v1.0 file's curves: its model is that file's.
    const bool v1 = rec.header().edition == edition::v1;
    out.major = v1 ? rec.header().major : 1;
    out.minor = v1 ? rec.header().minor : 0;
    out.layout = rec.header().layout;
    out.blocks = rec.header().blocks;
    for (const curve_view& v : rec.curves()) {
        curve& c = out[v.id];
        c.pre_wrap = v.pre_wrap;
        c.post_wrap = v.post_wrap;
        c.keys.reserve(v.keys.size());
        for (const keyframe_view k : v.keys) {
            // Only a bool key's time and value mean anything (May 2019 wrote 28-byte ones).
            if (v.kind == curve_kind::bool_curve) {
                c.keys.push_back(keyframe{k.time(), k.value()});
            } else {
                c.keys.push_back(keyframe{k.time(), k.value(), k.in_tangent(), k.out_tangent(),
                                          k.in_weight(), k.out_weight(), k.weighted_mode_raw()});
            }
        }
    }
    if (rec.summary().markers) {
        out.markers.emplace();
        out.markers->reserve(rec.markers().size());
        for (const marker_view& mk : rec.markers()) {
            out.markers->push_back(marker{mk.time, std::string(mk.name)});
        }
    } else {
        out.markers.reset();
    }
    return {};
}

file_header v1_header(int major, int minor, inputanim::layout layout, block_flags blocks) noexcept {
    return detail::v1_header(major, minor, layout, blocks);
}

}  // namespace inputanim
