// Exhaustive structural checks on small files: (a) every prefix of every shape, whose verdict
// follows from the file's field layout alone (the whole file is valid); (b) every single-byte
// change of the header, the first curve header and the marker list, compared with an independent
// reference walker (support/reference.hpp) and with the obvious expectations.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <span>
#include <string>
#include <vector>

#include "support/builders.hpp"
#include "support/reference.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

struct expected_truncation {
    std::size_t offset = 0;
    error_place place = error_place::none;
    curve_id curve{};
    std::int64_t index = -1;
};

// A field a file can end inside, and the `truncated` error a file cut inside it gets.
struct field {
    std::size_t start;
    std::size_t end;
    expected_truncation error;
};

std::size_t varint_size(std::size_t n) {
    std::size_t bytes = 1;
    while (n >= 0x80) {
        n >>= 7;
        ++bytes;
    }
    return bytes;
}

// The fields of the file written from `m`, in file order, from FORMAT.md's layout tables.
std::vector<field> fields_of(const model& m) {
    std::vector<field> out;
    const bool v10 = m.minor == 0;
    out.push_back({0, 8, {0, error_place::header}});
    out.push_back({8, 16, {8, error_place::header}});
    if (!v10) out.push_back({16, 19, {16, error_place::header}});
    const block_flags blocks = v10 ? block_flags{true, true, false} : m.blocks;
    const bool full = v10 || m.layout == layout::full;
    for (std::size_t i = 0; i < curve_count(blocks); ++i) {
        const curve_id id = curve_at(blocks, i);
        const std::size_t at = curve_offset(m, i);
        out.push_back({at, at + 12, {at, error_place::curve, id, -1}});
        const std::size_t stride = kind_of(id) == curve_kind::float_curve && full ? 28 : 8;
        const std::size_t keys = m[id].keys.size() * stride;
        if (keys > 0)
            out.push_back({at + 12, at + 12 + keys, {at + 12, error_place::curve, id, 0}});
    }
    if (!m.markers) return out;
    std::size_t at = marker_list_offset(m);
    out.push_back({at, at + 4, {at, error_place::markers}});
    at += 4;
    for (std::size_t i = 0; i < m.markers->size(); ++i) {
        const auto index = static_cast<std::int64_t>(i);
        const std::size_t name = m.markers->at(i).name.size();
        out.push_back({at, at + 4, {at, error_place::markers, {}, index}});
        at += 4;
        const std::size_t length = varint_size(name);
        out.push_back({at, at + length, {at, error_place::markers, {}, index}});
        at += length;
        if (name > 0) out.push_back({at, at + name, {at, error_place::markers, {}, index}});
        at += name;
    }
    return out;
}

layout_choice matching_layout(shape s) {
    return s == shape::v11_compact ? layout_choice::compact : layout_choice::full;
}

using byte_span = std::span<const std::byte>;

report structure_report(byte_span b, layout_choice choice) {
    return validate(b, validate_options{level::structure, choice});
}

std::string describe(const error& e) {
    return std::string(error_name(e.code)) + ": " + e.message();
}

// `what` is built only on failure: the callers run this hundreds of thousands of times.
template <class Describe>
void expect_agrees_with_reference(byte_span b, layout_choice choice, Describe what) {
    const report lib = structure_report(b, choice);
    const reference::verdict ref = reference::check_structure(b, choice);
    const error& e = lib.error;
    ASSERT_EQ(error_name(e.code), error_name(ref.code))
        << what() << "; library says " << describe(e);
    if (!e) {
        EXPECT_EQ(lib.summary.layout, ref.chosen) << what();
        return;
    }
    EXPECT_EQ(e.offset, ref.offset) << what() << "; library says " << describe(e);
    EXPECT_EQ(e.place, ref.place) << what() << "; library says " << describe(e);
    EXPECT_EQ(e.index, ref.index) << what() << "; library says " << describe(e);
    if (e.place == error_place::curve) {
        EXPECT_EQ(e.path(), curve_path(ref.curve)) << what() << "; library says " << describe(e);
        EXPECT_EQ(lib.summary.layout, ref.chosen) << what() << "; library says " << describe(e);
    }
}

