// mapped_file: the read-only mapping that owns a file's bytes, and the error codes it reports.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include "support/builders.hpp"

using namespace inputanim;
using namespace inputanim::testing;
namespace fs = std::filesystem;

namespace {

bool same_bytes(std::span<const std::byte> mapped, const bytes& expected) {
    return std::equal(mapped.begin(), mapped.end(), expected.begin(), expected.end());
}

class MappedFile : public ::testing::Test {
  protected:
    void SetUp() override {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        dir_ = fs::temp_directory_path() /
               ("inputanim-mapped-" + std::to_string(::getpid()) + "-" + info->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override {
        std::error_code ignored;
        fs::permissions(dir_ / "unreadable.bin", fs::perms::owner_all, ignored);
        fs::remove_all(dir_, ignored);
    }

    fs::path write_file(const std::string& name, const bytes& b) const {
        const fs::path path = dir_ / name;
        std::ofstream out(path, std::ios::binary);
        out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
        return path;
    }

    fs::path dir_;
};

TEST_F(MappedFile, MapsTheBytesOfAFileAsWritten) {
    const bytes b = small_file(shape::v11_full);
    std::error_code ec;
    const mapped_file m = mapped_file::open(write_file("small.bin", b), ec);
    EXPECT_FALSE(ec) << ec.message();
    EXPECT_EQ(m.size(), b.size());
    EXPECT_TRUE(same_bytes(m.bytes(), b));
}

TEST_F(MappedFile, SuccessClearsAPreviousErrorCode) {
    std::error_code ec = std::make_error_code(std::errc::io_error);
    const mapped_file m = mapped_file::open(write_file("small.bin", small_file(shape::v10)), ec);
    EXPECT_FALSE(ec);
    EXPECT_GT(m.size(), 0u);
}

TEST_F(MappedFile, EmptyFileIsAnEmptySpanWithoutError) {
    std::error_code ec;
    const mapped_file m = mapped_file::open(write_file("empty.bin", {}), ec);
    EXPECT_FALSE(ec) << ec.message();
    EXPECT_TRUE(m.bytes().empty());
}

TEST_F(MappedFile, MissingFileIsNoSuchFileOrDirectory) {
    std::error_code ec;
    const mapped_file m = mapped_file::open(dir_ / "missing.bin", ec);
    EXPECT_EQ(ec, std::errc::no_such_file_or_directory);
    EXPECT_TRUE(m.bytes().empty());
}

TEST_F(MappedFile, DirectoryIsIsADirectory) {
    std::error_code ec;
    const mapped_file m = mapped_file::open(dir_, ec);
    EXPECT_EQ(ec, std::errc::is_a_directory);
    EXPECT_TRUE(m.bytes().empty());
}

TEST_F(MappedFile, UnreadableFileIsPermissionDenied) {
    if (::geteuid() == 0) GTEST_SKIP() << "root reads files whatever their permissions";
    const fs::path path = write_file("unreadable.bin", small_file(shape::v10));
    fs::permissions(path, fs::perms::none);
    std::error_code ec;
    const mapped_file m = mapped_file::open(path, ec);
    EXPECT_EQ(ec, std::errc::permission_denied);
    EXPECT_TRUE(m.bytes().empty());
}

TEST_F(MappedFile, DefaultConstructedIsEmpty) {
    const mapped_file m;
    EXPECT_TRUE(m.bytes().empty());
    EXPECT_EQ(m.size(), 0u);
}

TEST_F(MappedFile, MoveConstructionKeepsTheMappingAndEmptiesTheSource) {
    const bytes b = small_file(shape::v11_compact);
    std::error_code ec;
    mapped_file source = mapped_file::open(write_file("small.bin", b), ec);
    ASSERT_FALSE(ec);
    const std::byte* data = source.bytes().data();

    const mapped_file moved(std::move(source));
    EXPECT_EQ(moved.bytes().data(), data);
    EXPECT_TRUE(same_bytes(moved.bytes(), b));
    EXPECT_TRUE(source.bytes().empty());  // NOLINT(bugprone-use-after-move): the moved-from state
}

TEST_F(MappedFile, MoveAssignmentReplacesTheMappingAndEmptiesTheSource) {
    const bytes first = small_file(shape::v10);
    const bytes second = small_file(shape::v11_full, false);
    std::error_code ec;
    mapped_file target = mapped_file::open(write_file("first.bin", first), ec);
    ASSERT_FALSE(ec);
    mapped_file source = mapped_file::open(write_file("second.bin", second), ec);
    ASSERT_FALSE(ec);
    const std::byte* data = source.bytes().data();

    target = std::move(source);
    EXPECT_EQ(target.bytes().data(), data);
    EXPECT_TRUE(same_bytes(target.bytes(), second));
    EXPECT_TRUE(source.bytes().empty());  // NOLINT(bugprone-use-after-move): the moved-from state
}

TEST_F(MappedFile, MappingOutlivesTheFileName) {
    const bytes b = small_file(shape::v11_compact);
    const fs::path path = write_file("small.bin", b);
    std::error_code ec;
    const mapped_file m = mapped_file::open(path, ec);
    ASSERT_FALSE(ec);
    fs::remove(path);
    EXPECT_TRUE(same_bytes(m.bytes(), b));
}

TEST_F(MappedFile, ValidatesOverTheMappedBytes) {
    for (shape s : all_shapes) {
        const bytes b = small_file(s);
        std::error_code ec;
        const mapped_file m = mapped_file::open(write_file(shape_name(s), b), ec);
        ASSERT_FALSE(ec);
        const report r = validate(m.bytes(), validate_options{level::full});
        EXPECT_TRUE(r.valid()) << shape_name(s) << ": " << r.error.message();
        EXPECT_EQ(r.summary.bytes, b.size());
    }
}

}  // namespace
