#include "inputanim/convert.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "detail/kernels.hpp"
#include "detail/layout_walk.hpp"
#include "detail/load.hpp"
#include "detail/rules.hpp"
#include "inputanim/detail/codes.hpp"
#include "inputanim/evaluate.hpp"
#include "inputanim/time_window.hpp"

namespace inputanim {

namespace {

constexpr float infinity = std::numeric_limits<float>::infinity();
constexpr float max_float = std::numeric_limits<float>::max();
// How many keys go to the encoder at once, from a buffer on the stack.
constexpr std::size_t batch_keys = 256;
// How many source bytes are read before they are handed to options.consumed.
constexpr std::uint64_t release_piece = std::uint64_t{256} << 10;

// How many output bytes a run of keys is transcoded into before it goes to the encoder, which
// hands a run this large straight to the sink: a buffer on the stack.
constexpr std::size_t transcode_bytes = std::size_t{32} << 10;

bool mrtk_linear(const keyframe_view k) noexcept {
    return detail::mrtk_linear(k.in_tangent(), k.out_tangent(), k.in_weight(), k.out_weight(),
                               k.weighted_mode_raw());
}

keyframe to_keyframe(const keyframe_view k) noexcept {
    return {k.time(),      k.value(),      k.in_tangent(),       k.out_tangent(),
            k.in_weight(), k.out_weight(), k.weighted_mode_raw()};
}

struct window {
    bool has_from = false;
    bool has_to = false;
    float from = -infinity;
    float to = infinity;

    bool holds(float t) const noexcept { return (!has_from || t >= from) && (!has_to || t <= to); }
};

// The keys of one source curve that the window keeps, with the keys added at its ends
// (convert.hpp says which). Key i is read from the source when asked for.
class windowed_curve {
  public:
    windowed_curve(const curve_view& c, const window& w) noexcept : c_(c) {
        const keyframes_view keys = c.keys;
        const std::size_t n = keys.size();
        hi_ = n;
        if (w.has_from) {
            lo_ = static_cast<std::size_t>(
                std::partition_point(keys.begin(), keys.end(),
                                     [&](const keyframe_view k) { return k.time() < w.from; }) -
                keys.begin());
        }
        if (w.has_to) {
            hi_ = static_cast<std::size_t>(
                std::partition_point(keys.begin(), keys.end(),
                                     [&](const keyframe_view k) { return k.time() <= w.to; }) -
                keys.begin());
        }
        // Keys out of time order (a file that failed level full) can put them so.
        hi_ = std::max(hi_, lo_);
        const bool steps = c.kind == curve_kind::bool_curve;
        has_from_edge_ = w.has_from && lo_ > 0 && (lo_ == n || keys[lo_].time() != w.from);
        has_to_edge_ = w.has_to && hi_ < n && (hi_ == 0 || keys[hi_ - 1].time() != w.to) &&
                       !(has_from_edge_ && w.from == w.to) &&
                       (!steps || (!has_from_edge_ && hi_ == lo_));
        if (has_from_edge_) from_edge_ = edge(lo_, w.from, true);
        if (has_to_edge_) to_edge_ = edge(hi_, w.to, false);
    }

    std::size_t size() const noexcept {
        return (hi_ - lo_) + (has_from_edge_ ? 1 : 0) + (has_to_edge_ ? 1 : 0);
    }
    std::size_t edges() const noexcept { return (has_from_edge_ ? 1 : 0) + (has_to_edge_ ? 1 : 0); }
    // The source keys kept, [first_kept, end_kept), and the keys added before and after them.
    std::size_t first_kept() const noexcept { return lo_; }
    std::size_t end_kept() const noexcept { return hi_; }
    const keyframe* from_edge() const noexcept { return has_from_edge_ ? &from_edge_ : nullptr; }
    const keyframe* to_edge() const noexcept { return has_to_edge_ ? &to_edge_ : nullptr; }
    std::uint32_t curved_edges() const noexcept { return curved_edges_; }

    keyframe key(std::size_t i) const noexcept {
        if (has_from_edge_) {
            if (i == 0) return from_edge_;
            --i;
        }
        if (i < hi_ - lo_) return to_keyframe(c_.keys[lo_ + i]);
        return to_edge_;
    }
    // Whether key i is a source key that is not MRTK's linear one.
    bool curved(std::size_t i) const noexcept {
        if (has_from_edge_) {
            if (i == 0) return false;
            --i;
        }
        return i < hi_ - lo_ && !mrtk_linear(c_.keys[lo_ + i]);
    }
    const curve_view& source() const noexcept { return c_; }