byte_span prefix(const bytes& b, std::size_t n) {
    return view(b).first(n);
}

std::string trace(shape s, bool markers, const char* what, std::size_t n) {
    return std::string(shape_name(s)) + (markers ? " with markers, " : " without markers, ") +
           what + " " + std::to_string(n);
}

std::string changed(shape s, std::size_t at, int v) {
    return trace(s, true, "byte", at) + " = " + std::to_string(v);
}

}  // namespace

TEST(Prefixes, TheWholeFileOfEveryShapeIsValid) {
    for (shape s : all_shapes) {
        const bytes b = small_file(s);
        const report r = validate(view(b));
        EXPECT_TRUE(r.valid()) << shape_name(s) << ": " << r.error.message();
    }
}

TEST(Prefixes, FileWithoutMarkersIsThePrefixEndingAfterTheLastCurve) {
    for (shape s : all_shapes) {
        const model m = small_model(s);
        const bytes with = small_file(s, true);
        const bytes without = small_file(s, false);
        EXPECT_TRUE(std::ranges::equal(view(without), prefix(with, marker_list_offset(m))));
    }
}

TEST(Prefixes, EveryPrefixIsTruncatedWhereTheFieldItEndsInStarts) {
    for (shape s : all_shapes) {
        for (bool with_markers : {true, false}) {
            const model m = small_model(s, with_markers);
            const bytes whole = write(m);
            const std::vector<field> fields = fields_of(m);
            ASSERT_EQ(fields.back().end, whole.size()) << "the field table covers the file";
            const std::size_t curves_end = marker_list_offset(m);
            for (std::size_t n = 0; n <= whole.size(); ++n) {
                SCOPED_TRACE(trace(s, with_markers, "prefix", n));
                const error e = structure_report(prefix(whole, n), matching_layout(s)).error;
                if (n == whole.size() || n == curves_end) {
                    EXPECT_FALSE(e) << describe(e);
                    continue;
                }
                const field* f = nullptr;
                for (const field& candidate : fields) {
                    if (candidate.end > n) {
                        f = &candidate;
                        break;
                    }
                }
                ASSERT_NE(f, nullptr);
                ASSERT_EQ(e.code, errc::truncated) << describe(e);
                EXPECT_EQ(e.offset, f->error.offset) << describe(e);
                EXPECT_EQ(e.place, f->error.place) << describe(e);
                EXPECT_EQ(e.index, f->error.index) << describe(e);
                if (e.place == error_place::curve) {
                    EXPECT_EQ(e.curve, f->error.curve);
                }
            }
        }
    }
}

TEST(Prefixes, AutomaticLayoutReportsTheWalkThatGotFurther) {
    // camera.position.x has 4 keys: 32 bytes compact, 112 full, starting at 31. A full file cut
    // in [63, 143) is truncated at 31 under full, while the compact walk gets to 63 (truncated,
    // or the key time 0.25 read as a wrap mode). A compact file cut in [143, 151) is truncated
    // at 119 (camera.position.z's keys) under compact, while the full walk gets to 143. Every
    // other prefix is diagnosed under its own layout.
    struct expectation {
        shape s;
        std::size_t other_from;
        std::size_t other_to;
    };
    for (const expectation& x :
         {expectation{shape::v11_compact, 143, 151}, expectation{shape::v11_full, 63, 143}}) {
        const bytes whole = small_file(x.s);
        for (std::size_t n = 19; n <= whole.size(); ++n) {
            const byte_span b = prefix(whole, n);
            SCOPED_TRACE(trace(x.s, true, "prefix", n));
            const error compact = structure_report(b, layout_choice::compact).error;
            const error full = structure_report(b, layout_choice::full).error;
            const error& own = x.s == shape::v11_compact ? compact : full;
            const error& other = x.s == shape::v11_compact ? full : compact;
            const bool other_wins = n >= x.other_from && n < x.other_to;
            const error automatic = validate(b).error;
            EXPECT_EQ(automatic, other_wins ? other : own) << describe(automatic);
            if (other_wins) {
                EXPECT_GT(other.offset, own.offset);
            }
        }
    }
}

