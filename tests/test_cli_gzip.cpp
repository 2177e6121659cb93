// `info`, `validate` and `sample` on gzip-compressed recordings: recognized by content whatever
// the name, the same verdict and output as for the raw file (the size is the inflated one, the
// JSON adds compressed_bytes), damaged gzip files unreadable (exit 3), the byte ceiling applied
// to the inflated bytes.
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli_fixture.hpp"
#include "support/gzip_bytes.hpp"

using namespace inputanim;
using namespace inputanim::testing;
using nlohmann::json;

namespace {

// small_model's left wrist rotation is far from unit length, a warning that gzip files (checked
// by streaming) do not report: the files compared here are without it.
bytes recording_bytes() {
    return write(without_warnings(small_model(shape::v11_compact)));
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
    for (std::size_t at = text.find(from); at != std::string::npos;
         at = text.find(from, at + to.size())) {
        text.replace(at, from.size(), to);
    }
    return text;
}

using CliGzip = cli_fixture;

TEST_F(CliGzip, ValidateReadsAGzipFileAsTheRecordingInside) {
    const std::string gz = write_file("a.bin.gz", gzip_compress(recording_bytes()));
    const run_result r = run({"validate", gz});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, gz + ": valid\n");
    EXPECT_EQ(r.err, "");
}

TEST_F(CliGzip, TheJsonIsTheRawFilesWithTheInflatedSizeAndTheCompressedSize) {
    const bytes raw = recording_bytes();
    const bytes compressed = gzip_compress(raw);
    const std::string bin = write_file("a.bin", raw);
    const std::string gz = write_file("a.bin.gz", compressed);
    for (const char* level : {"structure", "full"}) {
        const run_result plain = run({"validate", "--json", "--level", level, bin});
        const run_result packed = run({"validate", "--json", "--level", level, gz});
        ASSERT_EQ(packed.status, 0) << packed.err;
        json expected = json::parse(plain.out);
        json got = json::parse(packed.out);
        EXPECT_EQ(got["bytes"], raw.size());
        EXPECT_EQ(got["compressed_bytes"], compressed.size());
        EXPECT_FALSE(expected.contains("compressed_bytes"));
        got.erase("compressed_bytes");
        got["path"] = bin;
        EXPECT_EQ(got, expected) << level;
    }
}

TEST_F(CliGzip, AnInvalidRecordingInsideIsInvalidWithTheRawFilesError) {
    const bytes raw = write(unsorted_model());
    const std::string bin = write_file("u.bin", raw);
    const std::string gz = write_file("u.bin.gz", gzip_compress(raw));
    const run_result plain = run({"validate", bin});
    const run_result packed = run({"validate", gz});
    EXPECT_EQ(packed.status, 1);
    EXPECT_EQ(packed.out, replaced(plain.out, bin, gz));
    EXPECT_NE(packed.out.find("invalid: unsorted_keys"), std::string::npos) << packed.out;
}

TEST_F(CliGzip, InfoPrintsTheRawFilesSummaryWithTheInflatedAndCompressedSizes) {
    const bytes raw = recording_bytes();
    const bytes compressed = gzip_compress(raw);
    const std::string bin = write_file("a.bin", raw);
    const std::string gz = write_file("a.bin.gz", compressed);
    const run_result plain = run({"info", bin});
    const run_result packed = run({"info", gz});
    EXPECT_EQ(packed.status, 0) << packed.err;
    const std::string size_line = "  size       " + std::to_string(raw.size()) + " bytes";
    EXPECT_EQ(packed.out, replaced(replaced(plain.out, bin, gz), size_line,
                                   size_line + " (gzip, " + std::to_string(compressed.size()) +
                                       " compressed)"));
    EXPECT_NE(packed.out.find(" (gzip, "), std::string::npos) << packed.out;
}

TEST_F(CliGzip, GzipIsRecognizedByContentNotByName) {
    const bytes raw = recording_bytes();
    // A compressed file without .gz, and a raw one with it.
    const std::string hidden = write_file("compressed.bin", gzip_compress(raw));
    const std::string misnamed = write_file("raw.bin.gz", raw);
    const run_result r = run({"validate", "--json", hidden, misnamed});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::vector<std::string> lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_TRUE(json::parse(lines[0]).contains("compressed_bytes"));
    EXPECT_FALSE(json::parse(lines[1]).contains("compressed_bytes"));
    EXPECT_EQ(json::parse(lines[0])["bytes"], raw.size());
    EXPECT_EQ(json::parse(lines[1])["bytes"], raw.size());
}

TEST_F(CliGzip, ATruncatedGzipFileIsInvalidAndTheOthersAreStillChecked) {
    bytes compressed = gzip_compress(recording_bytes());
    // Without its 8-byte trailer every recording byte inflates, but nothing vouches for them.
    compressed.erase(compressed.end() - 8, compressed.end());
    const std::string cut = write_file("cut.bin.gz", compressed);
    const std::string good = write_file("good.bin.gz", gzip_compress(recording_bytes()));
    const run_result r = run({"validate", cut, good});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.out, cut + ": invalid: bad_compression at byte " +
                         std::to_string(compressed.size()) +
                         ": the compressed bytes cannot be inflated (a gzip stream or a zip "
                         "member: bad header, bad data, bad CRC or length, or cut short)\n" +
                         good + ": valid\n");
    EXPECT_EQ(r.err, "");
}

