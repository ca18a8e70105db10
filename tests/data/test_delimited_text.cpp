// The delimited-text parser under every reader of text datasets: delimiter detection, RFC 4180 quoting, CRLF,
// byte-order marks, comments, physical line numbers, number fields and the CSV writer helpers.

#include "data/dataset_error.h"
#include "data/delimited_text.h"

#include "test_support.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace ks::data {
namespace {

using test::catchDatasetError;
using test::contains;
using test::errorSays;

struct Parsed {
    Delimiter used = Delimiter::Auto;
    std::vector<TextRow> rows;
};

Parsed parseAll(std::string_view text, DelimitedOptions options = {})
{
    Parsed parsed;
    parsed.used = parseDelimitedText(text, "input.txt", options, [&](TextRow& row) {
        parsed.rows.push_back(row);
        return true;
    });
    return parsed;
}

std::vector<std::size_t> linesOf(const Parsed& parsed)
{
    std::vector<std::size_t> lines;
    for (const auto& row : parsed.rows)
        lines.push_back(row.line);
    return lines;
}

using Fields = std::vector<std::string>;

// --- DatasetError and linePlace --------------------------------------------------------------------------

TEST(DatasetErrorTest, WhatJoinsFilePlaceAndProblem)
{
    const DatasetError error("data.csv", "line 3, column 2", "'abc' is not a number");
    EXPECT_EQ(error.file(), "data.csv");
    EXPECT_EQ(error.place(), "line 3, column 2");
    EXPECT_EQ(error.problem(), "'abc' is not a number");
    EXPECT_STREQ(error.what(), "data.csv: line 3, column 2: 'abc' is not a number");
}

TEST(DatasetErrorTest, OmitsAnEmptyPlaceAndNamesAnUnnamedInput)
{
    EXPECT_STREQ(DatasetError("data.csv", "", "no such file").what(), "data.csv: no such file");
    EXPECT_STREQ(DatasetError("", "line 1", "bad").what(), "<input>: line 1: bad");
}

TEST(DatasetErrorTest, LinePlaceFormatsLineAndOptionalColumn)
{
    EXPECT_EQ(linePlace(12), "line 12");
    EXPECT_EQ(linePlace(12, 3), "line 12, column 3");
}

// --- delimiter detection ------------------------------------------------------------------------------------

TEST(DelimitedTextTest, DetectsComma)
{
    const Parsed p = parseAll("a,b\n1,2\n");
    EXPECT_EQ(p.used, Delimiter::Comma);
    ASSERT_EQ(p.rows.size(), 2u);
    EXPECT_EQ(p.rows[0].fields, (Fields {"a", "b"}));
    EXPECT_EQ(p.rows[1].fields, (Fields {"1", "2"}));
    EXPECT_EQ(linesOf(p), (std::vector<std::size_t> {1, 2}));
}

TEST(DelimitedTextTest, DetectsTab)
{
    const Parsed p = parseAll("time\tvalue\n1.5\t2.5\n");
    EXPECT_EQ(p.used, Delimiter::Tab);
    ASSERT_EQ(p.rows.size(), 2u);
    EXPECT_EQ(p.rows[0].fields, (Fields {"time", "value"}));
    EXPECT_EQ(p.rows[1].fields, (Fields {"1.5", "2.5"}));
}

TEST(DelimitedTextTest, DetectsSemicolon)
{
    const Parsed p = parseAll("1.5;2.5\n3;4\n");
    EXPECT_EQ(p.used, Delimiter::Semicolon);
    ASSERT_EQ(p.rows.size(), 2u);
    EXPECT_EQ(p.rows[0].fields, (Fields {"1.5", "2.5"}));
    EXPECT_EQ(p.rows[1].fields, (Fields {"3", "4"}));
}

TEST(DelimitedTextTest, DetectsWhitespaceAndSplitsOnRunsOfBlanks)
{
    const Parsed p = parseAll("  1   2\n3\t \t4  \n");
    EXPECT_EQ(p.used, Delimiter::Whitespace);
    ASSERT_EQ(p.rows.size(), 2u);
    EXPECT_EQ(p.rows[0].fields, (Fields {"1", "2"}));
    EXPECT_EQ(p.rows[1].fields, (Fields {"3", "4"}));
}

TEST(DelimitedTextTest, DetectionIgnoresDelimitersInsideQuotes)
{
    const Parsed p = parseAll("\"a,b,c\";d\n1;2\n");
    EXPECT_EQ(p.used, Delimiter::Semicolon);
    ASSERT_EQ(p.rows.size(), 2u);
    EXPECT_EQ(p.rows[0].fields, (Fields {"a,b,c", "d"}));
}

TEST(DelimitedTextTest, DetectionLooksPastCommentsAndBlankLines)
{
    // The comment holds commas; the first data line decides.
    const Parsed p = parseAll("# a, b, c\n\n1;2\n");
    EXPECT_EQ(p.used, Delimiter::Semicolon);
    ASSERT_EQ(p.rows.size(), 1u);
    EXPECT_EQ(p.rows[0].fields, (Fields {"1", "2"}));
    EXPECT_EQ(p.rows[0].line, 3u);
}

TEST(DelimitedTextTest, ExplicitDelimiterOverridesDetection)
{
    DelimitedOptions options;
    options.delimiter = Delimiter::Semicolon;
    const Parsed p = parseAll("a,b;c\n", options);
    EXPECT_EQ(p.used, Delimiter::Semicolon);
    ASSERT_EQ(p.rows.size(), 1u);
    EXPECT_EQ(p.rows[0].fields, (Fields {"a,b", "c"}));
}

TEST(DelimitedTextTest, EmptyInputGivesNoRows)
{
    EXPECT_TRUE(parseAll("").rows.empty());
    EXPECT_TRUE(parseAll("\n\n# only a comment\n").rows.empty());
}

TEST(DelimitedTextTest, DelimiterNames)
{
    EXPECT_STREQ(delimiterName(Delimiter::Auto), "auto");
    EXPECT_STREQ(delimiterName(Delimiter::Comma), "comma");
    EXPECT_STREQ(delimiterName(Delimiter::Tab), "tab");
    EXPECT_STREQ(delimiterName(Delimiter::Semicolon), "semicolon");
    EXPECT_STREQ(delimiterName(Delimiter::Whitespace), "whitespace");
}

// --- quoting (RFC 4180) -------------------------------------------------------------------------------------

TEST(DelimitedTextTest, QuotedFieldsKeepCommasAndDoubledQuotes)
{
    const Parsed p = parseAll("\"a,b\",\"say \"\"hi\"\"\",plain,\"\"\n");
    ASSERT_EQ(p.rows.size(), 1u);
    EXPECT_EQ(p.rows[0].fields, (Fields {"a,b", "say \"hi\"", "plain", ""}));
}

TEST(DelimitedTextTest, QuotedFieldMaySpanLinesAndRowKeepsItsFirstLine)
{
    const Parsed p = parseAll("\"first\nsecond\",x\n3,4\n");
    ASSERT_EQ(p.rows.size(), 2u);
    EXPECT_EQ(p.rows[0].fields, (Fields {"first\nsecond", "x"}));
    EXPECT_EQ(linesOf(p), (std::vector<std::size_t> {1, 3}));
}

TEST(DelimitedTextTest, CommentCharInsideAQuotedFieldIsData)
{
    const Parsed p = parseAll("\"multi\n# not a comment\",1\n");
    ASSERT_EQ(p.rows.size(), 1u);
    EXPECT_EQ(p.rows[0].fields, (Fields {"multi\n# not a comment", "1"}));
}

TEST(DelimitedTextTest, StrayQuoteInUnquotedFieldThrowsNamingTheLine)
{
    const auto error = catchDatasetError([] { parseAll("x,y\n1,2\n3,4\"5\n6,7\n"); });
    EXPECT_TRUE(errorSays(error, "input.txt", "line 3", "malformed CSV"));
    EXPECT_TRUE(contains(error->problem(), "stray quote"));
}

TEST(DelimitedTextTest, TextAfterClosingQuoteThrowsNamingTheLine)
{
    const auto error = catchDatasetError([] { parseAll("x,y\n\"ab\"c,1\n"); });
    EXPECT_TRUE(errorSays(error, "input.txt", "line 2", "malformed CSV"));
}

TEST(DelimitedTextTest, UnterminatedQuotedFieldThrowsNamingTheLineItStartsOn)
{
    const auto error = catchDatasetError([] { parseAll("x,y\n1,2\n\"3,4\n5,6\n"); });
    EXPECT_TRUE(errorSays(error, "input.txt", "line 3", "unterminated quoted field"));
}

TEST(DelimitedTextTest, UnterminatedQuotedFieldOnTheLastLineWithoutNewline)
{
    const auto error = catchDatasetError([] { parseAll("1,2\n# note\n3,\"4"); });
    EXPECT_TRUE(errorSays(error, "input.txt", "line 3", "unterminated quoted field"));
}

// --- line endings, BOM, comments, line numbers ----------------------------------------------------------------

TEST(DelimitedTextTest, CrlfLineEndingsLeaveNoCarriageReturns)
{
    const Parsed p = parseAll("x,y\r\n1,2\r\n\r\n# note\r\n3,4\r\n");
    ASSERT_EQ(p.rows.size(), 3u);
    EXPECT_EQ(p.rows[0].fields, (Fields {"x", "y"}));
    EXPECT_EQ(p.rows[1].fields, (Fields {"1", "2"}));
    EXPECT_EQ(p.rows[2].fields, (Fields {"3", "4"}));
    EXPECT_EQ(linesOf(p), (std::vector<std::size_t> {1, 2, 5}));
}

TEST(DelimitedTextTest, CrlfWithTabsAndWhitespace)
{
    const Parsed tabs = parseAll("1\t2\r\n3\t4\r\n");
    EXPECT_EQ(tabs.used, Delimiter::Tab);
    ASSERT_EQ(tabs.rows.size(), 2u);
    EXPECT_EQ(tabs.rows[1].fields, (Fields {"3", "4"}));

    const Parsed blanks = parseAll("1 2\r\n\r\n3 4\r\n");
    EXPECT_EQ(blanks.used, Delimiter::Whitespace);
    ASSERT_EQ(blanks.rows.size(), 2u);
    EXPECT_EQ(blanks.rows[0].fields, (Fields {"1", "2"}));
    EXPECT_EQ(blanks.rows[1].fields, (Fields {"3", "4"}));
    EXPECT_EQ(linesOf(blanks), (std::vector<std::size_t> {1, 3}));
}

TEST(DelimitedTextTest, Utf8BomIsStripped)
{
    const Parsed csv = parseAll("\xEF\xBB\xBFx,y\n1,2\n");
    EXPECT_EQ(csv.used, Delimiter::Comma);
    ASSERT_EQ(csv.rows.size(), 2u);
    EXPECT_EQ(csv.rows[0].fields, (Fields {"x", "y"}));
    EXPECT_EQ(csv.rows[0].line, 1u);

    const Parsed blanks = parseAll("\xEF\xBB\xBF# comment after the BOM\n1 2\n");
    EXPECT_EQ(blanks.used, Delimiter::Whitespace);
    ASSERT_EQ(blanks.rows.size(), 1u);
    EXPECT_EQ(blanks.rows[0].fields, (Fields {"1", "2"}));
    EXPECT_EQ(blanks.rows[0].line, 2u);
}

TEST(DelimitedTextTest, CommentsAndBlankLinesAreSkippedWithPhysicalLineNumbers)
{
    const std::string text = "# header comment\n"
                             "\n"
                             "x,y\n"
                             "   \n"
                             "1,2\n"
                             "  # indented comment\n"
                             "\t\n"
                             "3,4"; // no final newline
    const Parsed p = parseAll(text);
    ASSERT_EQ(p.rows.size(), 3u);
    EXPECT_EQ(linesOf(p), (std::vector<std::size_t> {3, 5, 8}));
    EXPECT_EQ(p.rows[2].fields, (Fields {"3", "4"}));
}

TEST(DelimitedTextTest, WhitespaceModeReportsPhysicalLineNumbers)
{
    const Parsed p = parseAll("# c\n\n1 2\n# c\n\n\n3 4\n");
    EXPECT_EQ(p.used, Delimiter::Whitespace);
    EXPECT_EQ(linesOf(p), (std::vector<std::size_t> {3, 7}));
}

TEST(DelimitedTextTest, CommentCharCanBeChangedOrDisabled)
{
    DelimitedOptions percent;
    percent.commentChar = '%';
    const Parsed p = parseAll("% note\n#a,b\n", percent);
    ASSERT_EQ(p.rows.size(), 1u);
    EXPECT_EQ(p.rows[0].fields, (Fields {"#a", "b"}));
    EXPECT_EQ(p.rows[0].line, 2u);

    DelimitedOptions none;
    none.commentChar = '\0';
    const Parsed q = parseAll("#a,b\n", none);
    ASSERT_EQ(q.rows.size(), 1u);
    EXPECT_EQ(q.rows[0].fields, (Fields {"#a", "b"}));
}

TEST(DelimitedTextTest, CallbackReturningFalseStopsEarly)
{
    for (const char* text : {"1,2\n3,4\n5,6\n", "1 2\n3 4\n5 6\n"}) {
        std::vector<std::size_t> lines;
        parseDelimitedText(text, "input.txt", {}, [&](TextRow& row) {
            lines.push_back(row.line);
            return lines.size() < 2;
        });
        EXPECT_EQ(lines, (std::vector<std::size_t> {1, 2})) << text;
    }
}

TEST(DelimitedTextTest, StoppingEarlySkipsMalformedTextAfterTheStop)
{
    std::size_t rows = 0;
    EXPECT_NO_THROW(parseDelimitedText("1,2\n\"unterminated\n", "input.txt", {}, [&](TextRow&) {
        ++rows;
        return false;
    }));
    EXPECT_EQ(rows, 1u);
}

// --- parseNumberField ---------------------------------------------------------------------------------------

TEST(ParseNumberFieldTest, AcceptsSignsBlanksExponentsNanAndInf)
{
    EXPECT_EQ(parseNumberField("+1.5", "f.csv", 1, 1), 1.5);
    EXPECT_EQ(parseNumberField(" 2 ", "f.csv", 1, 1), 2.0);
    EXPECT_EQ(parseNumberField("\t-3.25\r", "f.csv", 1, 1), -3.25);
    EXPECT_EQ(parseNumberField("1e-3", "f.csv", 1, 1), 1e-3);
    EXPECT_EQ(parseNumberField("-2.5E+2", "f.csv", 1, 1), -250.0);
    EXPECT_EQ(parseNumberField(".5", "f.csv", 1, 1), 0.5);
    EXPECT_TRUE(std::isnan(parseNumberField("nan", "f.csv", 1, 1)));
    EXPECT_TRUE(std::isnan(parseNumberField("NaN", "f.csv", 1, 1)));
    EXPECT_EQ(parseNumberField("inf", "f.csv", 1, 1), HUGE_VAL);
    EXPECT_EQ(parseNumberField("-inf", "f.csv", 1, 1), -HUGE_VAL);
    EXPECT_EQ(parseNumberField("Infinity", "f.csv", 1, 1), HUGE_VAL);
    EXPECT_EQ(parseNumberField("4.9406564584124654e-324", "f.csv", 1, 1), 4.9406564584124654e-324);
}

TEST(ParseNumberFieldTest, RejectsEmptyCellNamingFileLineAndColumn)
{
    for (const char* field : {"", "   ", "\t\r"}) {
        const auto error = catchDatasetError([&] { parseNumberField(field, "data.csv", 7, 3); });
        EXPECT_TRUE(errorSays(error, "data.csv", "line 7, column 3", "empty cell")) << "field '" << field << "'";
    }
}

TEST(ParseNumberFieldTest, RejectsTextThatIsNotANumber)
{
    for (const char* field : {"abc", "1.2.3", "1,5", "+-1", "--1", "+", "1e", "0x10", "12abc", "1 2"}) {
        const auto error = catchDatasetError([&] { parseNumberField(field, "data.csv", 7, 3); });
        const std::string problem = std::string("'").append(field).append("' is not a number");
        EXPECT_TRUE(errorSays(error, "data.csv", "line 7, column 3", problem)) << "field '" << field << "'";
    }
}

TEST(ParseNumberFieldTest, NamesTheTrimmedFieldInTheMessage)
{
    const auto error = catchDatasetError([] { parseNumberField("  abc  ", "data.csv", 2, 1); });
    ASSERT_TRUE(error);
    EXPECT_STREQ(error->what(), "data.csv: line 2, column 1: 'abc' is not a number");
}

TEST(ParseNumberFieldTest, RejectsValuesOutOfTheRangeOfADouble)
{
    for (const char* field : {"1e400", "-1e400", "1e-400"}) {
        const auto error = catchDatasetError([&] { parseNumberField(field, "data.csv", 4, 2); });
        EXPECT_TRUE(errorSays(error, "data.csv", "line 4, column 2", "out of the range of a double")) << field;
    }
}

// --- csvField / csvLine -------------------------------------------------------------------------------------

TEST(CsvFieldTest, LeavesPlainFieldsAlone)
{
    EXPECT_EQ(csvField("plain"), "plain");
    EXPECT_EQ(csvField("1.5e-3"), "1.5e-3");
    EXPECT_EQ(csvField("two words"), "two words");
    EXPECT_EQ(csvField(""), "");
    EXPECT_EQ(csvField("a#b"), "a#b");
}

TEST(CsvFieldTest, QuotesOnlyWhenNeeded)
{
    EXPECT_EQ(csvField("a,b"), "\"a,b\"");
    EXPECT_EQ(csvField("say \"hi\""), "\"say \"\"hi\"\"\"");
    EXPECT_EQ(csvField("two\nlines"), "\"two\nlines\"");
    EXPECT_EQ(csvField("cr\rhere"), "\"cr\rhere\"");
    EXPECT_EQ(csvField(" lead"), "\" lead\"");
    EXPECT_EQ(csvField("trail "), "\"trail \"");
    // The reader also splits on tabs and semicolons, and skips lines starting with '#'.
    EXPECT_EQ(csvField("a\tb"), "\"a\tb\"");
    EXPECT_EQ(csvField("a;b"), "\"a;b\"");
    EXPECT_EQ(csvField("#x"), "\"#x\"");
}

TEST(CsvFieldTest, CsvLineJoinsWithCommasWithoutNewline)
{
    EXPECT_EQ(csvLine({"x", "y"}), "x,y");
    EXPECT_EQ(csvLine({"a,b", "c", ""}), "\"a,b\",c,");
    EXPECT_EQ(csvLine({}), "");
}

TEST(CsvFieldTest, CsvLinesRoundTripThroughTheParser)
{
    const std::vector<Fields> rows = {
        {"x", "y"},
        {"time, s", "value \"v\""},
        {" padded ", "multi\nline"},
        {"", "empty first"},
        {"a\tb", "tab inside"},
        {"a;b;c", "d"},
        {"#not a comment", "1"},
        {"crlf\r\ninside", "\"\""},
        {"µs", "ünïcode"},
    };
    std::string text;
    for (const auto& row : rows)
        text += csvLine(row) + "\n";
    const Parsed p = parseAll(text);
    EXPECT_EQ(p.used, Delimiter::Comma);
    ASSERT_EQ(p.rows.size(), rows.size()) << text;
    for (std::size_t i = 0; i < rows.size(); ++i)
        EXPECT_EQ(p.rows[i].fields, rows[i]) << "row " << i;
}

TEST(CsvFieldTest, EachRowRoundTripsOnItsOwnUnderAutoDetection)
{
    // Detection looks only at the first data line, so each row must be read back correctly by itself.
    const std::vector<Fields> rows = {
        {"a\tb", "c"},
        {"a;b;c", "d"},
        {"#x", "y"},
        {"1,5", "2;5"},
    };
    for (const auto& row : rows) {
        const Parsed p = parseAll(csvLine(row) + "\n");
        ASSERT_EQ(p.rows.size(), 1u) << csvLine(row);
        EXPECT_EQ(p.rows[0].fields, row) << csvLine(row);
    }
}

} // namespace
} // namespace ks::data
