// A structure-aware mutator: inputs that read as a model are changed as a model (key counts,
// wrap modes, flags, version, layout, keyframe fields, poses, markers) and written back with the
// writer, so that mutations land deep inside curves instead of dying at the header; now and then
// one structural field of the written file is damaged on purpose. Inputs that do not read fall
// back to libFuzzer's byte-level mutator. The test function runs the whole differential check.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "invariants.hpp"

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

namespace inputanim::fuzz {
namespace {

using rng_t = std::minstd_rand;

std::uint32_t below(rng_t& rng, std::uint32_t n) {
    return n == 0 ? 0 : static_cast<std::uint32_t>(rng() % n);
}
bool one_in(rng_t& rng, std::uint32_t n) {
    return below(rng, n) == 0;
}

float interesting_float(rng_t& rng) {
    constexpr float values[] = {0.0f,
                                -0.0f,
                                1.0f,
                                -1.0f,
                                0.5f,
                                1.0f / 60.0f,
                                1e-6f,
                                1e6f,
                                std::numeric_limits<float>::denorm_min(),
                                std::numeric_limits<float>::max(),
                                std::numeric_limits<float>::lowest(),
                                std::numeric_limits<float>::infinity(),
                                -std::numeric_limits<float>::infinity(),
                                std::numeric_limits<float>::quiet_NaN()};
    if (one_in(rng, 4))
        return std::bit_cast<float>(static_cast<std::uint32_t>(rng() ^ (rng() << 16)));
    return values[below(rng, std::size(values))];
}

std::int32_t any_wrap_mode(rng_t& rng) {
    constexpr std::int32_t valid[] = {0, 1, 2, 4, 8};
    // Mostly valid, so that the walk goes on; sometimes the nearest invalid neighbours.
    if (one_in(rng, 8)) return static_cast<std::int32_t>(below(rng, 10)) - 1;
    return valid[below(rng, 5)];
}

std::string any_name(rng_t& rng) {
    constexpr const char* names[] = {
        "start", "grab",     "gr\xc3\xbc\xc3\x9f", "\xe2\x9c\x8b",     "\xf0\x9f\x91\x8b",
        "",      "\xc0\x80", "\xed\xa0\x80",       "\xf4\x90\x80\x80", "\xff"};
    if (one_in(rng, 8)) return std::string(130 + below(rng, 300), 'x');
    return names[below(rng, std::size(names))];
}

// Present curves, in file order.
std::vector<curve_id> present(const model& m) {
    const block_flags b = m.minor == 0 ? block_flags{true, true, false} : m.blocks;
    std::vector<curve_id> ids;
    for (std::size_t i = 0; i < curve_count(b); ++i) ids.push_back(curve_at(b, i));
    return ids;
}

// A present curve, preferring one that has keys.
curve* pick_curve(model& m, rng_t& rng, curve_id* id_out = nullptr) {
    const std::vector<curve_id> ids = present(m);
    if (ids.empty()) return nullptr;
    curve_id id = ids[below(rng, static_cast<std::uint32_t>(ids.size()))];
    if (!one_in(rng, 4)) {
        for (std::size_t tries = 0; tries < 8 && m[id].keys.empty(); ++tries) {
            id = ids[below(rng, static_cast<std::uint32_t>(ids.size()))];
        }
    }
    if (id_out != nullptr) *id_out = id;
    return &m[id];
}

keyframe next_key(const std::vector<keyframe>& keys, rng_t& rng) {
    keyframe k;
    const float last = keys.empty() ? 0.0f : keys.back().time;
    k.time = std::isfinite(last) ? last + 1.0f / 60.0f : 0.0f;
    k.value = keys.empty() ? 0.0f : keys.back().value + 0.001f * static_cast<float>(below(rng, 9));
    return k;
}

void change_key_count(model& m, rng_t& rng, std::size_t budget) {
    curve* c = pick_curve(m, rng);
    if (c == nullptr) return;
    switch (below(rng, 3)) {
        case 0: {
            const std::size_t n =
                1 + below(rng, static_cast<std::uint32_t>(std::min<std::size_t>(budget, 64)));
            for (std::size_t i = 0; i < n; ++i) c->keys.push_back(next_key(c->keys, rng));
            break;
        }
        case 1:
            if (!c->keys.empty()) {
                const std::size_t from = below(rng, static_cast<std::uint32_t>(c->keys.size()));
                const std::size_t n =
                    1 + below(rng, static_cast<std::uint32_t>(c->keys.size() - from));
                c->keys.erase(c->keys.begin() + static_cast<std::ptrdiff_t>(from),
                              c->keys.begin() + static_cast<std::ptrdiff_t>(from + n));
            }
            break;
        default:
            c->keys.clear();
            break;
    }
}

void change_keyframe(model& m, rng_t& rng) {
    curve_id id{};
    curve* c = pick_curve(m, rng, &id);
    if (c == nullptr || c->keys.empty()) return;
    const std::size_t i = below(rng, static_cast<std::uint32_t>(c->keys.size()));
    keyframe& k = c->keys[i];
    switch (below(rng, 9)) {
        case 0:
            k.time = interesting_float(rng);
            break;
        case 1:
            k.value = interesting_float(rng);
            break;
        case 2:
            // A bool curve's value must be 0 or 1; 0.5 and -0.0 probe the comparison.
            k.value = kind_of(id) == curve_kind::bool_curve ? (one_in(rng, 2) ? 0.5f : -0.0f)
                                                            : interesting_float(rng);
            break;
        case 3:
            k.in_tangent = interesting_float(rng);
            break;
        case 4:
            k.out_tangent = interesting_float(rng);
            break;
        case 5:
            k.in_weight = interesting_float(rng);
            break;
        case 6:
            k.out_weight = interesting_float(rng);
            break;
        case 7:
            k.weighted_mode = static_cast<std::int32_t>(below(rng, 7)) - 1;
            break;
        default:
            // Equal or earlier times: unsorted keys.
            if (i > 0) k.time = c->keys[i - 1].time - (one_in(rng, 2) ? 0.0f : 1.0f);
            break;
    }
}

// The four rotation curves of a pose with keys at the same times: quaternions near and far from
// unit length, or a W curve that kept only its first key (MRTK issue 9831).
void make_pose(model& m, rng_t& rng) {
    const std::size_t pose = below(rng, 1 + 2 * joint_count);
    const curve_id x = pose == 0 ? camera_curve(pose_channel::rotation_x)
                                 : joint_curve(pose <= joint_count ? side::left : side::right,
                                               static_cast<joint>((pose - 1) % joint_count),
                                               pose_channel::rotation_x);
    const std::size_t n = 2 + below(rng, 6);
    const float scale = one_in(rng, 2) ? 1.0f : 1.5f;
    for (std::size_t c = 0; c < 4; ++c) {
        auto& keys = m[curve_id(to_index(x) + c)].keys;
        keys.clear();
        for (std::size_t k = 0; k < n; ++k) {
            keyframe kf;
            kf.time = static_cast<float>(k) / 60.0f;
            kf.value = c == 3 ? 0.8f * scale : (c == 0 ? 0.6f * scale : 0.0f);
            keys.push_back(kf);
        }
    }
    if (one_in(rng, 3)) m[curve_id(to_index(x) + 3)].keys.resize(1);
}

void change_markers(model& m, rng_t& rng) {
    if (!m.markers) {
        m.markers.emplace();
        return;
    }
    auto& list = *m.markers;
    switch (below(rng, 5)) {
        case 0:
            list.insert(list.begin() + below(rng, static_cast<std::uint32_t>(list.size() + 1)),
                        marker{interesting_float(rng), any_name(rng)});
            break;
        case 1:
            if (!list.empty())
                list.erase(list.begin() + below(rng, static_cast<std::uint32_t>(list.size())));
            break;
        case 2:
            if (!list.empty())
                list[below(rng, static_cast<std::uint32_t>(list.size()))].name = any_name(rng);
            break;
        case 3:
            if (!list.empty())
                list[below(rng, static_cast<std::uint32_t>(list.size()))].time =
                    interesting_float(rng);
            break;
        default:
            m.markers.reset();
            break;
    }
}

void change_shape(model& m, rng_t& rng) {
    switch (below(rng, 4)) {
        case 0:
            m.minor = m.minor == 0 ? 1 : 0;
            if (m.minor == 0) {
                m.blocks = block_flags{true, true, false};
                m.layout = layout::full;
            }
            break;
        case 1:
            m.blocks.camera = !m.blocks.camera;
            break;
        case 2:
            m.blocks.hands = !m.blocks.hands;
            break;
        default:
            m.blocks.gaze = !m.blocks.gaze;
            break;
    }
    if (one_in(rng, 2)) m.layout = m.layout == layout::full ? layout::compact : layout::full;
}

void mutate_model(model& m, rng_t& rng, std::size_t budget) {
    switch (below(rng, 7)) {
        case 0:
            change_key_count(m, rng, budget);
            break;
        case 1: {
            curve* c = pick_curve(m, rng);
            if (c == nullptr) break;
            (one_in(rng, 2) ? c->pre_wrap : c->post_wrap) = any_wrap_mode(rng);
            break;
        }
        case 2:
            change_shape(m, rng);
            break;
        case 3:
        case 4:
            change_keyframe(m, rng);
            break;
        case 5:
            make_pose(m, rng);
            break;
        default:
            change_markers(m, rng);
            break;
    }
}

// Damages one structural field of a written file: a curve's wrap mode or count, the marker
// count, the end of the file, or bytes after it.
void damage(std::vector<std::byte>& bytes, rng_t& rng, std::size_t max_size) {
    reader r(std::span<const std::byte>(bytes.data(), bytes.size()));
    std::vector<std::uint64_t> headers;
    for (item it = r.next(); it == item::curve; it = r.next()) headers.push_back(r.curve().offset);
    const auto put_i32 = [&](std::uint64_t at, std::int32_t v) {
        if (at + 4 > bytes.size()) return;
        std::uint32_t u = static_cast<std::uint32_t>(v);
        for (int i = 0; i < 4; ++i) bytes[at + i] = static_cast<std::byte>((u >> (8 * i)) & 0xff);
    };
    constexpr std::int32_t counts[] = {-1,
                                       std::numeric_limits<std::int32_t>::min(),
                                       std::numeric_limits<std::int32_t>::max(),
                                       0x08000000,
                                       1,
                                       2};
    switch (below(rng, 4)) {
        case 0:
            if (!headers.empty()) {
                const std::uint64_t h =
                    headers[below(rng, static_cast<std::uint32_t>(headers.size()))];
                if (one_in(rng, 2)) {
                    put_i32(h + 8, counts[below(rng, std::size(counts))]);
                } else {
                    put_i32(h + 4 * below(rng, 2), static_cast<std::int32_t>(below(rng, 17)));
                }
            }
            break;
        case 1:
            // A few bytes short: inside the marker list or the last keyframe.
            bytes.resize(bytes.size() - std::min<std::size_t>(bytes.size(), 1 + below(rng, 3)));
            break;
        case 2:
            if (!bytes.empty()) bytes.resize(below(rng, static_cast<std::uint32_t>(bytes.size())));
            break;
        default:
            if (bytes.size() < max_size) bytes.push_back(static_cast<std::byte>(rng()));
            break;
    }
}

}  // namespace
}  // namespace inputanim::fuzz

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size,
                                               std::size_t max_size, unsigned int seed) {
    using namespace inputanim;
    using namespace inputanim::fuzz;
    rng_t rng(seed);
    model m;
    // Unreadable inputs, and one mutation in sixteen, go to libFuzzer's byte-level mutator.
    if (one_in(rng, 16) || read_model(as_bytes(data, size), m)) {
        return LLVMFuzzerMutate(data, size, max_size);
    }
    // Room for new keys: 28 bytes per full keyframe.
    const std::size_t budget = size < max_size ? (max_size - size) / 28 : 0;
    const std::uint32_t rounds = 1 + below(rng, 3);
    for (std::uint32_t i = 0; i < rounds; ++i) mutate_model(m, rng, budget);
    std::vector<std::byte> out = write(m);
    if (one_in(rng, 8)) damage(out, rng, max_size);
    if (out.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
    std::memcpy(data, out.data(), out.size());
    return out.size();
}

// Each curve comes from one of the two parents, so that long curves of one meet the shape of
// the other.
extern "C" std::size_t LLVMFuzzerCustomCrossOver(const std::uint8_t* data1, std::size_t size1,
                                                 const std::uint8_t* data2, std::size_t size2,
                                                 std::uint8_t* out, std::size_t max_out_size,
                                                 unsigned int seed) {
    using namespace inputanim;
    using namespace inputanim::fuzz;
    model a;
    model b;
    if (read_model(as_bytes(data1, size1), a) || read_model(as_bytes(data2, size2), b)) return 0;
    rng_t rng(seed);
    for (std::size_t i = 0; i < curve_id_count; ++i) {
        if (one_in(rng, 2)) a.curves[i] = b.curves[i];
    }
    if (one_in(rng, 2)) a.markers = b.markers;
    const std::vector<std::byte> bytes = write(a);
    if (bytes.size() > max_out_size) return 0;
    std::memcpy(out, bytes.data(), bytes.size());
    return bytes.size();
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    inputanim::fuzz::check_file(inputanim::fuzz::as_bytes(data, size));
    return 0;
}
