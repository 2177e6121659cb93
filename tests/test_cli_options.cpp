// One meaning per flag across the commands (docs/CLI.md): each old spelling still works, prints
// its one-line note and gives the canonical spelling's output byte for byte; given together with
// its canonical flag it is a usage error naming both; a message names the flag as given; the
// program's --version and a command's --version V both stay.
#include <string>
#include <vector>

#include "support/cli_fixture.hpp"
#include "support/generated.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

using OptionsCli = cli_fixture;

using args = std::vector<std::string>;

// `old` gives what `canonical` gives (status, stdout), and on stderr its note before the
// canonical spelling's own stderr.
void expect_same_but_the_note(const run_result& old, const run_result& canonical,
                              const std::string& note) {
    EXPECT_EQ(old.status, canonical.status) << old.err;
    EXPECT_EQ(old.out, canonical.out);
    EXPECT_EQ(old.err, note + "\n" + canonical.err);
}

}  // namespace

TEST_F(OptionsCli, EachOldSpellingGivesTheCanonicalOutputAndOneNote) {
    const std::string f = write_file("in.bin", generated());
    struct spelling {
        args old;
        args canonical;
        std::string note;
    };
    const std::vector<spelling> spellings = {
        {{"sample", f, "--rate", "10", "--from", "0.5", "--to", "1"},
         {"sample", f, "--rate", "10", "--from", "0.5", "--until", "1"},
         "inputanim sample: note: --to is now --until (the old spelling still works)"},
        {{"convert", f, "-", "--from", "0.5", "--to-time", "1"},
         {"convert", f, "-", "--from", "0.5", "--until", "1"},
         "inputanim convert: note: --to-time is now --until (the old spelling still works)"},
        {{"convert", f, "-", "--to", "1.0"},
         {"convert", f, "-", "--version", "1.0"},
         "inputanim convert: note: --to is now --version (the old spelling still works)"},
        {{"export", f, "-", "--to", "gltf", "--from", "0.5", "--to-time", "1"},
         {"export", f, "-", "--format", "gltf", "--from", "0.5", "--until", "1"},
         "inputanim export: note: --to is now --format, --to-time is now --until (the old "
         "spellings still work)"},
        {{"metrics", "--json", f},
         {"metrics", "--format", "json", f},
         "inputanim metrics: note: --json is now --format json (the old spelling still works)"},
        {{"metrics", "--csv", f},
         {"metrics", "--format", "csv", f},
         "inputanim metrics: note: --csv is now --format csv (the old spelling still works)"},
        {{"validate", "--json", f},
         {"validate", "--format", "json", f},
         "inputanim validate: note: --json is now --format json (the old spelling still works)"},
    };
    for (const spelling& s : spellings) {
        const run_result canonical = run(s.canonical);
        EXPECT_EQ(canonical.status, 0) << s.canonical.at(0) << ": " << canonical.err;
        SCOPED_TRACE(s.note);
        expect_same_but_the_note(run(s.old), canonical, s.note);
    }
}

// info's --json is not an old spelling (docs/CLI.md): it prints no note.
TEST_F(OptionsCli, InfoJsonIsTheSameAsFormatJsonWithoutANote) {
    const std::string f = write_file("in.bin", generated());
    const run_result json = run({"info", "--json", f});
    EXPECT_EQ(json.status, 0);
    EXPECT_EQ(json.err, "");
    const run_result format = run({"info", "--format", "json", f});
    EXPECT_EQ(format.out, json.out);
    EXPECT_EQ(format.err, "");
}

TEST_F(OptionsCli, AnOldSpellingAndItsCanonicalFlagTogetherAreAUsageErrorNamingBoth) {
    const std::string f = write_file("in.bin", generated());
    const std::vector<std::pair<args, std::string>> cases = {
        {{"sample", f, "--rate", "1", "--to", "1", "--until", "1"},
         "--to is the old spelling of --until"},
        {{"convert", f, "-", "--until", "1", "--to-time", "1"},
         "--to-time is the old spelling of --until"},
        {{"convert", f, "-", "--to", "1.0", "--version", "1.0"},
         "--to is the old spelling of --version"},
        {{"export", f, "-", "--format", "glb", "--to", "glb"},
         "--to is the old spelling of --format"},
        {{"metrics", "--csv", "--format", "csv", f}, "--csv is the old spelling of --format"},
        {{"validate", "--format", "json", "--json", f}, "--json is the old spelling of --format"},
    };
    for (const auto& [command, words] : cases) {
        const run_result r = run(command);
        EXPECT_EQ(r.status, 2) << command.at(0);
        EXPECT_NE(r.err.find(words + ": give one of them"), std::string::npos) << r.err;
        EXPECT_EQ(r.out, "");
    }
}

