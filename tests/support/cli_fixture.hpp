// A fixture for tests that run the built `inputanim` command: a scratch folder, files written
// into it, and the command run with arguments. Also the models and output parsing those tests
// share. These tests are built only with the tools (tests/CMakeLists.txt), so INPUTANIM_CLI always
// names the command.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/builders.hpp"
#include "support/run_process.hpp"

namespace inputanim::testing {

class cli_fixture : public ::testing::Test {
  protected:
    // A name relative to the scratch folder; an absolute path stays as it is.
    std::string path(const std::string& name) const { return (scratch_.path() / name).string(); }

    // Writes `b` to path(name), creating the folders on the way. Returns that path.
    std::string write_file(const std::string& name, const bytes& b) const {
        const std::filesystem::path p = path(name);
        std::filesystem::create_directories(p.parent_path());
        return write_bytes(p, b);
    }
    std::string write_file(const std::string& name, const model& m) const {
        return write_file(name, write(m));
    }
    // The text of path(name); `text` written to path(name), creating the folders on the way,
    // returning that path.
    std::string read_text(const std::string& name) const { return slurp(path(name)); }
    std::string write_text(const std::string& name, const std::string& text) const {
        const std::filesystem::path p = path(name);
        std::filesystem::create_directories(p.parent_path());
        std::ofstream(p, std::ios::binary) << text;
        return p.string();
    }

    // `inputanim ARGS...` run in the scratch folder; `stderr_is_terminal` as in run_options.
    run_result run(const std::vector<std::string>& args, bool stderr_is_terminal = false) const {
        std::vector<std::string> argv = {INPUTANIM_CLI};
        argv.insert(argv.end(), args.begin(), args.end());
        return run_process(argv, {scratch_.path(), stderr_is_terminal});
    }
    // `inputanim ARGS...` with stdout sent to `target` (a full device, or closed).
    run_result run_with_stdout(const std::vector<std::string>& args, stdout_target target) const {
        std::vector<std::string> argv = {INPUTANIM_CLI};
        argv.insert(argv.end(), args.begin(), args.end());
        return run_process(argv, {scratch_.path(), false, target});
    }

    // `inputanim ARGS...` run as user `uid`, one no other process has (each test its own, as
    // ctest runs tests side by side), that may have at most `max_processes` processes and
    // threads: every thread past the main one beyond that
    // is refused (EAGAIN), as on a machine at its process limit. Root is exempt from the limit,
    // hence the other user; the scratch folder is opened to it. Needs root (setpriv): `ran` is
    // false, and nothing run, without it.
    run_result run_with_thread_limit(const std::vector<std::string>& args, int max_processes,
                                     int uid, bool& ran) const {
        ran = ::geteuid() == 0;
        if (!ran) return {};
        std::filesystem::permissions(scratch_.path(), std::filesystem::perms::all);
        // LeakSanitizer's check at exit starts a thread of its own, which the limit refuses.
        std::vector<std::string> argv = {"/usr/bin/env",
                                         "ASAN_OPTIONS=detect_leaks=0",
                                         "/usr/bin/prlimit",
                                         "--nproc=" + std::to_string(max_processes),
                                         "/usr/bin/setpriv",
                                         "--reuid=" + std::to_string(uid),
                                         "--regid=" + std::to_string(uid),
                                         "--clear-groups",
                                         "--",
                                         INPUTANIM_CLI};
        argv.insert(argv.end(), args.begin(), args.end());
        return run_process(argv, {scratch_.path()});
    }

    // Runs `args` with stdout on a full device and with stdout closed: each must exit 3 and say
    // on stderr that stdout could not be written.
    void expect_failed_stdout_is_reported(const std::vector<std::string>& args) const {
        for (const stdout_target target : {stdout_target::full_device, stdout_target::closed}) {
            const bool full = target == stdout_target::full_device;
            const run_result r = run_with_stdout(args, target);
            EXPECT_EQ(r.status, 3) << args.at(0) << (full ? " to /dev/full" : " closed") << r.err;
            EXPECT_NE(r.err.find("inputanim: stdout: cannot write: "), std::string::npos)
                << args.at(0) << (full ? " to /dev/full: " : " closed: ") << r.err;
            if (full) {
                EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
            }
        }
    }

    scratch_folder scratch_;
};

// small_model's left wrist rotation is far from unit length (a warning at level full); make it
// the identity so that a file has no warning unless a test adds one.
inline model without_warnings(model m) {
    for (pose_channel c :
         {pose_channel::rotation_x, pose_channel::rotation_y, pose_channel::rotation_z}) {
        for (keyframe& k : m[joint_curve(side::left, joint::wrist, c)].keys) k.value = 0.0f;
    }
    for (keyframe& k : m[joint_curve(side::left, joint::wrist, pose_channel::rotation_w)].keys) {
        k.value = 1.0f;
    }
    return m;
}

// A v1.1 compact file whose camera.position.x key 2 goes back in time: structurally sound,
// invalid at level full.
inline model unsorted_model() {
    model m = without_warnings(small_model(shape::v11_compact));
    m[camera_curve(pose_channel::position_x)].keys[2].time = 0.1f;
    return m;
}

// The objects of JSON Lines output, one a line.
inline std::vector<nlohmann::json> json_lines(const std::string& text) {
    std::vector<nlohmann::json> objects;
    for (const std::string& line : lines_of(text)) objects.push_back(nlohmann::json::parse(line));
    return objects;
}

}  // namespace inputanim::testing