  private:
    // The key at the window's end `t`, where `right` is the first source key after it.
    keyframe edge(std::size_t right, float t, bool at_from) noexcept {
        keyframe k;
        k.time = t;
        k.value = evaluate(c_, t);
        if (c_.kind == curve_kind::bool_curve || right == 0 || right == c_.keys.size()) return k;
        const keyframe_view l = c_.keys[right - 1];
        const keyframe_view r = c_.keys[right];
        if (std::isinf(l.out_tangent()) || std::isinf(r.in_tangent())) {
            // A stepped segment stays stepped on the window's side of the end.
            if (at_from) {
                k.out_tangent = infinity;
            } else {
                k.in_tangent = infinity;
            }
        } else if (!mrtk_linear(l) || !mrtk_linear(r)) {
            ++curved_edges_;
        }
        return k;
    }

    curve_view c_;
    std::size_t lo_ = 0;
    std::size_t hi_ = 0;
    bool has_from_edge_ = false;
    bool has_to_edge_ = false;
    keyframe from_edge_{};
    keyframe to_edge_{};
    std::uint32_t curved_edges_ = 0;
};

// Times shifted by a constant, kept strictly increasing where the source's were.
class time_shift {
  public:
    time_shift(bool on, float by, std::uint64_t& nudged) noexcept
        : on_(on), by_(by), nudged_(nudged) {}

    void restart() noexcept { have_ = false; }

    float operator()(float t) noexcept {
        if (!on_) return t;
        float out = t - by_;
        if (have_ && t > previous_in_ && !(out > previous_out_)) {
            out = std::nextafter(previous_out_, infinity);
            ++nudged_;
        }
        // Past the largest float, by the subtraction or by a nudge after it.
        if (detail::shift_overflows(t, out)) overflowed_ = true;
        have_ = true;
        previous_in_ = t;
        previous_out_ = out;
        return out;
    }
    // The n keys `stride` bytes apart at `in` written to `out` (the same place, or apart), the
    // times of keys [0, K) shifted, where K is the first key whose shifted time is not finite
    // and above the one before it: the keys before it need no nudge and none overflows, so this
    // does what the key-by-key rule does, in blocks (kernels) where it can. Almost always K = n;
    // the caller shifts the rest key by key.
    template <std::size_t Stride>
    std::size_t shift_plain(const std::byte* in, std::byte* out, std::size_t n) noexcept {
        float before = have_ ? previous_out_ : -infinity;
        float last = previous_in_;
        std::size_t i = 0;
        // The kernel writes whole runs before it checks them: only into another buffer.
        if (Stride == compact_keyframe_size && in != out) {
            i = detail::kernels().shift_compact(in, out, n, by_, before);
            if (i != 0) {
                last = detail::load_f32_le(in + (i - 1) * Stride);
                before = detail::load_f32_le(out + (i - 1) * Stride);
            }
        }
        if (in != out) std::memcpy(out + i * Stride, in + i * Stride, (n - i) * Stride);
        for (; i < n; ++i) {
            std::byte* const p = out + i * Stride;
            const float t = detail::load_f32_le(p);
            const float shifted = t - by_;
            if (!(shifted > before) || !(std::abs(shifted) <= max_float)) break;
            detail::store_f32_le(p, shifted);
            last = t;
            before = shifted;
        }
        if (i != 0) {
            have_ = true;
            previous_in_ = last;
            previous_out_ = before;
        }
        return i;
    }
    // The times of n keys at `in` into `out` by the fast rule, then the rest by the key-by-key.
    template <std::size_t Stride>
    void shift(const std::byte* in, std::byte* out, std::size_t n) noexcept {
        const std::size_t plain = shift_plain<Stride>(in, out, n);
        shift_each(out + plain * Stride, n - plain, Stride);
    }
    // The times of n keys at `p` shifted in place by the key-by-key rule.
    void shift_each(std::byte* p, std::size_t n, std::size_t stride) noexcept {
        for (std::size_t i = 0; i < n; ++i) {
            detail::store_f32_le(p + i * stride, (*this)(detail::load_f32_le(p + i * stride)));
        }
    }
    float marker(float t) const noexcept { return on_ ? t - by_ : t; }
    // Whether `t`, a time the output keeps, stays finite once shifted.
    bool fits(float t) const noexcept { return !on_ || !detail::shift_overflows(t, t - by_); }
    bool overflowed() const noexcept { return overflowed_; }
    bool on() const noexcept { return on_; }
    // Whether the shift moves times up, the only way a key time it keeps can pass the largest
    // float: a sorted curve's kept keys lie at or after the time shifted to zero. A marker may
    // lie anywhere.
    bool moves_up() const noexcept { return on_ && !(by_ >= 0.0f); }

