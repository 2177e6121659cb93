// `inputanim view A --compare B`: the usage it refuses before serving anything, and B read as A is
// (an unreadable B exits 3 as an unreadable A does).
#include <gtest/gtest.h>

#include <string>

#include "inputanim/generate.hpp"
#include "support/cli_fixture.hpp"
#include "support/generated.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

class ViewCompareCli : public cli_fixture {
  protected:
    std::string take(const std::string& name) const {
        generate_options g;
        g.seconds = 2;
        return write_file(name, generated_model(g));
    }
};

}  // namespace

TEST_F(ViewCompareCli, CompareWithTwoFilesIsAUsageError) {
    const std::string a = take("a.bin");
    const run_result r = run({"view", a, a, "--compare", a, "--listen", "127.0.0.1:0"});
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("--compare compares one recording: give one FILE"), std::string::npos)
        << r.err;
}

TEST_F(ViewCompareCli, AnUnreadableComparedFileExits3BeforeServing) {
    const std::string a = take("a.bin");
    const run_result r = run({"view", a, "--compare", path("missing.bin")});
    EXPECT_EQ(r.status, 3) << r.err;
    EXPECT_NE(r.err.find("missing.bin"), std::string::npos) << r.err;
}

TEST_F(ViewCompareCli, AComparedFileWhoseStructureIsNotSoundCannotBeComparedAndExits3) {
    const std::string a = take("a.bin");
    generate_options g;
    g.seconds = 2;
    bytes cut = write(generated_model(g));
    cut.resize(cut.size() / 2);
    const run_result r =
        run({"view", a, "--compare", write_file("cut.bin", cut), "--listen", "127.0.0.1:0"});
    EXPECT_EQ(r.status, 3) << r.err;
    EXPECT_NE(r.err.find("cannot compare"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("the structure of one is not sound"), std::string::npos) << r.err;
}