TEST(Prefixes, ReferenceAgreesOnEveryPrefixReadUnderTheOtherLayout) {
    // Under its own layout every prefix is pinned down by the field table above; under the other
    // one the walk misreads keyframes as headers, which the reference must reproduce.
    for (shape s : {shape::v11_compact, shape::v11_full}) {
        const bytes whole = small_file(s);
        const layout_choice other =
            s == shape::v11_compact ? layout_choice::full : layout_choice::compact;
        for (std::size_t n = 0; n <= whole.size(); ++n) {
            expect_agrees_with_reference(prefix(whole, n), other,
                                         [&] { return trace(s, true, "prefix", n); });
        }
    }
}

TEST(SingleByteChanges, HeaderAndFirstCurveHeaderAgreeWithTheReference) {
    for (shape s : all_shapes) {
        const model m = small_model(s);
        bytes b = write(m);
        for (std::size_t at = 0; at < first_curve_offset(m) + 12; ++at) {
            const std::byte original = b[at];
            for (int v = 0; v < 256; ++v) {
                b[at] = static_cast<std::byte>(v);
                for (layout_choice c :
                     {layout_choice::automatic, layout_choice::compact, layout_choice::full}) {
                    expect_agrees_with_reference(view(b), c, [&] { return changed(s, at, v); });
                }
            }
            b[at] = original;
        }
    }
}

TEST(SingleByteChanges, MarkerListBytesAgreeWithTheReference) {
    for (shape s : all_shapes) {
        model m = small_model(s);
        m.markers->push_back(marker{1.0f, std::string(130, 'q')});
        bytes b = write(m);
        // Every value for the count's low byte and the name lengths; a few elsewhere (the times
        // and names are never read by the structure walk, the count's high bytes only make it
        // huge or negative).
        const std::size_t list = marker_list_offset(m);
        const std::size_t lengths[] = {list + 8, list + 18, list + 29, list + 30};
        for (std::size_t at = list; at < b.size(); ++at) {
            const bool structural =
                at < list + 4 || std::ranges::find(lengths, at) != std::end(lengths);
            const std::byte original = b[at];
            for (int v = 0; v < 256; v += structural ? 1 : 0x3f) {
                b[at] = static_cast<std::byte>(v);
                expect_agrees_with_reference(view(b), matching_layout(s),
                                             [&] { return changed(s, at, v); });
            }
            b[at] = original;
        }
    }
}

TEST(SingleByteChanges, LowAndHighBytesOfEveryCurveHeaderFieldAgreeWithTheReference) {
    for (shape s : all_shapes) {
        const model m = small_model(s);
        bytes b = write(m);
        for (std::size_t i = 0; i < (s == shape::v10 ? 389u : 395u); ++i) {
            const std::size_t header = curve_offset(m, i);
            for (std::size_t at :
                 {header, header + 3, header + 4, header + 7, header + 8, header + 11}) {
                const std::byte original = b[at];
                for (int v : {0x01, 0x81, 0xff}) {
                    b[at] = static_cast<std::byte>(v);
                    expect_agrees_with_reference(view(b), matching_layout(s),
                                                 [&] { return changed(s, at, v); });
                }
                b[at] = original;
            }
        }
    }
}

TEST(SingleByteChanges, AnyMagicByteChangeIsBadMagic) {
    for (shape s : all_shapes) {
        const bytes good = small_file(s);
        for (std::size_t at = 0; at < 8; ++at) {
            for (int v = 0; v < 256; ++v) {
                if (static_cast<std::byte>(v) == good[at]) continue;
                bytes b = good;
                b[at] = static_cast<std::byte>(v);
                const error e = validate(view(b)).error;
                EXPECT_EQ(e.code, errc::bad_magic) << at << " = " << v;
                EXPECT_EQ(e.offset, 0u);
            }
        }
    }
}