  private:
    bool on_;
    float by_;
    std::uint64_t& nudged_;
    bool have_ = false;
    bool overflowed_ = false;
    float previous_in_ = 0.0f;
    float previous_out_ = 0.0f;
};

// Runs of source keys handed to the encoder in blocks: as the source holds them, or transcoded
// between the layouts by the block kernels (chosen once, as validate's) with their times
// shifted, through a buffer of transcode_bytes.
class key_writer {
  public:
    key_writer(encoder& e, time_shift& shift) noexcept : encoder_(e), shift_(shift) {}

    // How many keys one write() of a run that needs transcoding may take.
    static constexpr std::size_t block_keys(std::size_t in_stride,
                                            std::size_t out_stride) noexcept {
        return transcode_bytes / std::max(in_stride, out_stride);
    }
    // Whether keys of these strides are copied as they are (any number per write()).
    bool copies(std::size_t in_stride, std::size_t out_stride) const noexcept {
        return in_stride == out_stride && !shift_.on();
    }
    // n keys at `in`, `in_stride` bytes apart, written `out_stride` bytes apart: at most
    // block_keys() of them unless copies(). Counts in *curved the keys that a narrowing drops
    // tangents or weights of (when not null). The encoder's state.
    std::error_code write(const std::byte* in, std::size_t n, std::size_t in_stride,
                          std::size_t out_stride, std::uint64_t* curved) {
        std::span<const std::byte> out(in, n * in_stride);
        if (!copies(in_stride, out_stride)) out = transcode(in, in_stride, out_stride, n, curved);
        return encoder_.write_encoded_keys(out, n);
    }

  private:
    // n keys at `in` into transcoded_, in the target's layout with shifted times. A shift of
    // keys that change layout runs on their compact form, in staged_.
    std::span<const std::byte> transcode(const std::byte* in, std::size_t in_stride,
                                         std::size_t out_stride, std::size_t n,
                                         std::uint64_t* curved) {
        std::byte* const out = transcoded_.data();
        const detail::block_kernels& k = detail::kernels();
        const bool shifting = shift_.on();
        if (in_stride == out_stride) {
            if (in_stride == full_keyframe_size) {
                shift_.shift<full_keyframe_size>(in, out, n);
            } else {
                shift_.shift<compact_keyframe_size>(in, out, n);
            }
        } else if (out_stride == full_keyframe_size) {
            if (shifting) {
                shift_.shift<compact_keyframe_size>(in, staged_.data(), n);
                in = staged_.data();
            }
            k.widen(in, out, n);
        } else {
            const std::size_t dropped = k.narrow(in, shifting ? staged_.data() : out, n);
            if (curved != nullptr) *curved += dropped;
            if (shifting) shift_.shift<compact_keyframe_size>(staged_.data(), out, n);
        }
        return {out, n * out_stride};
    }

    encoder& encoder_;
    time_shift& shift_;
    std::array<std::byte, transcode_bytes> transcoded_;
    std::array<std::byte, transcode_bytes / full_keyframe_size * compact_keyframe_size> staged_;
};

// The curves thinned together: a vector's components, which are consecutive ids.
struct curve_group {
    std::size_t first;
    std::size_t count;
    double tolerance;
};

curve_group group_of(const detail::walk_curve& c, const thinning& t) noexcept {
    const std::size_t i = to_index(c.id);
    if (c.kind == curve_kind::bool_curve) return {i, 1, 0.0};
    if (i >= gaze_first) {
        const bool origin = i < gaze_first + 3;
        return {origin ? gaze_first : gaze_first + 3, 3,
                origin ? t.position : t.direction_distance()};
    }
    // Camera and joints: 7 curves per pose from a multiple of 7 past the pose's block start.
    const std::size_t base = i < hand_state_first ? camera_first : left_joint_first;
    const std::size_t pose = base + (i - base) / pose_channel_count * pose_channel_count;
    const bool position = i - pose < 3;
    return {position ? pose : pose + 3, position ? std::size_t{3} : std::size_t{4},
            position ? t.position : t.rotation_distance()};
}

class converter {
  public:
    converter(const recording& source, byte_sink& sink, const convert_options& o,
              convert_result& result)
        : source_(source),
          encoder_(sink),
          o_(o),
          r_(result),
          target_(detail::v1_header(1, o.minor, o.layout, source.header().blocks)),
          shift_(o.shift_to_zero, shift_of(source, o), result.keys_nudged),
          keys_(encoder_, shift_) {
        w_.has_from = o.from.has_value();
        w_.has_to = o.to.has_value();
        if (o.from) w_.from = *o.from;
        if (o.to) w_.to = *o.to;
    }

