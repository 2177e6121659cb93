// gzip input: recognition by content, inflation whatever the chunking of the compressed bytes,
// and chunk_validator's verdict on a compressed recording equal to validate() of the raw bytes,
// for valid, invalid and truncated recordings. Damaged gzip streams and bombs are in
// test_gzip_errors.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "detail/gzip_inflater.hpp"
#include "inputanim/input.hpp"
#include "support/builders.hpp"
#include "support/gzip_bytes.hpp"
#include "support/seed.hpp"
#include "support/validation_cases.hpp"

using namespace inputanim;
using namespace inputanim::testing;
using inputanim::detail::gzip_fault;
using inputanim::detail::gzip_inflater;
using inputanim::detail::is_gzip;

namespace {

// `fixed`: the test's seed (support/seed.hpp), which INPUTANIM_TEST_SEED replaces.
bytes random_bytes(std::size_t n, std::uint32_t fixed) {
    std::mt19937 rng(test_seed(fixed));
    std::uniform_int_distribution<int> byte(0, 255);
    bytes out(n);
    for (std::byte& b : out) b = static_cast<std::byte>(byte(rng));
    return out;
}

bytes concat(const bytes& a, const bytes& b) {
    bytes out = a;
    out.insert(out.end(), b.begin(), b.end());
    return out;
}

// Everything the inflater hands out, with `compressed` written in chunks of `chunk` bytes.
bytes inflate_in_chunks(const bytes& compressed, std::size_t chunk, gzip_fault& error) {
    gzip_inflater inflater;
    bytes out;
    for (std::size_t pos = 0; pos < compressed.size(); pos += chunk) {
        const std::size_t n = std::min(chunk, compressed.size() - pos);
        inflater.write(std::span(compressed).subspan(pos, n), [&](std::span<const std::byte> p) {
            EXPECT_LE(p.size(), gzip_inflater::piece_size);
            out.insert(out.end(), p.begin(), p.end());
            return true;
        });
    }
    error = inflater.finish();
    EXPECT_EQ(inflater.compressed_bytes(), compressed.size());
    EXPECT_EQ(inflater.inflated_bytes(), out.size());
    return out;
}

struct gz_verdict {
    report rep;
    // bad_compression: the inflation failed.
    bool fault = false;
    std::uint64_t inflated = 0;
};

// chunk_validator over `compressed` in chunks of `chunk` bytes, stopping at `error` as a server
// would.
gz_verdict validate_gzip(const bytes& compressed, const validate_options& options,
                         std::size_t chunk) {
    chunk_validator v(options);
    for (std::size_t pos = 0; pos < compressed.size(); pos += chunk) {
        const std::size_t n = std::min(chunk, compressed.size() - pos);
        if (v.feed(std::span(compressed).subspan(pos, n)) == stream_status::error) break;
    }
    const report& r = v.finish();
    return {r, r.error.code == errc::bad_compression, v.recording_bytes()};
}

// Empty when the verdict over the compressed bytes is validate()'s over the raw bytes; else what
// differs. The stream does not compute non_unit_quaternion (docs/STREAMING.md), and its
// summary.bytes is what it inflated up to the verdict.
std::string difference(const report& whole, const gz_verdict& g) {
    if (g.fault) return "gzip fault at " + std::to_string(g.rep.error.offset);
    const report& r = g.rep;
    std::string d;
    if (whole.valid() != r.valid()) d += "validity; ";
    if (!(whole.error == r.error)) {
        d += "error: validate " + describe(whole.error) + ", gzip " + describe(r.error) + "; ";
    }
    if (whole.valid() && r.summary.bytes != whole.summary.bytes) d += "summary.bytes; ";
    d += summary_difference(whole.summary, r.summary);
    if (!same_warnings(whole, r, warning_code::non_unit_quaternion)) d += "warnings; ";
    return d;
}

void expect_same_as_validate(const std::string& name, const bytes& raw,
                             const validate_options& options = {}) {
    const report whole = validate(view(raw), options);
    const bytes compressed = gzip_compress(raw);
    for (std::size_t chunk = 1; chunk <= 64; ++chunk) {
        ASSERT_EQ(difference(whole, validate_gzip(compressed, options, chunk)), "")
            << name << ", compressed chunks of " << chunk;
    }
    ASSERT_EQ(difference(whole, validate_gzip(compressed, options, compressed.size())), "")
        << name << ", one chunk";
    // Stored (level 0) deflate blocks inflate in pieces of another rhythm.
    ASSERT_EQ(difference(whole, validate_gzip(gzip_compress(raw, 0), options, 4096)), "")
        << name << ", stored blocks";
}

// small_model's left wrist rotation is far from unit length: a warning the stream does not
// compute, so the tests of warnings use a file without it.
bytes file_with_negative_time() {
    model m = small_model(shape::v11_compact);
    m[camera_curve(pose_channel::position_x)].keys[0].time = -0.5f;
    return write(m);
}

TEST(GzipRecognition, IsByTheTwoIdentificationBytes) {
    const bytes compressed = gzip_compress(small_file(shape::v11_compact));
    EXPECT_TRUE(is_gzip(view(compressed)));
    EXPECT_TRUE(is_gzip(std::span(compressed).first(2)));
    EXPECT_TRUE(is_gzip(view(gzip_compress({}))));
    const bytes id = {std::byte{0x1f}, std::byte{0x8b}};
    EXPECT_TRUE(is_gzip(view(id)));
}

TEST(GzipRecognition, RecordingsShortInputsAndOtherBytesAreNotGzip) {
    for (shape s : all_shapes) EXPECT_FALSE(is_gzip(view(small_file(s)))) << shape_name(s);
    EXPECT_FALSE(is_gzip({}));
    const bytes one = {std::byte{0x1f}};
    EXPECT_FALSE(is_gzip(view(one)));
    const bytes swapped = {std::byte{0x8b}, std::byte{0x1f}, std::byte{0x08}};
    EXPECT_FALSE(is_gzip(view(swapped)));
    const bytes zlib_stream = {std::byte{0x78}, std::byte{0x9c}};
    EXPECT_FALSE(is_gzip(view(zlib_stream)));
}

TEST(GzipInflater, GivesBackTheDataWhateverTheChunkingOfTheCompressedBytes) {
    const std::vector<std::pair<std::string, bytes>> inputs = {
        {"empty", {}},
        {"v1.1 compact file", small_file(shape::v11_compact)},
        {"v1.0 file", small_file(shape::v10)},
        // Incompressible and larger than a piece: many pieces, stored blocks.
        {"random 200 KB", random_bytes(200'000, 7)},
        // Compresses 1000:1, so one small chunk inflates to many full pieces.
        {"zeros 3 MB", bytes(3'000'000)},
    };
    for (const auto& [name, data] : inputs) {
        const bytes compressed = gzip_compress(data);
        for (std::size_t chunk : {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{64},
                                  std::size_t{4096}, compressed.size()}) {
            if (data.size() > 10'000 && chunk < 64) continue;
            gzip_fault e{};
            const bytes out = inflate_in_chunks(compressed, chunk, e);
            EXPECT_EQ(e, gzip_fault::none) << name << ", chunks of " << chunk;
            EXPECT_TRUE(out == data) << name << ", chunks of " << chunk;
        }
    }
}

TEST(GzipInflater, ReadsMembersWrittenOneAfterAnotherAsOneStream) {
    const bytes a = small_file(shape::v11_compact);
    const bytes b = random_bytes(50'000, 3);
    const bytes both = concat(gzip_compress(a), gzip_compress(b, 9));
    for (std::size_t chunk : {std::size_t{1}, std::size_t{13}, both.size()}) {
        gzip_fault e{};
        EXPECT_TRUE(inflate_in_chunks(both, chunk, e) == concat(a, b)) << "chunks of " << chunk;
        EXPECT_EQ(e, gzip_fault::none);
    }
}

TEST(GzipInflater, StopsAtOnceWhenTheSinkSaysSoAndIgnoresWhatFollows) {
    const bytes data = random_bytes(100'000, 11);
    const bytes compressed = gzip_compress(data);
    gzip_inflater inflater;
    std::size_t pieces = 0;
    const auto first_piece_only = [&](std::span<const std::byte>) {
        ++pieces;
        return false;
    };
    EXPECT_FALSE(inflater.write(view(compressed), first_piece_only));
    EXPECT_TRUE(inflater.stopped());
    EXPECT_EQ(pieces, 1u);
    EXPECT_EQ(inflater.inflated_bytes(), gzip_inflater::piece_size);
    EXPECT_LT(inflater.compressed_bytes(), compressed.size());
    EXPECT_FALSE(inflater.write(view(compressed), first_piece_only));
    EXPECT_EQ(pieces, 1u);
    // A stopped stream is not judged: the rest was never read.
    EXPECT_EQ(inflater.finish(), gzip_fault::none);
}

TEST(GzipInflater, GoesOnWhereItWasAfterAMove) {
    const bytes data = random_bytes(40'000, 5);
    const bytes compressed = gzip_compress(data);
    bytes out;
    const auto keep = [&](std::span<const std::byte> p) {
        out.insert(out.end(), p.begin(), p.end());
        return true;
    };
    gzip_inflater first;
    const std::size_t half = compressed.size() / 2;
    first.write(std::span(compressed).first(half), keep);
    gzip_inflater second(std::move(first));
    second.write(std::span(compressed).subspan(half), keep);
    EXPECT_EQ(second.finish(), gzip_fault::none);
    EXPECT_TRUE(out == data);
    EXPECT_EQ(second.compressed_bytes(), compressed.size());
}

TEST(ChunkValidatorGzip, MatchesValidateOfTheRawBytesOnValidFiles) {
    for (shape s : all_shapes) {
        expect_same_as_validate(shape_name(s), small_file(s));
        expect_same_as_validate(std::string(shape_name(s)) + " without markers",
                                small_file(s, false));
        expect_same_as_validate(std::string(shape_name(s)) + " empty", write(empty_model(s)));
        expect_same_as_validate(std::string(shape_name(s)) + " structure", small_file(s),
                                validate_options{level::structure, {}, {}});
    }
    expect_same_as_validate("negative time warning", file_with_negative_time());
}

TEST(ChunkValidatorGzip, MatchesValidateOfTheRawBytesOnInvalidFiles) {
    const bytes good = small_file(shape::v11_compact);
    const model m = small_model(shape::v11_compact);

    bytes bad_magic = good;
    bad_magic[0] = std::byte{0};
    expect_same_as_validate("bad magic", bad_magic);

    bytes bad_wrap = good;
    put_i32(bad_wrap, curve_offset(m, 3), 3);
    expect_same_as_validate("bad wrap mode", bad_wrap);

    bytes unsorted = good;
    put_f32(unsorted, curve_offset(m, 0) + curve_header_size + 2 * compact_keyframe_size, 0.1f);
    expect_same_as_validate("unsorted keys", unsorted);

    bytes trailing = good;
    trailing.push_back(std::byte{0});
    expect_same_as_validate("trailing byte", trailing);

    expect_same_as_validate("max_total_keyframes", good,
                            validate_options{level::full, {}, limits{.max_total_keyframes = 3}});
    expect_same_as_validate("random bytes", random_bytes(5000, 1));
}

TEST(ChunkValidatorGzip, MatchesValidateOfTheRawBytesOnTruncatedFiles) {
    // Every prefix of a v1.1 file, and of a v1.0 file cut in its header, curves and markers: the
    // gzip stream is whole, the recording in it is not.
    const bytes v11 = small_file(shape::v11_compact);
    for (std::size_t n = 0; n < v11.size(); ++n) {
        const bytes prefix(v11.begin(), v11.begin() + static_cast<std::ptrdiff_t>(n));
        const report whole = validate(view(prefix));
        const bytes compressed = gzip_compress(prefix);
        ASSERT_EQ(difference(whole, validate_gzip(compressed, {}, 16)), "") << "prefix " << n;
    }
    const bytes v10 = small_file(shape::v10);
    for (std::size_t n : {std::size_t{0}, std::size_t{7}, std::size_t{15}, std::size_t{100},
                          v10.size() / 2, v10.size() - 5, v10.size() - 1}) {
        const bytes prefix(v10.begin(), v10.begin() + static_cast<std::ptrdiff_t>(n));
        expect_same_as_validate("v1.0 prefix " + std::to_string(n), prefix);
    }
}

TEST(ChunkValidatorGzip, MatchesValidateOnTheRealRecordings) {
    bool any = false;
    for (const char* name :
         {"InputAnimation-20190606-161538.bin", "InputAnimation-20190607-120309.bin",
          "InputAnimation-20190607-121439.bin"}) {
        const std::optional<bytes> raw = june_recording(name);
        if (!raw) continue;
        any = true;
        const report whole = validate(view(*raw));
        const bytes compressed = gzip_compress(*raw);
        EXPECT_LT(compressed.size(), raw->size() / 2) << name;
        for (std::size_t chunk : {std::size_t{1000}, std::size_t{65536}, compressed.size()}) {
            const gz_verdict g = validate_gzip(compressed, {}, chunk);
            EXPECT_EQ(difference(whole, g), "") << name << ", chunks of " << chunk;
            EXPECT_EQ(g.inflated, raw->size()) << name;
        }
    }
    if (!any) GTEST_SKIP() << "the June 2019 recordings are absent";
}

TEST(ChunkValidatorGzip, StopsInflatingAtTheFirstFinalError) {
    // A bad magic followed by a megabyte: the verdict comes from the first piece.
    bytes data = random_bytes(1'000'000, 9);
    data[0] = std::byte{0};
    const bytes compressed = gzip_compress(data);
    chunk_validator v;
    EXPECT_EQ(v.feed(view(compressed)), stream_status::error);
    EXPECT_EQ(v.result().error.code, errc::bad_magic);
    EXPECT_NE(v.result().error.code, errc::bad_compression);
    EXPECT_EQ(v.recording_bytes(), gzip_inflater::piece_size);
    EXPECT_LT(*v.compressed_bytes(), compressed.size() / 10);
    // Nothing more is taken, and finish keeps the verdict.
    EXPECT_EQ(v.feed(view(compressed)), stream_status::error);
    EXPECT_EQ(v.finish().error.code, errc::bad_magic);
}

TEST(ChunkValidatorGzip, NeverSaysDoneBeforeTheGzipTrailerIsChecked) {
    const bytes compressed = gzip_compress(small_file(shape::v11_compact));
    chunk_validator v;
    for (std::size_t i = 0; i < compressed.size(); ++i) {
        EXPECT_EQ(v.feed(std::span(compressed).subspan(i, 1)), stream_status::more) << i;
    }
    EXPECT_TRUE(v.finish().valid());
    EXPECT_NE(v.result().error.code, errc::bad_compression);
    EXPECT_EQ(*v.compressed_bytes(), compressed.size());
}

}  // namespace
