// The viewer's globs (web/src/data.js, globRegExp, run by node) give the library's verdicts
// (path_matches) on every glob of up to five characters over `a`, `b`, `.`, `*` and `?` against
// every path of up to five characters over `a`, `b` and `.`; on globs a user types, and the
// characters a regular expression would read otherwise, against every curve path; and on every
// curve path with one character made `?`, `*` or `.`.
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "inputanim/format.hpp"
#include "support/run_process.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

// Every string of `min` to `max` characters over `alphabet`.
std::vector<std::string> strings_over(std::string_view alphabet, std::size_t max) {
    std::vector<std::string> out = {""};
    for (std::size_t begin = 0, length = 1; length <= max; ++length) {
        const std::size_t end = out.size();
        for (std::size_t i = begin; i < end; ++i) {
            for (const char c : alphabet) out.push_back(out[i] + c);
        }
        begin = end;
    }
    return out;
}

std::vector<std::string> curve_paths() {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < curve_id_count; ++i) out.emplace_back(curve_path(curve_id(i)));
    return out;
}

class ViewerGlobs : public ::testing::Test {
  protected:
    void SetUp() override {
        if (std::string_view(INPUTANIM_NODE).empty()) GTEST_SKIP() << "node is not installed";
    }

    // Every glob against every path, the viewer's verdicts against the library's.
    void expect_same_verdicts(const std::vector<std::string>& globs,
                              const std::vector<std::string>& paths) {
        const std::string globs_file = write_lines("globs.txt", globs);
        const std::string paths_file = write_lines("paths.txt", paths);
        const run_result r = run_process({INPUTANIM_NODE, INPUTANIM_GLOB_VERDICTS,
                                          INPUTANIM_VIEWER_DATA_JS, globs_file, paths_file},
                                         {scratch_.path()});
        ASSERT_EQ(r.status, 0) << r.err;
        const std::vector<std::string> viewer = lines_of(r.out);
        ASSERT_EQ(viewer.size(), globs.size());
        std::size_t disagreements = 0;
        for (std::size_t g = 0; g < globs.size(); ++g) {
            ASSERT_EQ(viewer[g].size(), paths.size()) << globs[g];
            for (std::size_t p = 0; p < paths.size(); ++p) {
                const bool library = path_matches(globs[g], paths[p]);
                if ((viewer[g][p] == '1') == library) continue;
                if (++disagreements <= 20) {
                    ADD_FAILURE() << "glob \"" << globs[g] << "\", path \"" << paths[p]
                                  << "\": the library says " << library << ", the viewer "
                                  << viewer[g][p];
                }
            }
        }
        EXPECT_EQ(disagreements, 0u) << "of " << globs.size() * paths.size() << " pairs";
    }

    std::string write_lines(const std::string& name, const std::vector<std::string>& lines) {
        const std::filesystem::path file = scratch_.path() / name;
        std::ofstream out(file);
        for (const std::string& l : lines) out << l << '\n';
        out.close();
        EXPECT_TRUE(out) << file;
        return file.string();
    }

    scratch_folder scratch_;
};

TEST_F(ViewerGlobs, EveryShortGlobGivesTheLibrarysVerdictOnEveryShortPath) {
    expect_same_verdicts(strings_over("ab.*?", 5), strings_over("ab.", 5));
}

TEST_F(ViewerGlobs, TypedGlobsAndRegularExpressionCharactersGiveTheLibrarysVerdicts) {
    const std::vector<std::string> globs = {
        "", "*", "**", "***", "****", "?", "*.*.*", "*.*.*.*", "**.**.**.**.**.**", "camera.*",
        "camera**", "camera.position.*", "camera.rotation.?", "camera?position.x",
        "camera.position.??", "camera.position.x?", "*.position.x", "**.position.x", "**z",
        "hand.**", "hand.*.tracked", "hand.????.tracked", "hand.left.joint.*",
        "hand.left.joint.*.position.*", "hand.*.joint.IndexTip.position.*",
        "hand.right.**.rotation.w", "Camera.**", "gaze.**", "gaze.origin.?",
        // What a regular expression would read as more than the character itself.
        "camera.position.[xy]", "camera.position.[^z]", "camera.position.x|gaze.**",
        "camera.(position).x", "camera.position.x+", "camera.position.x{1}", "^camera.**", "**$",
        "camera\\.position.x", "camera.position.x\\", "camera.position.\\w", ".*", "..*", "[", "(",
        "hand.left.joint.Index.ip.position.x", "camera.posi.ion.x", "camera.position.x$",
        "camera/position/x", "camera.position.x ", " camera.position.x"};
    expect_same_verdicts(globs, curve_paths());
}

TEST_F(ViewerGlobs, CurvePathsWithOneCharacterMadeAWildcardOrADotGiveTheLibrarysVerdicts) {
    const std::vector<std::string> paths = curve_paths();
    std::vector<std::string> globs;
    // Every 13th path: the three blocks and every kind of name, within a second's work.
    for (std::size_t i = 0; i < paths.size(); i += 13) {
        for (std::size_t at = 0; at < paths[i].size(); ++at) {
            for (const char c : {'?', '*', '.'}) {
                std::string g = paths[i];
                g[at] = c;
                globs.push_back(g);
            }
        }
    }
    expect_same_verdicts(globs, paths);
}

}  // namespace