    // Whether the file written holds full keyframes.
    bool full() const noexcept { return detail::full_float_keys(target_); }

    void run() {
        const block_flags blocks = target_.blocks;
        if (shift_.on() && !shift_fits(blocks)) {
            r_.error = convert_error::shift_out_of_range;
            return;
        }
        encoder_.write_header(1, o_.minor, target_.layout, blocks);
        for (std::size_t i = 0; i < target_.curve_count && !encoder_.status() &&
                                !shift_.overflowed() && !r_.source_failed;) {
            const detail::walk_curve c = detail::curve_of_walk(target_, i);
            if (o_.thin) {
                const curve_group g = group_of(c, *o_.thin);
                write_group(g);
                i += g.count;
            } else {
                write_curve(c.id);
                ++i;
            }
        }
        if (!blocks.gaze) {
            for (std::size_t c = 0; c < ray_channel_count; ++c) {
                if (const curve_view* v = source_.gaze(ray_channel(c))) {
                    ++r_.gaze_curves_dropped;
                    r_.gaze_keys_dropped += v->keys.size();
                }
            }
        }
        if (shift_.overflowed()) {
            r_.error = convert_error::shift_out_of_range;
            return;
        }
        if (r_.source_failed) return;
        write_markers();
        r_.error = encoder_.finish();
    }

  private:
    static float shift_of(const recording& source, const convert_options& o) noexcept {
        if (o.from) return *o.from;
        return source.summary().start.value_or(0.0f);
    }

    // Whether every key and marker time the output keeps stays finite once shifted: the last
    // (and first) key each curve keeps in the window, and each marker in it. Shifted times only
    // grow from there by the nudges that keep them increasing, which run() checks as it writes.
    // The keys are read only when the shift moves times up: reading each curve's first and last
    // kept key faults in (and reads ahead around) two places per curve before the conversion
    // releases them, tens of MB for a large file. Keys out of order, which only level structure
    // lets through, are caught as they are written.
    bool shift_fits(const block_flags blocks) const {
        const std::size_t count = shift_.moves_up() ? curve_count(blocks) : 0;
        for (std::size_t i = 0; i < count; ++i) {
            const curve_view* c = source_.find(curve_at(blocks, i));
            if (c == nullptr) continue;
            const windowed_curve wc(*c, w_);
            if (wc.size() == 0) continue;
            if (!shift_.fits(wc.key(0).time) || !shift_.fits(wc.key(wc.size() - 1).time)) {
                return false;
            }
        }
        if (!source_.summary().markers) return true;
        for (const marker_view& m : source_.markers()) {
            if (w_.holds(m.time) && !shift_.fits(m.time)) return false;
        }
        return true;
    }

    void release(std::uint64_t from, std::uint64_t to) const {
        if (o_.consumed && to > from) {
            o_.consumed(source_.bytes().subspan(static_cast<std::size_t>(from),
                                                static_cast<std::size_t>(to - from)));
        }
    }

    std::uint64_t curve_end(const curve_view& c) const noexcept {
        return c.keyframe_offset(c.keys.size());
    }

    // A curve of a block the source lacks (v1.0 target): MRTK's empty curve.
    void write_empty(curve_id id) {
        encoder_.begin_curve(id, 8, 8, 0);
        ++r_.empty_curves_added;
    }

    void count_window(const windowed_curve& wc) {
        r_.keys_outside += wc.source().keys.size() - (wc.size() - wc.edges());
        r_.edge_keys_added += wc.edges();
        if (full()) r_.curved_edges += wc.curved_edges();
    }

    // Whether the compact target drops fields of this source key that change playback.
    bool drops_curve(const windowed_curve& wc) const noexcept {
        return detail::narrowing_drops_shape(wc.source().kind, wc.source().keys.stride(), target_);
    }

    // Writes the keys of `wc` whose flag in `keep` is set, at their times in `times`: what
    // thinning kept, key by key.
    void write_keys(const windowed_curve& wc, std::span<const std::uint8_t> keep,
                    std::span<const float> times) {
        std::array<keyframe, batch_keys> batch;
        std::size_t used = 0;
        std::uint64_t curved = 0;
        const bool check = drops_curve(wc);
        const std::size_t n = wc.size();
        for (std::size_t i = 0; i < n; ++i) {
            if (keep[i] == 0) continue;
            keyframe k = wc.key(i);
            if (check && wc.curved(i)) ++curved;
            k.time = times[i];
            batch[used++] = k;
            if (used == batch.size()) {
                if (encoder_.write_keys(batch)) return;
                used = 0;
            }
            ++r_.keys_written;
        }
        encoder_.write_keys(std::span(batch.data(), used));
        if (curved != 0) {
            ++r_.curved_curves;
            r_.curved_keys += curved;
        }
    }

