// What the tests of `inputanim index` share: the files they index, the totals line they read, and
// a fixture with a folder to index.
#pragma once

#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli_fixture.hpp"

namespace inputanim::testing {

inline model quiet_model(shape s) {
    return without_warnings(small_model(s));
}

// Valid, with one warning at every level: a negative first key time.
inline model warning_model() {
    model m = quiet_model(shape::v11_compact);
    m[camera_curve(pose_channel::position_x)].keys[0].time = -0.5f;
    return m;
}

// Invalid at level structure: the first bool curve's pre-wrap mode is 3.
inline bytes bad_wrap_file() {
    const model m = quiet_model(shape::v11_compact);
    bytes b = write(m);
    put_i32(b, curve_offset(m, hand_state_first), 3);
    return b;
}

inline bytes text_bytes(const std::string& text) {
    bytes b;
    for (const char c : text) b.push_back(static_cast<std::byte>(c));
    return b;
}

inline std::map<std::string, nlohmann::json> by_path(const std::vector<nlohmann::json>& objects) {
    std::map<std::string, nlohmann::json> m;
    for (const nlohmann::json& j : objects) m[j["path"].get<std::string>()] = j;
    return m;
}

// The counts of the line `index` ends with.
struct totals {
    int files = -1;
    int recordings = -1;
    int invalid = -1;
    int unreadable = -1;
    int other = -1;
    int unchanged = -1;
    int pruned = -1;
    // Archives walked or found unchanged, and those whose walk stopped early (0 when the line
    // names none).
    int archives = 0;
    int stopped = 0;
};

inline totals totals_of(const std::string& err) {
    static const std::regex line(
        R"(inputanim index: (\d+) files, (\d+) recordings, (\d+) invalid, (\d+) unreadable, )"
        R"((\d+) other, (\d+) unchanged(?:, (\d+) pruned)?(?:, (\d+) archives)"
        R"((?: \((\d+) stopped early\))?)?, \d+\.\d\d s \(\d+ files/s\)\n$)");
    std::smatch m;
    totals t;
    EXPECT_TRUE(std::regex_search(err, m, line)) << "no totals line at the end of:\n" << err;
    if (m.empty()) return t;
    t.files = std::stoi(m[1]);
    t.recordings = std::stoi(m[2]);
    t.invalid = std::stoi(m[3]);
    t.unreadable = std::stoi(m[4]);
    t.other = std::stoi(m[5]);
    t.unchanged = std::stoi(m[6]);
    if (m[7].matched) t.pruned = std::stoi(m[7]);
    if (m[8].matched) t.archives = std::stoi(m[8]);
    if (m[9].matched) t.stopped = std::stoi(m[9]);
    return t;
}

class IndexCli : public cli_fixture {
  protected:
    void SetUp() override { std::filesystem::create_directories(data()); }

    // The folder that is indexed; stdout, stderr and outputs live beside it.
    std::string data() const { return path("data"); }
    std::string in_data(const std::string& name) const { return path("data/" + name); }

    // A folder with one file of every kind index meets. Returns the paths of the rows expected.
    struct mixed_paths {
        std::string valid, warned, bad_wrap, empty, magic_prefix, dangling, text, tiny_text, nested;
    };
    mixed_paths make_mixed_folder() const {
        mixed_paths p;
        p.valid = write_file(in_data("valid.bin"), quiet_model(shape::v11_compact));
        p.warned = write_file(in_data("warned.dat"), warning_model());
        p.bad_wrap = write_file(in_data("bad-wrap.bin"), bad_wrap_file());
        p.empty = write_file(in_data("empty.bin"), bytes{});
        // A file cut short inside the magic is a damaged recording, not some other file.
        p.magic_prefix = write_file(in_data("cut.bin"), bytes{std::byte{0xc6}, std::byte{0x42}});
        p.dangling = in_data("dangling.bin");
        std::filesystem::create_symlink(in_data("no-such-target.bin"), p.dangling);
        p.text = write_file(in_data("notes.bin"), text_bytes("notes about the session\n"));
        p.tiny_text = write_file(in_data("x.txt"), text_bytes("ok"));
        p.nested = write_file(in_data("a/b/c/deep"), quiet_model(shape::v10));
        return p;
    }
};

}  // namespace inputanim::testing
