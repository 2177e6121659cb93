// Specification of loaded_recording: a plain file stays mapped and its input is kept (its reads
// are the walk by reads'), anything else is read into memory and its input let go; the walk, the
// checks and the copy give what the same calls over the bytes give, and a file cut short after
// loading is an I/O error, never a SIGBUS. Also input::read_at, the reads the walk goes through.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "inputanim/convert.hpp"
#include "inputanim/loaded.hpp"
#include "support/builders.hpp"
#include "support/gzip_bytes.hpp"
#include "support/run_process.hpp"
#include "support/validation_cases.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

// A v1.1 compact file whose camera.position.x key 2 goes back in time: structurally sound,
// invalid at level full.
bytes unsorted_file() {
    model m = small_model(shape::v11_compact);
    m[camera_curve(pose_channel::position_x)].keys[2].time = 0.1f;
    return write(m);
}

// Cuts the file at `path` to `size` bytes, as another process would while it is mapped.
void cut(const std::string& path, off_t size) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::ftruncate(fd, size), 0);
    ::close(fd);
}

validate_options at(level l) {
    validate_options o;
    o.level = l;
    return o;
}

}  // namespace

TEST(Loaded, APlainFileStaysMappedAndItsInputIsKept) {
    scratch_folder dir;
    const bytes b = small_file(shape::v11_full);
    loaded_recording loaded;
    const whole_input& w = loaded.load(write_bytes(dir.path() / "a.bin", b), {});
    EXPECT_FALSE(w.io);
    EXPECT_FALSE(w.invalid);
    EXPECT_TRUE(loaded.mapped());
    EXPECT_TRUE(loaded.input().is_mapped());
    EXPECT_EQ(loaded.bytes().data(), loaded.input().mapped().data());
    EXPECT_EQ(bytes(loaded.bytes().begin(), loaded.bytes().end()), b);
}

TEST(Loaded, GzipIsInflatedIntoMemoryAndItsInputLetGo) {
    const bytes b = small_file(shape::v11_compact);
    loaded_recording loaded;
    const whole_input& w = loaded.load_bytes(gzip_compress(view(b)), {});
    EXPECT_FALSE(w.io);
    EXPECT_FALSE(loaded.mapped());
    EXPECT_FALSE(loaded.input().is_open());
    EXPECT_TRUE(w.compressed_bytes.has_value());
    EXPECT_EQ(bytes(loaded.bytes().begin(), loaded.bytes().end()), b);
}

TEST(Loaded, TheWalkByReadsAndThroughTheBytesGiveOneTable) {
    for (const shape s : all_shapes) {
        SCOPED_TRACE(shape_name(s));
        const bytes b = small_file(s);
        recording walked;
        ASSERT_FALSE(walked.open(view(b)));
        for (const bool by_reads : {false, true}) {
            loaded_recording loaded;
            loaded.load_bytes(b, {});
            ASSERT_TRUE(loaded.mapped());
            std::error_code io;
            EXPECT_FALSE(loaded.open({}, by_reads, io));
            EXPECT_FALSE(io);
            const recording& rec = loaded.recording();
            EXPECT_EQ(summary_difference(rec.summary(), walked.summary()), "");
            ASSERT_EQ(rec.curves().size(), walked.curves().size());
            for (std::size_t i = 0; i < rec.curves().size(); ++i) {
                EXPECT_EQ(rec.curves()[i].keys.data() - loaded.bytes().data(),
                          walked.curves()[i].keys.data() - view(b).data());
            }
        }
    }
}

TEST(Loaded, AMoveKeepsTheBytesAndTheRecordingsViews) {
    const bytes b = small_file(shape::v10);
    for (const bool gzip : {false, true}) {
        loaded_recording loaded;
        loaded.load_bytes(gzip ? gzip_compress(view(b)) : b, {});
        std::error_code io;
        ASSERT_FALSE(loaded.open({}, false, io));
        const std::byte* first = loaded.recording().curves()[0].keys.data();
        const loaded_recording moved = std::move(loaded);
        EXPECT_EQ(moved.recording().curves()[0].keys.data(), first);
        EXPECT_GE(first, moved.bytes().data());
        EXPECT_LT(first, moved.bytes().data() + moved.bytes().size());
    }
}

TEST(Loaded, TheChecksByReadsFindValidatesError) {
    for (const bytes& b : {small_file(shape::v11_compact), unsorted_file()}) {
        const report expected = validate(view(b), at(level::full));
        for (const bool by_reads : {false, true}) {
            loaded_recording loaded;
            loaded.load_bytes(b, {});
            std::error_code io;
            const report r = loaded.check(at(level::full), by_reads, io);
            EXPECT_FALSE(io);
            EXPECT_EQ(r.error.code, expected.error.code);
            EXPECT_EQ(r.error.offset, expected.error.offset);
        }
    }
}

TEST(Loaded, ACopyHoldsTheBytesAndLetsTheInputGo) {
    const bytes b = small_file(shape::v11_full);
    loaded_recording loaded;
    loaded.load_bytes(b, {});
    ASSERT_TRUE(loaded.mapped());
    EXPECT_FALSE(loaded.copy());
    EXPECT_FALSE(loaded.mapped());
    EXPECT_FALSE(loaded.input().is_open());
    EXPECT_EQ(bytes(loaded.bytes().begin(), loaded.bytes().end()), b);
    // Bytes in memory already: nothing to do.
    EXPECT_FALSE(loaded.copy());
    std::error_code io;
    EXPECT_FALSE(loaded.open({}, true, io));
    EXPECT_FALSE(io);
}