    void write_curve(curve_id id) {
        const curve_view* c = source_.find(id);
        if (c == nullptr) return write_empty(id);
        const windowed_curve wc(*c, w_);
        count_window(wc);
        if (encoder_.begin_curve(id, c->pre_wrap, c->post_wrap, wc.size())) return;
        write_all(wc);
    }

    // Every key of `wc`: its run of source keys in blocks, each copied or transcoded by the
    // kernels into the target's layout and its times shifted there, and the keys added at the
    // window's ends one by one.
    void write_all(const windowed_curve& wc) {
        shift_.restart();
        if (const keyframe* edge = wc.from_edge()) write_one(*edge);
        const curve_view& c = wc.source();
        const std::size_t in_stride = c.keys.stride();
        const std::size_t out_stride = detail::stride_of(target_, c.id);
        // Keys per block: a piece of the source to release, or as many as the buffers hold.
        const std::size_t block = keys_.copies(in_stride, out_stride)
                                      ? release_piece / in_stride
                                      : key_writer::block_keys(in_stride, out_stride);
        const bool count_curved = drops_curve(wc);
        std::uint64_t curved = 0;
        std::uint64_t released = c.offset;
        for (std::size_t at = wc.first_kept(), end = wc.end_kept(); at < end;) {
            const std::size_t n = std::min(block, end - at);
            const std::byte* in = source_keys(c.keyframe_offset(at), n * in_stride);
            if (in == nullptr) return;
            if (keys_.write(in, n, in_stride, out_stride, count_curved ? &curved : nullptr)) {
                return;
            }
            r_.keys_written += n;
            at += n;
            if (c.keyframe_offset(at) - released >= release_piece) {
                release(released, c.keyframe_offset(at));
                released = c.keyframe_offset(at);
            }
        }
        if (const keyframe* edge = wc.to_edge()) write_one(*edge);
        if (curved != 0) {
            ++r_.curved_curves;
            r_.curved_keys += curved;
        }
        release(released, curve_end(c));
    }

    // `size` bytes of the source from `offset`: in the mapping, or read into read_buffer_ from
    // options.source. Null when that read fails.
    const std::byte* source_keys(std::uint64_t offset, std::size_t size) {
        if (o_.source == nullptr) return source_.bytes().data() + offset;
        read_buffer_.resize(std::max(release_piece, std::uint64_t{transcode_bytes}));
        std::error_code ec;
        const std::size_t got = o_.source->read_at(offset, std::span(read_buffer_).first(size), ec);
        if (ec || got != size) {
            r_.error = ec ? ec : std::make_error_code(std::errc::io_error);
            r_.source_failed = true;
            return nullptr;
        }
        return read_buffer_.data();
    }

    // A key added at a window's end.
    void write_one(keyframe k) {
        k.time = shift_(k.time);
        if (!encoder_.write_key(k)) ++r_.keys_written;
    }

    // Thinned: a bool curve keeps its changes; a vector's curves are thinned together when they
    // share their key times.
    void write_group(const curve_group& g) {
        std::array<const curve_view*, 4> views{};
        for (std::size_t j = 0; j < g.count; ++j) views[j] = source_.find(curve_id(g.first + j));
        if (views[0] == nullptr) {
            for (std::size_t j = 0; j < g.count; ++j) write_empty(curve_id(g.first + j));
            return;
        }
        if (views[0]->kind == curve_kind::bool_curve) return write_bool(*views[0]);
        std::array<std::optional<windowed_curve>, 4> wcs;
        for (std::size_t j = 0; j < g.count; ++j) wcs[j].emplace(*views[j], w_);
        bool linear = true;
        bool shared = true;
        for (std::size_t j = 0; j < g.count; ++j) {
            linear = linear && thinnable(*wcs[j]);
            shared = shared && wcs[j]->size() == wcs[0]->size();
        }
        for (std::size_t i = 0; shared && i < wcs[0]->size(); ++i) {
            const float t = wcs[0]->key(i).time;
            for (std::size_t j = 1; j < g.count; ++j) shared = shared && wcs[j]->key(i).time == t;
        }
        if (shared && linear && g.count > 1) {
            thin_together(g, wcs);
        } else {
            for (std::size_t j = 0; j < g.count; ++j) {
                thin_alone(curve_id(g.first + j), *wcs[j], g.tolerance);
            }
        }
    }