TEST_F(CliGzip, ADamagedGzipFileIsInvalidWithBadCompression) {
    bytes compressed = gzip_compress(recording_bytes());
    compressed[compressed.size() - 8] ^= std::byte{1};
    const std::string bad = write_file("bad.bin.gz", compressed);
    const run_result r = run({"info", "--json", bad});
    EXPECT_EQ(r.status, 1) << r.err;
    const json j = json::parse(r.out);
    EXPECT_EQ(j["error"]["code"], "bad_compression");
    // zlib finds the bad CRC once it has read it: the trailer's first 4 bytes.
    EXPECT_EQ(j["error"]["offset"], compressed.size() - 4);
    EXPECT_EQ(j["compressed_bytes"], compressed.size() - 4);
}

TEST_F(CliGzip, MaxBytesAppliesToTheInflatedRecording) {
    const bytes raw = recording_bytes();
    const bytes compressed = gzip_compress(raw);
    const std::string gz = write_file("a.bin.gz", compressed);
    // Larger than the compressed file, smaller than the recording.
    ASSERT_LT(compressed.size(), raw.size() - 1);
    const std::string ceiling = std::to_string(raw.size() - 1);
    const run_result r = run({"validate", "--json", "--max-bytes", ceiling, gz});
    EXPECT_EQ(r.status, 1) << r.err;
    const json j = json::parse(r.out);
    EXPECT_EQ(j["error"]["code"], "limit_exceeded");
    EXPECT_EQ(j["error"]["limit"], "max_bytes");
    EXPECT_EQ(j["error"]["offset"], raw.size() - 1);
    EXPECT_EQ(run({"validate", "--max-bytes", std::to_string(raw.size()), gz}).status, 0);
}

TEST_F(CliGzip, AGzipBombStopsAtMaxBytes) {
    // 64 MiB of zeros behind a v1.1 header whose first curve claims 2^31-1 keys: only the
    // ceiling stops it, after a megabyte.
    bytes raw(std::size_t{64} << 20);
    const bytes head = recording_bytes();
    std::copy(head.begin(), head.begin() + 16, raw.begin());
    raw[16] = std::byte{1};
    put_i32(raw, 19 + 8, 0x7fffffff);
    const std::string bomb = write_file("bomb.bin.gz", gzip_compress(raw, 9));
    const run_result r = run({"validate", "--json", "--max-bytes", "1048576", bomb});
    EXPECT_EQ(r.status, 1) << r.err;
    const json j = json::parse(r.out);
    EXPECT_EQ(j["error"]["limit"], "max_bytes");
    EXPECT_LE(j["bytes"].get<std::uint64_t>(), 1048576u + 16 * 1024);
    EXPECT_LT(j["compressed_bytes"].get<std::uint64_t>(), std::filesystem::file_size(bomb));
}

TEST_F(CliGzip, TheStreamingCheckDoesNotReportNonUnitQuaternions) {
    // small_model as it is: its left wrist rotation is far from unit length.
    const bytes raw = small_file(shape::v11_compact);
    const std::string bin = write_file("q.bin", raw);
    const std::string gz = write_file("q.bin.gz", gzip_compress(raw));
    const json plain = json::parse(run({"validate", "--json", bin}).out);
    const json packed = json::parse(run({"validate", "--json", gz}).out);
    ASSERT_FALSE(plain["warnings"].empty());
    EXPECT_EQ(plain["warnings"][0]["code"], "non_unit_quaternion");
    EXPECT_TRUE(packed["warnings"].empty()) << packed.dump();
    EXPECT_EQ(packed["valid"], true);
}

TEST_F(CliGzip, SampleGivesTheRawFilesRows) {
    const bytes raw = recording_bytes();
    const std::string bin = write_file("a.bin", raw);
    const std::string gz = write_file("a.bin.gz", gzip_compress(raw));
    for (const char* format : {"csv", "json"}) {
        const run_result plain = run({"sample", "--rate", "30", "--format", format, bin});
        const run_result packed = run({"sample", "--rate", "30", "--format", format, gz});
        ASSERT_EQ(plain.status, 0) << plain.err;
        EXPECT_EQ(packed.status, 0) << packed.err;
        EXPECT_EQ(packed.out, plain.out) << format;
        EXPECT_GT(packed.out.size(), 100u);
    }
}

TEST_F(CliGzip, SampleInflatesNoMoreThanMaxBytes) {
    const bytes raw = recording_bytes();
    const std::string gz = write_file("a.bin.gz", gzip_compress(raw));
    const std::string ceiling = std::to_string(raw.size() - 1);
    const run_result r = run({"sample", "--rate", "30", "--max-bytes", ceiling, gz});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "inputanim: " + gz + ": invalid: limit_exceeded at byte " + ceiling +
                         ": a configured limit was passed (max_bytes)\n");
    // The same ceiling and message for the raw file.
    const std::string bin = write_file("a.bin", raw);
    EXPECT_EQ(run({"sample", "--rate", "30", "--max-bytes", ceiling, bin}).err,
              "inputanim: " + bin + ": invalid: limit_exceeded at byte " + ceiling +
                  ": a configured limit was passed (max_bytes)\n");
    EXPECT_EQ(run({"sample", "--rate", "30", "--max-bytes", std::to_string(raw.size()), gz}).status,
              0);
}

TEST_F(CliGzip, SampleRefusesADamagedGzipFileAsInvalid) {
    bytes compressed = gzip_compress(recording_bytes());
    compressed.resize(compressed.size() / 2);
    const std::string cut = write_file("cut.bin.gz", compressed);
    const run_result r = run({"sample", "--rate", "30", cut});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "inputanim: " + cut + ": invalid: bad_compression at byte " +
                         std::to_string(compressed.size()) +
                         ": the compressed bytes cannot be inflated (a gzip stream or a zip "
                         "member: bad header, bad data, bad CRC or length, or cut short)\n");
}

}  // namespace
