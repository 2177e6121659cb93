// A fixture for tests that run the built `inputanim` command: a scratch folder, files written
// into it, and the command run with arguments. Skips when the tools were not built.
#pragma once

#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "support/builders.hpp"
#include "support/run_process.hpp"

namespace inputanim::testing {

class cli_fixture : public ::testing::Test {
  protected:
    void SetUp() override {
        if (std::string_view(INPUTANIM_CLI).empty()) {
            GTEST_SKIP() << "built without the tools (INPUTANIM_BUILD_TOOLS=OFF)";
        }
    }

    std::string path(const std::string& name) const { return (scratch_.path() / name).string(); }

    std::string write_file(const std::string& name, const bytes& b) const {
        std::ofstream out(path(name), std::ios::binary);
        out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
        return path(name);
    }
    std::string write_file(const std::string& name, const model& m) const {
        return write_file(name, write(m));
    }

    run_result run(const std::vector<std::string>& args) const {
        std::vector<std::string> argv = {INPUTANIM_CLI};
        argv.insert(argv.end(), args.begin(), args.end());
        return run_process(argv, {scratch_.path()});
    }

    scratch_folder scratch_;
};

}  // namespace inputanim::testing