    // A full target keeps tangents: only curves of MRTK's linear keys are thinned there.
    bool thinnable(const windowed_curve& wc) const noexcept {
        if (!full() || wc.source().keys.stride() != full_keyframe_size) return true;
        for (std::size_t i = 0; i < wc.size(); ++i) {
            if (wc.curved(i)) return false;
        }
        return true;
    }

    // Loads the shifted times of `wc` and its values into component `d`.
    void load(const windowed_curve& wc, std::size_t d, bool with_times) {
        const std::size_t n = wc.size();
        if (with_times) {
            times_.resize(n);
            shift_.restart();
        }
        values_[d].resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            const keyframe k = wc.key(i);
            if (with_times) times_[i] = shift_(k.time);
            values_[d][i] = k.value;
        }
    }

    void thin_keys(std::size_t dims, double tolerance) {
        const std::size_t n = times_.size();
        keep_.assign(n, 0);
        if (n == 0) return;
        std::array<std::span<const float>, 4> components;
        for (std::size_t d = 0; d < dims; ++d) components[d] = values_[d];
        thinner_.keep_run(times_, std::span(components.data(), dims), 0, n - 1, tolerance,
                          o_.thin->partition, keep_);
    }

    void write_kept(curve_id id, const windowed_curve& wc) {
        const std::size_t kept =
            static_cast<std::size_t>(std::count(keep_.begin(), keep_.end(), 1));
        count_window(wc);
        r_.keys_thinned += wc.size() - kept;
        const curve_view& c = wc.source();
        if (encoder_.begin_curve(id, c.pre_wrap, c.post_wrap, kept)) return;
        write_keys(wc, keep_, times_);
        release(c.offset, curve_end(c));
    }

    void thin_together(const curve_group& g, std::array<std::optional<windowed_curve>, 4>& wcs) {
        for (std::size_t j = 0; j < g.count; ++j) load(*wcs[j], j, j == 0);
        thin_keys(g.count, g.tolerance);
        for (std::size_t j = 0; j < g.count && !encoder_.status(); ++j) {
            write_kept(curve_id(g.first + j), *wcs[j]);
        }
    }

    void thin_alone(curve_id id, const windowed_curve& wc, double tolerance) {
        if (!thinnable(wc)) {
            ++r_.curves_not_thinned;
            count_window(wc);
            const curve_view& c = wc.source();
            if (encoder_.begin_curve(id, c.pre_wrap, c.post_wrap, wc.size())) return;
            write_all(wc);
            return;
        }
        load(wc, 0, true);
        thin_keys(1, tolerance);
        write_kept(id, wc);
    }

    void write_bool(const curve_view& c) {
        const windowed_curve wc(c, w_);
        const std::size_t n = wc.size();
        keep_.assign(n, 0);
        float last = 0.0f;
        for (std::size_t i = 0; i < n; ++i) {
            const float v = wc.key(i).value;
            if (i == 0 || v != last) {
                keep_[i] = 1;
                last = v;
            }
        }
        times_.resize(n);
        shift_.restart();
        for (std::size_t i = 0; i < n; ++i) times_[i] = shift_(wc.key(i).time);
        write_kept(c.id, wc);
    }

    void write_markers() {
        if (!source_.summary().markers) {
            r_.marker_list_added = true;
            encoder_.begin_markers(0);
            return;
        }
        const marker_range markers = source_.markers();
        std::uint32_t inside = 0;
        for (const marker_view& m : markers) inside += w_.holds(m.time) ? 1 : 0;
        r_.markers_dropped = static_cast<std::uint32_t>(markers.size()) - inside;
        if (encoder_.begin_markers(inside)) return;
        std::uint64_t released = markers.empty() ? 0 : markers.begin()->offset;
        for (const marker_view& m : markers) {
            if (!w_.holds(m.time)) continue;
            if (encoder_.write_marker(shift_.marker(m.time), m.name)) return;
            ++r_.markers_written;
            if (m.offset - released >= release_piece) {
                release(released, m.offset);
                released = m.offset;
            }
        }
    }

    const recording& source_;
    encoder encoder_;
    const convert_options& o_;
    convert_result& r_;
    // What the file written holds.
    const file_header target_;
    window w_;
    time_shift shift_;
    thinner thinner_;
    std::vector<float> times_;
    std::array<std::vector<float>, 4> values_;
    std::vector<std::uint8_t> keep_;
    key_writer keys_;
    std::vector<std::byte> read_buffer_;
};

}  // namespace

