#include "straightforward_reader.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>

namespace straightforward {

namespace {

constexpr std::uint64_t magic = 0x6a8faf6e0f9e42c6ULL;

struct failure {
    std::string code;
    std::uint64_t offset = 0;
};

// The host is little-endian, like the file, so fields are read straight into variables.
class file {
  public:
    explicit file(const std::string& path) : in_(path, std::ios::binary) {
        in_.seekg(0, std::ios::end);
        size_ = static_cast<std::uint64_t>(in_.tellg());
        in_.seekg(0);
    }
    bool ok() const { return static_cast<bool>(in_); }
    std::uint64_t position() const { return position_; }
    std::uint64_t remaining() const { return size_ - position_; }
    void rewind(std::uint64_t to) {
        in_.clear();
        in_.seekg(static_cast<std::streamoff>(to));
        position_ = to;
    }
    bool read(void* out, std::size_t n) {
        if (n > remaining()) return false;
        in_.read(static_cast<char*>(out), static_cast<std::streamsize>(n));
        position_ += n;
        return static_cast<bool>(in_);
    }
    template <class T>
    bool get(T& v) {
        return read(&v, sizeof v);
    }

  private:
    std::ifstream in_;
    std::uint64_t size_ = 0;
    std::uint64_t position_ = 0;
};

bool valid_wrap(std::int32_t m) {
    return m == 0 || m == 1 || m == 2 || m == 4 || m == 8;
}

bool valid_utf8(const std::string& s) {
    std::size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        std::size_t n = 0;
        std::uint32_t cp = 0;
        if (c < 0x80) {
            ++i;
            continue;
        } else if ((c & 0xe0) == 0xc0) {
            n = 1;
            cp = c & 0x1f;
        } else if ((c & 0xf0) == 0xe0) {
            n = 2;
            cp = c & 0x0f;
        } else if ((c & 0xf8) == 0xf0) {
            n = 3;
            cp = c & 0x07;
        } else {
            return false;
        }
        if (n > s.size() - i - 1) return false;
        for (std::size_t k = 1; k <= n; ++k) {
            const auto d = static_cast<unsigned char>(s[i + k]);
            if ((d & 0xc0) != 0x80) return false;
            cp = (cp << 6) | (d & 0x3f);
        }
        const std::uint32_t smallest[] = {0, 0x80, 0x800, 0x10000};
        if (cp < smallest[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
        i += n + 1;
    }
    return true;
}

// Reads the curves and markers under one layout, checking as it goes.
class body_reader {
  public:
    body_reader(file& f, recording& rec, level lvl) : f_(f), rec_(rec), lvl_(lvl) {}

    bool read(bool camera, bool hands, bool gaze, failure& fail) {
        rec_.curves.clear();
        rec_.markers.clear();
        if (camera && !read_curves(7, false, fail)) return false;
        if (hands) {
            if (!read_curves(4, true, fail)) return false;
            if (!read_curves(2 * 27 * 7, false, fail)) return false;
        }
        if (gaze && !read_curves(6, false, fail)) return false;
        return read_markers(fail);
    }

  private:
    bool read_curves(int count, bool is_bool, failure& fail) {
        for (int i = 0; i < count; ++i) {
            if (!read_curve(is_bool, fail)) return false;
        }
        return true;
    }

    bool read_curve(bool is_bool, failure& fail) {
        const std::uint64_t header = f_.position();
        curve c;
        std::int32_t count = 0;
        if (f_.remaining() < 12) return stop(fail, "truncated", header);
        f_.get(c.pre_wrap);
        f_.get(c.post_wrap);
        f_.get(count);
        if (!valid_wrap(c.pre_wrap)) return stop(fail, "bad_wrap_mode", header);
        if (!valid_wrap(c.post_wrap)) return stop(fail, "bad_wrap_mode", header + 4);
        if (count < 0) return stop(fail, "negative_count", header + 8);
        const std::size_t size = is_bool || rec_.compact ? 8 : 28;
        if (static_cast<std::uint64_t>(count) * size > f_.remaining()) {
            return stop(fail, "truncated", header + 12);
        }
        c.keys.reserve(static_cast<std::size_t>(count));
        for (std::int32_t i = 0; i < count; ++i) {
            const std::uint64_t at = f_.position();
            char record[28];
            f_.read(record, size);
            keyframe k;
            std::memcpy(&k.time, record, 4);
            std::memcpy(&k.value, record + 4, 4);
            if (size == 28) {
                std::memcpy(&k.in_tangent, record + 8, 4);
                std::memcpy(&k.out_tangent, record + 12, 4);
                std::memcpy(&k.in_weight, record + 16, 4);
                std::memcpy(&k.out_weight, record + 20, 4);
                std::memcpy(&k.weighted_mode, record + 24, 4);
            }
            if (lvl_ == level::full) {
                if (!std::isfinite(k.time)) return stop(fail, "non_finite", at);
                if (!std::isfinite(k.value)) return stop(fail, "non_finite", at + 4);
                if (is_bool && k.value != 0.0f && k.value != 1.0f) {
                    return stop(fail, "bad_bool_value", at + 4);
                }
                if (size == 28) {
                    if (std::isnan(k.in_tangent)) return stop(fail, "non_finite", at + 8);
                    if (std::isnan(k.out_tangent)) return stop(fail, "non_finite", at + 12);
                    if (!std::isfinite(k.in_weight)) return stop(fail, "non_finite", at + 16);
                    if (!std::isfinite(k.out_weight)) return stop(fail, "non_finite", at + 20);
                    if (k.weighted_mode < 0 || k.weighted_mode > 3) {
                        return stop(fail, "bad_weighted_mode", at + 24);
                    }
                }
                if (!c.keys.empty() && !(k.time > c.keys.back().time)) {
                    return stop(fail, "unsorted_keys", at);
                }
            }
            c.keys.push_back(k);
        }
        rec_.curves.push_back(std::move(c));
        return true;
    }

    bool read_markers(failure& fail) {
        // A file that ends after its last curve has no marker list.
        if (f_.remaining() == 0) return true;
        std::int32_t count = 0;
        if (!f_.get(count)) return stop(fail, "truncated", f_.position());
        if (count < 0) return stop(fail, "negative_count", f_.position() - 4);
        rec_.has_markers = true;
        for (std::int32_t i = 0; i < count; ++i) {
            marker m;
            if (!f_.get(m.time)) return stop(fail, "truncated", f_.position());
            if (lvl_ == level::full && !std::isfinite(m.time)) {
                return stop(fail, "non_finite", f_.position() - 4);
            }
            // .NET's 7-bit encoded length.
            const std::uint64_t length_at = f_.position();
            std::uint64_t length = 0;
            for (int shift = 0;; shift += 7) {
                std::uint8_t b = 0;
                if (!f_.get(b)) return stop(fail, "truncated", length_at);
                if (shift == 35) return stop(fail, "bad_marker", length_at);
                length |= std::uint64_t{b & 0x7fu} << shift;
                if ((b & 0x80) == 0) break;
            }
            if (length > std::numeric_limits<std::int32_t>::max()) {
                return stop(fail, "bad_marker", length_at);
            }
            const std::uint64_t name_at = f_.position();
            if (length > f_.remaining()) return stop(fail, "truncated", name_at);
            m.name.resize(length);
            f_.read(m.name.data(), length);
            if (lvl_ == level::full && !valid_utf8(m.name)) return stop(fail, "bad_utf8", name_at);
            rec_.markers.push_back(std::move(m));
        }
        if (f_.remaining() != 0) return stop(fail, "trailing_bytes", f_.position());
        return true;
    }

    static bool stop(failure& fail, const char* code, std::uint64_t offset) {
        fail = failure{code, offset};
        return false;
    }

    file& f_;
    recording& rec_;
    level lvl_;
};

}  // namespace

result read(const std::string& path, level lvl) {
    result out;
    file f(path);
    if (!f.ok()) {
        out.error = "unreadable";
        return out;
    }
    recording& rec = out.rec;
    std::uint64_t file_magic = 0;
    if (!f.get(file_magic)) return {"truncated", 0, {}, 0, 0, 0};
    if (file_magic != magic) return {"bad_magic", 0, {}, 0, 0, 0};
    if (!f.get(rec.major) || !f.get(rec.minor)) return {"truncated", 8, {}, 0, 0, 0};
    if (rec.major != 1 || (rec.minor != 0 && rec.minor != 1)) {
        return {"unsupported_version", 8, {}, 0, 0, 0};
    }
    bool blocks[3] = {true, true, false};
    if (rec.minor == 1) {
        for (int i = 0; i < 3; ++i) {
            std::uint8_t b = 0;
            if (!f.get(b)) return {"truncated", 16, {}, 0, 0, 0};
            if (b > 1) return {"bad_flag", static_cast<std::uint64_t>(16 + i), {}, 0, 0, 0};
            blocks[i] = b == 1;
        }
    }
    const std::uint64_t body = f.position();
    failure fail;
    body_reader reader(f, rec, lvl);
    if (rec.minor == 0) {
        if (!reader.read(blocks[0], blocks[1], false, fail)) {
            out.error = fail.code;
            out.offset = fail.offset;
        }
    } else {
        // FORMAT.md section 3: the first of compact, full under which the file is sound; else the
        // error of the one that got further, compact's on a tie.
        rec.compact = true;
        failure compact;
        if (!reader.read(blocks[0], blocks[1], blocks[2], compact)) {
            f.rewind(body);
            rec.compact = false;
            failure full;
            if (!reader.read(blocks[0], blocks[1], blocks[2], full)) {
                const bool use_full = full.offset > compact.offset;
                out.error = use_full ? full.code : compact.code;
                out.offset = use_full ? full.offset : compact.offset;
            }
        }
    }
    if (!out.error.empty()) return out;

    float first = std::numeric_limits<float>::infinity();
    float last = -std::numeric_limits<float>::infinity();
    for (const curve& c : rec.curves) {
        out.keyframes += c.keys.size();
        if (c.keys.empty()) continue;
        first = std::min(first, c.keys.front().time);
        last = std::max(last, c.keys.back().time);
    }
    if (out.keyframes > 0) {
        out.start = first;
        out.duration = last;
    }
    return out;
}

}  // namespace straightforward