TEST_F(OptionsCli, AWindowMessageNamesTheEndAsTheCommandLineGaveIt) {
    const std::string f = write_file("in.bin", generated());
    for (const std::string until : {"--until", "--to"}) {
        const run_result r = run({"sample", f, "--rate", "1", "--from", "5", until, "1"});
        EXPECT_EQ(r.status, 2);
        EXPECT_NE(r.err.find("inputanim sample: --from 5 is after " + until + " 1\n"),
                  std::string::npos)
            << r.err;
    }
    for (const std::string until : {"--until", "--to-time"}) {
        for (const std::string command : {"convert", "export"}) {
            const run_result r = run({command, f, "out.glb", "--from", "0", until, "1e39"});
            EXPECT_EQ(r.status, 2);
            EXPECT_NE(r.err.find("inputanim " + command + ": " + until +
                                 " 1e+39 is not a time a recording can hold"),
                      std::string::npos)
                << r.err;
        }
    }
    const run_result version = run({"convert", f, "-", "--version", "1.0", "--layout", "compact"});
    EXPECT_EQ(version.status, 2);
    EXPECT_NE(version.err.find("(--layout compact needs --version 1.1)"), std::string::npos)
        << version.err;
}

TEST_F(OptionsCli, AFlagTakesOnlyATrueOrFalseWordWhereverItStands) {
    const std::string f = write_file("in.bin", generated());
    // The value CLI11 would not read when another --upload-limits came after it is refused too.
    for (const args& order :
         {args{"validate", "--upload-limits=falsepinch", "--max-ratio=1", f},
          args{"validate", "--max-ratio=1", "--upload-limits=falsepinch", f},
          args{"validate", "--upload-limits=1x", f}, args{"info", "--json=2", f},
          args{"index", "--jsonl", "-", "--invalid-ok=maybe", f}}) {
        const run_result r = run(order);
        EXPECT_EQ(r.status, 2) << order.at(1);
        EXPECT_NE(r.err.find("is not true or false"), std::string::npos) << r.err;
        EXPECT_EQ(r.out, "");
    }
    // The words, in any case: what each says, as the bare flag or its absence.
    const auto limits_of = [&](const args& a) {
        const run_result r = run(a);
        EXPECT_EQ(r.status, 0) << r.err;
        return nlohmann::json::parse(r.out)["checked_with"]["limits"]["max_bytes"];
    };
    const nlohmann::json upload = limits_of({"validate", "--format", "json", "--upload-limits", f});
    const nlohmann::json none = limits_of({"validate", "--format", "json", f});
    ASSERT_NE(upload, none);
    for (const std::string yes : {"true", "YES", "on", "Enable", "t", "y", "1"}) {
        EXPECT_EQ(limits_of({"validate", "--format", "json", "--upload-limits=" + yes, f}), upload)
            << yes;
    }
    for (const std::string no : {"false", "No", "OFF", "disable", "f", "n", "0"}) {
        EXPECT_EQ(limits_of({"validate", "--format", "json", "--upload-limits=" + no, f}), none)
            << no;
    }
}

TEST_F(OptionsCli, AFlagGivenTwiceIsAUsageErrorAsAnOptionGivenTwiceIs) {
    const std::string f = write_file("in.bin", generated());
    for (const args& twice : {args{"validate", "--upload-limits=false", "--upload-limits", f},
                              args{"validate", "--upload-limits", "--upload-limits=false", f},
                              args{"validate", "--upload-limits", "--upload-limits", f},
                              args{"validate", "--max-ratio=1", "--max-ratio=2", f}}) {
        const run_result r = run(twice);
        EXPECT_EQ(r.status, 2) << twice.at(1) << " " << twice.at(2);
        EXPECT_NE(r.err.find("At Most 1 required but received 2"), std::string::npos) << r.err;
        EXPECT_EQ(r.out, "");
    }
    // --help and --version end the command line where they stand, as before.
    EXPECT_EQ(run({"validate", "--help", "--help"}).status, 0);
    EXPECT_EQ(run({"--version"}).status, 0);
}

TEST_F(OptionsCli, TheProgramVersionAndACommandsVersionBothStay) {
    const run_result program = run({"--version"});
    EXPECT_EQ(program.status, 0);
    EXPECT_EQ(program.out.rfind("inputanim ", 0), 0u) << program.out;
    const std::string f = write_file("in.bin", generated());
    ASSERT_EQ(run({"convert", f, path("v10.bin"), "--version", "1.0"}).status, 0);
    ASSERT_EQ(run({"gen", "-o", path("gen.bin"), "--version", "1.0", "--seconds", "1"}).status, 0);
    for (const std::string file : {"v10.bin", "gen.bin"}) {
        const run_result info = run({"info", "--format", "json", path(file)});
        EXPECT_EQ(nlohmann::json::parse(info.out)["version"], "1.0") << info.out;
    }
}

TEST_F(OptionsCli, HelpShowsTheCanonicalFlagsAndListsTheOldSpellingsApart) {
    for (const auto& [command, old] :
         std::vector<std::pair<std::string, std::string>>{{"sample", "--to"},
                                                          {"convert", "--to-time"},
                                                          {"export", "--to"},
                                                          {"metrics", "--csv"},
                                                          {"validate", "--json"}}) {
        const run_result help = run({command, "--help"});
        EXPECT_EQ(help.status, 0);
        const std::size_t group = help.out.find("Old spellings");
        ASSERT_NE(group, std::string::npos) << help.out;
        EXPECT_NE(help.out.find("  " + old + " ", group), std::string::npos) << help.out;
        for (const char* canonical : {"--from", "--until", "--format", "--version"}) {
            const std::size_t at = help.out.find(std::string("  ") + canonical);
            if (at != std::string::npos) {
                EXPECT_LT(at, group) << command << " " << canonical;
            }
        }
    }
}