TEST(Loaded, ConvertReadsTheKeysThroughTheInput) {
    const bytes b = small_file(shape::v11_full);
    loaded_recording loaded;
    loaded.load_bytes(b, {});
    std::error_code io;
    ASSERT_FALSE(loaded.open({}, true, io));
    convert_options o;
    o.layout = layout::full;
    bytes through_mapping;
    vector_sink mapped_sink(through_mapping);
    ASSERT_FALSE(convert(loaded.recording(), mapped_sink, o).error);
    o.source = &loaded.input();
    bytes by_reads;
    vector_sink read_sink(by_reads);
    const convert_result r = convert(loaded.recording(), read_sink, o);
    EXPECT_FALSE(r.error);
    EXPECT_FALSE(r.source_failed);
    EXPECT_EQ(by_reads, through_mapping);
}

TEST(LoadedErrors, ANameThatCannotBeOpenedIsItsError) {
    scratch_folder dir;
    loaded_recording loaded;
    const whole_input& w = loaded.load((dir.path() / "absent.bin").string(), {});
    EXPECT_EQ(w.io, std::errc::no_such_file_or_directory);
    EXPECT_TRUE(loaded.bytes().empty());
    EXPECT_FALSE(loaded.input().is_open());
    EXPECT_EQ(loaded.unreadable(std::make_error_code(std::errc::io_error)).io, std::errc::io_error);
}

TEST(LoadedErrors, BytesThatAreNoRecordingAreInvalid) {
    loaded_recording loaded;
    const whole_input& w = loaded.load_bytes(gzip_of_zeros(1), {});
    EXPECT_FALSE(w.io);
    EXPECT_EQ(w.invalid.code, errc::bad_magic);
    EXPECT_TRUE(loaded.bytes().empty());
}

TEST(LoadedErrors, AFileCutShortAfterLoadingIsAnIoErrorNotASigbus) {
    scratch_folder dir;
    const bytes b = small_file(shape::v11_full, false);
    const std::string path = write_bytes(dir.path() / "cut.bin", b);
    for (const bool by_reads : {false, true}) {
        write_bytes(path, b);
        loaded_recording loaded;
        ASSERT_FALSE(loaded.load(path, {}).io);
        ASSERT_TRUE(loaded.mapped());
        cut(path, 0);
        std::error_code io;
        loaded.open({}, by_reads, io);
        EXPECT_EQ(io, std::errc::io_error);
        EXPECT_EQ(loaded.run([&] {
            (void)*static_cast<const volatile std::byte*>(loaded.bytes().data());
        }),
                  std::errc::io_error);
        EXPECT_EQ(loaded.copy(), std::errc::io_error);
        const report r = loaded.check(at(level::full), by_reads, io);
        if (by_reads) {
            EXPECT_TRUE(r.error) << "the reads find the file empty";
        } else {
            EXPECT_EQ(r.error.code, errc::io_error);
        }
    }
}

TEST(LoadedErrors, WhatCannotBeReadByOffsetSaysWhy) {
    int pipe_ends[2];
    ASSERT_EQ(::pipe(pipe_ends), 0);
    std::error_code ec;
    const input pipe = input::from_fd(pipe_ends[0], ec);
    ASSERT_FALSE(ec);
    std::byte one{};
    EXPECT_EQ(pipe.read_at(0, {&one, 1}, ec), 0u);
    EXPECT_EQ(ec, std::errc::invalid_seek);
    // A conversion reading its keys from it stops with that code.
    const bytes b = small_file(shape::v11_full);
    recording rec;
    ASSERT_FALSE(rec.open(view(b)));
    convert_options o;
    o.source = &pipe;
    bytes out;
    vector_sink sink(out);
    const convert_result r = convert(rec, sink, o);
    EXPECT_TRUE(r.source_failed);
    EXPECT_EQ(r.error, std::errc::invalid_seek);
    ::close(pipe_ends[1]);

    const input none;
    EXPECT_EQ(none.read_at(0, {&one, 1}, ec), 0u);
    EXPECT_EQ(ec, std::errc::bad_file_descriptor);
}

TEST(LoadedErrors, APartIsReadAtItsOwnOffsetAndEndsWithIt) {
    const bytes b = small_file(shape::v11_compact);
    std::error_code ec;
    const input whole = input::from_bytes(b, ec);
    ASSERT_FALSE(ec);
    const input part = input::part(whole, 10, 20, ec);
    ASSERT_FALSE(ec);
    std::vector<std::byte> out(30);
    EXPECT_EQ(part.read_at(5, out, ec), 15u);
    EXPECT_FALSE(ec);
    EXPECT_EQ(bytes(out.begin(), out.begin() + 15), bytes(b.begin() + 15, b.begin() + 30));
    EXPECT_EQ(part.read_at(20, out, ec), 0u);
    EXPECT_FALSE(ec);
}
