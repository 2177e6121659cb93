#include "inputanim/writer.hpp"

#include "detail/load.hpp"
#include "inputanim/recording.hpp"

namespace inputanim {

namespace {

class byte_sink {
  public:
    explicit byte_sink(std::vector<std::byte>& out) noexcept : out_(out) {}
    void u8(std::uint8_t v) { out_.push_back(static_cast<std::byte>(v)); }
    void i32(std::int32_t v) { detail::store_i32_le(grow(4), v); }
    void u64(std::uint64_t v) { detail::store_u64_le(grow(8), v); }
    void f32(float v) { detail::store_f32_le(grow(4), v); }
    void bytes(std::string_view s) {
        for (char c : s) out_.push_back(static_cast<std::byte>(c));
    }
    // .NET BinaryWriter.Write7BitEncodedInt.
    void length(std::size_t n) {
        auto v = static_cast<std::uint32_t>(n);
        while (v >= 0x80) {
            u8(static_cast<std::uint8_t>(v | 0x80));
            v >>= 7;
        }
        u8(static_cast<std::uint8_t>(v));
    }

  private:
    std::byte* grow(std::size_t n) {
        out_.resize(out_.size() + n);
        return out_.data() + out_.size() - n;
    }
    std::vector<std::byte>& out_;
};

struct body_shape {
    block_flags blocks;
    bool full;
};

body_shape shape_of(const model& m) noexcept {
    if (m.major == 1 && m.minor == 0) return {block_flags{true, true, false}, true};
    return {m.blocks, m.layout == layout::full};
}

std::size_t encoded_size(const model& m) noexcept {
    const body_shape shape = shape_of(m);
    std::size_t n = header_size + (m.major == 1 && m.minor == 0 ? 0 : 3);
    for (std::size_t i = 0; i < curve_count(shape.blocks); ++i) {
        const curve_id id = curve_at(shape.blocks, i);
        const std::size_t stride =
            kind_of(id) == curve_kind::float_curve && shape.full ? full_keyframe_size : 8;
        n += curve_header_size + m[id].keys.size() * stride;
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
    byte_sink sink(out);
    sink.u64(file_magic);
    sink.i32(m.major);
    sink.i32(m.minor);
    const body_shape shape = shape_of(m);
    if (!(m.major == 1 && m.minor == 0)) {
        sink.u8(shape.blocks.camera ? 1 : 0);
        sink.u8(shape.blocks.hands ? 1 : 0);
        sink.u8(shape.blocks.gaze ? 1 : 0);
    }
    for (std::size_t i = 0; i < curve_count(shape.blocks); ++i) {
        const curve_id id = curve_at(shape.blocks, i);
        const curve& c = m[id];
        sink.i32(c.pre_wrap);
        sink.i32(c.post_wrap);
        sink.i32(static_cast<std::int32_t>(c.keys.size()));
        const bool full = kind_of(id) == curve_kind::float_curve && shape.full;
        for (const keyframe& k : c.keys) {
            sink.f32(k.time);
            sink.f32(k.value);
            if (full) {
                sink.f32(k.in_tangent);
                sink.f32(k.out_tangent);
                sink.f32(k.in_weight);
                sink.f32(k.out_weight);
                sink.i32(k.weighted_mode);
            }
        }
    }
    if (m.markers) {
        sink.i32(static_cast<std::int32_t>(m.markers->size()));
        for (const marker& mk : *m.markers) {
            sink.f32(mk.time);
            sink.length(mk.name.size());
            sink.bytes(mk.name);
        }
    }
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
    out.major = rec.header().major;
    out.minor = rec.header().minor;
    out.layout = rec.header().layout;
    out.blocks = rec.header().blocks;
    for (const curve_view& v : rec.curves()) {
        curve& c = out[v.id];
        c.pre_wrap = v.pre_wrap;
        c.post_wrap = v.post_wrap;
        c.keys.reserve(v.keys.size());
        for (const keyframe_view k : v.keys) {
            c.keys.push_back(keyframe{k.time(), k.value(), k.in_tangent(), k.out_tangent(),
                                      k.in_weight(), k.out_weight(), k.weighted_mode_raw()});
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

}  // namespace inputanim