// The source is framed by the walk the stream validator uses (detail::layout_walk, checking only
// what frames the file), fed from the first byte after its header; this writes what the walk
// visits.
class stream_converter::impl final : private detail::walk_visitor {
  public:
    impl(inputanim::layout source, byte_sink& sink, const convert_options& o,
         convert_result& r) noexcept
        : source_layout_(source),
          minor_(o.minor),
          layout_(o.layout),
          encoder_(sink),
          r_(r),
          shift_(false, 0.0f, r.keys_nudged),
          keys_(encoder_, shift_) {}

    void feed(const std::byte* p, std::size_t n) {
        if (!header_read_) {
            const detail::header_check h = detail::gather_header(head_.data(), head_size_, p, n);
            if (h.error) return cannot_frame();
            if (!h.whole()) return;
            start(h);
        }
        walk_.feed(p, n);
        if (walk_.failed()) cannot_frame();
    }

    void finish() {
        if (!header_read_) return cannot_frame();
        walk_.finish();
        if (walk_.failed()) return cannot_frame();
        if (!walk_.has_marker_list()) {
            r_.marker_list_added = true;
            encoder_.begin_markers(0);
        }
        r_.error = encoder_.finish();
    }

  private:
    // The first error stands: after it, nothing is written and nothing counted.
    void cannot_frame() noexcept {
        if (!r_.error) r_.error = convert_error::cannot_frame;
    }
    void check() noexcept {
        if (!r_.error) r_.error = encoder_.status();
    }
    // What a field of the source writes, and what its end brings (a curve's end, a marker's),
    // goes on after an error in that field; nothing goes on after an error in an earlier one.
    bool go_on() noexcept {
        halted_ = static_cast<bool>(r_.error);
        return !halted_;
    }

    void start(const detail::header_check& h) {
        header_read_ = true;
        source_ = detail::v1_header(1, h.minor, source_layout_, h.blocks);
        target_ = detail::v1_header(1, minor_, layout_, h.blocks);
        encoder_.write_header(1, minor_, target_.layout, target_.blocks);
        check();
        walk_.start(source_, h.size, detail::walk_checks::framing, {}, false, this);
    }

    // Empty curves for the target's curves before `index` (curve_id order) that the source
    // lacks.
    void fill_until(std::size_t index) {
        const std::size_t count = target_.curve_count;
        for (; next_target_ < count && to_index(curve_at(target_.blocks, next_target_)) < index;
             ++next_target_) {
            encoder_.begin_curve(curve_at(target_.blocks, next_target_), 8, 8, 0);
            ++r_.empty_curves_added;
        }
        check();
    }

    void curve(const detail::curve_start& c) override {
        if (!go_on()) return;
        const curve_id id = c.curve.id;
        fill_until(to_index(id));
        if (r_.error) {
            halted_ = true;
            return;
        }
        in_stride_ = c.curve.stride;
        out_stride_ = detail::stride_of(target_, id);
        curved_ = 0;
        count_curved_ = detail::narrowing_drops_shape(c.curve.kind, in_stride_, target_);
        writing_ =
            next_target_ < target_.curve_count && curve_at(target_.blocks, next_target_) == id;
        if (writing_) {
            ++next_target_;
            encoder_.begin_curve(id, c.pre_wrap, c.post_wrap, c.keys);
            check();
        } else {
            // A v1.0 target has no eye gaze.
            ++r_.gaze_curves_dropped;
            r_.gaze_keys_dropped += c.keys;
        }
    }

    void keys(const std::byte* in, std::size_t count) override {
        if (!go_on() || !writing_) return;
        const std::size_t block = keys_.copies(in_stride_, out_stride_)
                                      ? count
                                      : key_writer::block_keys(in_stride_, out_stride_);
        for (std::size_t done = 0; done < count && !r_.error;) {
            const std::size_t k = std::min(block, count - done);
            r_.error = keys_.write(in + done * in_stride_, k, in_stride_, out_stride_,
                                   count_curved_ ? &curved_ : nullptr);
            if (!r_.error) r_.keys_written += k;
            done += k;
        }
    }

    void curve_end(float) override {
        if (halted_ || curved_ == 0) return;
        ++r_.curved_curves;
        r_.curved_keys += curved_;
    }

    void curves_end() override {
        if (!halted_) fill_until(curve_id_count);
    }

    void marker_list(std::uint64_t, std::uint32_t count) override {
        if (!go_on()) return;
        encoder_.begin_markers(count);
        check();
    }

    void marker(float time, std::uint64_t name_bytes) override {
        if (!go_on()) return;
        encoder_.begin_marker(time, static_cast<std::size_t>(name_bytes));
        check();
    }

