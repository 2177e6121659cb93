// What the CSV importer refuses, each with its code and a detail that says where: a table it
// cannot read, numbers it cannot parse, keys the format cannot hold, and what passes a ceiling
// (checked before the rows are read).
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "inputanim/import.hpp"

using namespace inputanim;

namespace {

import_result import_text(std::string_view text, const import_options& o = {}) {
    model m;
    return import_model(std::as_bytes(std::span(text.data(), text.size())), import_format::csv, m,
                        o);
}

void expect_refused(std::string_view text, import_error code, std::string_view detail,
                    const import_options& o = {}) {
    const import_result r = import_text(text, o);
    EXPECT_EQ(r.error, make_error_code(code)) << text << ": " << r.error.message();
    EXPECT_NE(r.detail.find(detail), std::string::npos) << text << ": " << r.detail;
}

}  // namespace

TEST(ImportCsvErrors, AnEmptyInputHasNoColumns) {
    expect_refused("", import_error::missing_column, "empty");
}

TEST(ImportCsvErrors, TheFirstColumnMustBeTheTime) {
    expect_refused("camera.position.x,t\n1,0\n", import_error::missing_column,
                   "the first column must be t");
}

TEST(ImportCsvErrors, AColumnMustNameACurve) {
    expect_refused("t,camera.position.x,camera.position.q\n0,1,2\n", import_error::missing_column,
                   "column 3 'camera.position.q' names no curve");
}

TEST(ImportCsvErrors, AColumnMayNotBeThereTwice) {
    expect_refused("t,camera.position.x,camera.position.x\n0,1,2\n", import_error::missing_column,
                   "camera.position.x is there twice");
}

TEST(ImportCsvErrors, ATimeColumnAloneHasNoCurve) {
    expect_refused("t\n0\n", import_error::missing_column, "no column names a curve");
}

TEST(ImportCsvErrors, AFieldThatIsNotANumberIsNamedByLineAndColumn) {
    expect_refused("t,camera.position.x\n0,1\n1,abc\n", import_error::bad_number,
                   "line 3: 'abc' in column camera.position.x is not a number");
    expect_refused("t,camera.position.x\nzero,1\n", import_error::bad_number,
                   "line 2: 'zero' in column t");
    // from_chars takes no blanks, no plus sign and nothing after the number.
    expect_refused("t,camera.position.x\n0, 1\n", import_error::bad_number, "' 1'");
    expect_refused("t,camera.position.x\n0,+1\n", import_error::bad_number, "'+1'");
    expect_refused("t,camera.position.x\n0,1x\n", import_error::bad_number, "'1x'");
    expect_refused("t,camera.position.x\n0,\n", import_error::bad_number, "''");
}

TEST(ImportCsvErrors, ANumberPastTheLargestFloatIsNotAFloat) {
    expect_refused("t,camera.position.x\n0,1e39\n", import_error::bad_number, "'1e39'");
}

TEST(ImportCsvErrors, ARowMustHaveTheHeadersFields) {
    expect_refused("t,camera.position.x,camera.position.y\n0,1\n", import_error::bad_number,
                   "line 2: 2 fields, not the header's 3");
    expect_refused("t,camera.position.x\n0,1,2\n", import_error::bad_number,
                   "line 2: 3 fields or more, not the header's 2");
    expect_refused("t,camera.position.x\n0,1\n\n1,2\n", import_error::bad_number,
                   "line 3 is empty");
}

TEST(ImportCsvErrors, TimesThatGoBackwardsAreUnsorted) {
    expect_refused("t,camera.position.x\n1,0\n0.5,0\n", import_error::unsorted_keys,
                   "camera.position.x key 1");
    expect_refused("t,camera.position.x\n1,0\n1,0\n", import_error::unsorted_keys,
                   "camera.position.x key 1");
}

TEST(ImportCsvErrors, ATimeOrValueThatIsNotFiniteIsRefused) {
    expect_refused("t,camera.position.x\n0,nan\n", import_error::not_finite,
                   "camera.position.x key 0");
    expect_refused("t,camera.position.x\ninf,0\n", import_error::not_finite,
                   "camera.position.x key 0");
}

TEST(ImportCsvErrors, ABoolValueOtherThanZeroOrOneIsRefused) {
    expect_refused("t,hand.left.tracked\n0,0.5\n", import_error::bad_field,
                   "hand.left.tracked key 0");
}

TEST(ImportCsvErrors, TheKeyCeilingsAreCheckedBeforeTheRowsAreRead) {
    import_options o;
    o.limits.max_keyframes_per_curve = 2;
    // The third row is not a number: the ceiling is found first, from the count of lines.
    expect_refused("t,camera.position.x\n0,1\n1,2\n2,x\n", import_error::limit_exceeded,
                   "camera.position.x: 3 keys, more than --max-keyframes-per-curve 2", o);
    o = {};
    o.limits.max_total_keyframes = 5;
    expect_refused("t,camera.position.x,camera.position.y\n0,1,1\n1,2,2\n2,3,x\n",
                   import_error::limit_exceeded,
                   "camera.position.y: more than --max-total-keyframes 5", o);
}

TEST(ImportCsvErrors, AnInputPastMaxBytesIsRefusedBeforeItIsRead) {
    import_options o;
    o.limits.max_bytes = 10;
    expect_refused("t,camera.position.x\n0,1\n", import_error::too_large,
                   "more than --max-bytes 10", o);
}