TEST(SingleByteChanges, VersionChangesAreUnsupportedUnlessTheyMakeTheOtherVersion) {
    for (shape s : all_shapes) {
        const bytes good = small_file(s);
        for (std::size_t at = 8; at < 16; ++at) {
            for (int v = 0; v < 256; ++v) {
                bytes b = good;
                b[at] = static_cast<std::byte>(v);
                const std::int32_t major = get_i32(b, 8);
                const std::int32_t minor = get_i32(b, 12);
                if (major == 1 && (minor == 0 || minor == 1)) continue;
                const error e = validate(view(b)).error;
                EXPECT_EQ(e.code, errc::unsupported_version) << at << " = " << v;
                EXPECT_EQ(e.offset, 8u);
                EXPECT_EQ(e.place, error_place::header);
            }
        }
    }
}

TEST(SingleByteChanges, SwappingTheMinorVersionMisreadsTheBody) {
    // A v1.0 body read as v1.1 takes camera.position.x's pre-wrap 8 for the camera flag.
    bytes v10_as_v11 = small_file(shape::v10);
    put_i32(v10_as_v11, 12, 1);
    const error e = validate(view(v10_as_v11)).error;
    EXPECT_EQ(e.code, errc::bad_flag);
    EXPECT_EQ(e.offset, 16u);

    bytes v11_as_v10 = small_file(shape::v11_full);
    put_i32(v11_as_v10, 12, 0);
    EXPECT_FALSE(validate(view(v11_as_v10)).valid());
}

TEST(SingleByteChanges, FlagBytesAboveOneAreBadFlagAtThatByte) {
    for (shape s : {shape::v11_compact, shape::v11_full}) {
        const bytes good = small_file(s);
        for (std::size_t at = 16; at < 19; ++at) {
            for (int v = 2; v < 256; ++v) {
                bytes b = good;
                b[at] = static_cast<std::byte>(v);
                const error e = validate(view(b)).error;
                EXPECT_EQ(e.code, errc::bad_flag) << at << " = " << v;
                EXPECT_EQ(e.offset, at);
                EXPECT_EQ(e.place, error_place::header);
            }
        }
    }
}

TEST(SingleByteChanges, IllegalWrapModesInTheFirstCurveAreReportedAtTheirField) {
    for (shape s : all_shapes) {
        const model m = small_model(s);
        const bytes good = write(m);
        const std::size_t header = first_curve_offset(m);
        for (std::size_t at = header; at < header + 8; ++at) {
            const std::size_t field = at < header + 4 ? header : header + 4;
            for (int v = 0; v < 256; ++v) {
                bytes b = good;
                b[at] = static_cast<std::byte>(v);
                const std::int32_t mode = get_i32(b, field);
                const bool legal = mode == 0 || mode == 1 || mode == 2 || mode == 4 || mode == 8;
                const error e = validate(view(b)).error;
                if (legal) {
                    EXPECT_FALSE(e) << at << " = " << v << ": " << describe(e);
                    continue;
                }
                EXPECT_EQ(e.code, errc::bad_wrap_mode) << at << " = " << v;
                EXPECT_EQ(e.offset, field) << at << " = " << v;
                EXPECT_EQ(e.curve, camera_curve(pose_channel::position_x));
            }
        }
    }
}

TEST(SingleByteChanges, ACountWithItsTopBitSetIsNegativeAtTheCount) {
    for (shape s : all_shapes) {
        const model m = small_model(s);
        const bytes good = write(m);
        const std::size_t count = first_curve_offset(m) + 8;
        for (int v = 0x80; v < 256; ++v) {
            bytes b = good;
            b[count + 3] = static_cast<std::byte>(v);
            const error e = validate(view(b)).error;
            EXPECT_EQ(e.code, errc::negative_count) << v;
            EXPECT_EQ(e.offset, count);
            EXPECT_EQ(e.index, -1);
        }
    }
}