    void name(const std::byte* p, std::size_t n) override {
        if (!go_on()) return;
        encoder_.write_marker_name({p, n});
        check();
    }

    void marker_end() override {
        if (!halted_) ++r_.markers_written;
    }

    const inputanim::layout source_layout_;
    // The version and layout asked for (the file written: target_).
    const int minor_;
    const inputanim::layout layout_;
    encoder encoder_;
    convert_result& r_;
    time_shift shift_;
    key_writer keys_;

    // The source's header, gathered until it is whole; then the walk of what follows.
    std::array<std::byte, v11_flags_offset + 3> head_{};
    std::uint8_t head_size_ = 0;
    bool header_read_ = false;
    detail::layout_walk walk_;
    bool halted_ = false;
    // What the source holds, as its header says, and what the file written holds.
    file_header source_{};
    file_header target_{};
    // The next curve of the target's blocks, by its index in file order.
    std::size_t next_target_ = 0;
    // The curve being read.
    std::size_t in_stride_ = 0;
    std::size_t out_stride_ = 0;
    bool writing_ = false;
    bool count_curved_ = false;
    std::uint64_t curved_ = 0;
};

stream_converter::stream_converter(inputanim::layout source, byte_sink& sink,
                                   const convert_options& options) {
    if (const std::error_code problem = options.problem()) {
        result_.error = problem;
    } else if (!options.sequential()) {
        result_.error = std::make_error_code(std::errc::invalid_argument);
    } else {
        impl_.reset(new (std::nothrow) impl(source, sink, options, result_));
        if (!impl_) result_.error = std::make_error_code(std::errc::not_enough_memory);
    }
}

stream_converter::~stream_converter() = default;

std::error_code stream_converter::feed(std::span<const std::byte> bytes) {
    if (!result_.error && !finished_) impl_->feed(bytes.data(), bytes.size());
    return result_.error;
}

const convert_result& stream_converter::finish() {
    if (!result_.error && !finished_) impl_->finish();
    finished_ = true;
    return result_;
}

namespace {

constexpr detail::code_row<convert_error> convert_rows[] = {
    {convert_error::none, "none", "no error"},
    {convert_error::cannot_frame, "cannot_frame", "the bytes do not frame as a v1 recording"},
    {convert_error::shift_out_of_range, "shift_out_of_range",
     "shifted to start at 0, a key or marker time would pass the largest float"},
};
constexpr detail::code_table<convert_error> convert_codes{convert_rows, "unknown error"};

class convert_category final : public detail::code_category<convert_error> {
  public:
    using code_category::code_category;
    std::error_condition default_error_condition(int value) const noexcept override {
        if (value == static_cast<int>(convert_error::shift_out_of_range)) {
            return std::errc::result_out_of_range;
        }
        return {value, *this};
    }
};

}  // namespace

const std::error_category& convert_error_category() noexcept {
    static const convert_category category("inputanim.convert", convert_codes);
    return category;
}

std::error_code make_error_code(convert_error e) noexcept {
    return {static_cast<int>(e), convert_error_category()};
}

std::error_code convert_options::problem() const noexcept {
    if (minor != 0 && minor != 1) return option_error::bad_version;
    if (!detail::known_layout(layout)) return option_error::bad_layout;
    if (const std::error_code e = time_window{from, to}.problem()) return e;
    return thin ? thin->problem() : std::error_code{};
}

bool converts_to_itself(const recording& source, const convert_options& options) noexcept {
    const file_header& h = source.header();
    if (options.problem() || options.from || options.to || options.shift_to_zero || options.thin) {
        return false;
    }
    if (h.edition != edition::v1 || h.major != 1 || h.minor != options.minor) return false;
    if (options.minor == 1 && h.layout != options.layout) return false;
    // The encoder adds an empty list where there is none.
    if (!source.summary().markers) return false;
    // The encoder writes a name's 7-bit encoded length in as few bytes as it takes.
    const std::byte* const base = source.bytes().data();
    for (const marker_view& m : source.markers()) {
        const auto name_at =
            static_cast<std::uint64_t>(reinterpret_cast<const std::byte*>(m.name.data()) - base);
        if (name_at - (m.offset + 4) != detail::shortest_length_bytes(m.name.size())) return false;
    }
    return true;
}

convert_result convert(const recording& source, byte_sink& sink, const convert_options& options) {
    convert_result result;
    if (const std::error_code problem = options.problem()) {
        result.error = problem;
        return result;
    }
    converter(source, sink, options, result).run();
    return result;
}

}  // namespace inputanim
