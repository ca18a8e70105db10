#include "compute/core/errors.h"
#include "compute/core/params.h"
#include "compute/core/sweep.h"

#include <gtest/gtest.h>

namespace ks {
namespace {

std::vector<Axis> axes()
{
    return {
        Axis::integer("n", "count", 100, 1, 1'000'000'000),
        Axis::powerOfTwo("block", "threads", 256, 32, 1024),
        Axis::real("width", "bucket width", 0.5, 1e-9, 1e9),
        Axis::choice("precision", "type", "f64", {"f64", "f32"}),
    };
}

TEST(Params, DefaultsFillEveryAxisInOrder)
{
    const auto p = ParamSet::parse(axes(), {});
    EXPECT_EQ(p.integer("n"), 100);
    EXPECT_EQ(p.integer("block"), 256);
    EXPECT_DOUBLE_EQ(p.real("width"), 0.5);
    EXPECT_EQ(p.text("precision"), "f64");
    EXPECT_EQ(p.toString(), "n=100;block=256;width=0.5;precision=f64");
}

TEST(Params, AcceptsScientificAndPowerForms)
{
    EXPECT_EQ(ParamSet::parse(axes(), {{"n", "1e6"}}).integer("n"), 1'000'000);
    EXPECT_EQ(ParamSet::parse(axes(), {{"n", "2^20"}}).integer("n"), 1 << 20);
    EXPECT_EQ(ParamSet::parse(axes(), {{"n", "+31"}}).integer("n"), 31);
    EXPECT_DOUBLE_EQ(ParamSet::parse(axes(), {{"width", "2.5e-3"}}).real("width"), 2.5e-3);
}

TEST(Params, RejectsWithMessagesThatNameTheParameter)
{
    auto message = [](std::map<std::string, std::string> given) {
        try {
            ParamSet::parse(axes(), given);
        } catch (const ParameterError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(message({{"bogus", "1"}}).find("unknown parameter 'bogus' (known: n, block, width, precision)"),
        std::string::npos);
    EXPECT_NE(message({{"n", "abc"}}).find("n=abc is not an integer"), std::string::npos);
    EXPECT_NE(message({{"n", "1.5"}}).find("not an integer"), std::string::npos);
    EXPECT_NE(message({{"n", "0"}}).find("outside [1, 1000000000]"), std::string::npos);
    EXPECT_NE(message({{"block", "100"}}).find("not a power of two"), std::string::npos);
    EXPECT_NE(message({{"width", "nan"}}).find("not a finite number"), std::string::npos);
    EXPECT_NE(message({{"precision", "f16"}}).find("not one of: f64, f32"), std::string::npos);
}

TEST(Params, WithReplacesOneValueAndValidates)
{
    const auto p = ParamSet::parse(axes(), {});
    EXPECT_EQ(p.with("n", "31").integer("n"), 31);
    EXPECT_EQ(p.with("n", "31").text("precision"), "f64");
    EXPECT_THROW(p.with("n", "-1"), ParameterError);
}

TEST(Params, SplitAssignments)
{
    const auto m = ParamSet::splitAssignments("n=10,slope=2.5,,x_offset=1e8");
    EXPECT_EQ(m.size(), 3u);
    EXPECT_EQ(m.at("slope"), "2.5");
    EXPECT_TRUE(ParamSet::splitAssignments("").empty());
    EXPECT_THROW(ParamSet::splitAssignments("n10"), ParameterError);
    EXPECT_THROW(ParamSet::splitAssignments("=3"), ParameterError);
    EXPECT_THROW(ParamSet::splitAssignments("n="), ParameterError);
}

TEST(Params, ValuesAreTypedByTheirAxes)
{
    const auto p = ParamSet::parse(axes(), {{"width", "1e-3"}});
    EXPECT_TRUE(std::holds_alternative<std::int64_t>(p.value("n")));
    EXPECT_TRUE(std::holds_alternative<std::int64_t>(p.value("block")));
    EXPECT_TRUE(std::holds_alternative<double>(p.value("width")));
    EXPECT_TRUE(std::holds_alternative<std::string>(p.value("precision")));
    EXPECT_EQ(p.real("width"), 1e-3);
    EXPECT_EQ(p.real("n"), 100.0); // an integer reads as a real
    EXPECT_THROW(p.integer("width"), ParameterError); // 0.001 is no integer
    EXPECT_THROW(p.real("precision"), ParameterError);
    EXPECT_THROW(p.text("missing"), ParameterError);
}

TEST(Params, ReaderOptionsAreKnownAndLeftOutOfRunValues)
{
    auto withReader = axes();
    withReader.push_back(Axis::integer("frame", "frame to read", 1, 1, 100).asReaderOption());
    const auto p = ParamSet::parse(withReader, {{"frame", "3"}});
    EXPECT_TRUE(p.isReaderOption("frame"));
    EXPECT_FALSE(p.isReaderOption("width"));
    EXPECT_EQ(p.runValues().count("frame"), 0u);
    EXPECT_EQ(p.runValues().at("precision"), "f64");
    EXPECT_EQ(p.textValues().at("frame"), "3");
}

TEST(Params, ReadBackFromAResultRowWithTypesInferred)
{
    const auto written = ParamSet::parse(axes(), {{"width", "0.003386"}, {"precision", "f32"}});
    const auto back = ParamSet::fromString(written.toString());
    EXPECT_EQ(back.toString(), written.toString());
    EXPECT_EQ(back, written);
    EXPECT_EQ(back.integer("n"), 100);
    EXPECT_EQ(back.real("width"), 0.003386);
    EXPECT_EQ(back.text("precision"), "f32");
    EXPECT_TRUE(std::holds_alternative<std::string>(back.value("precision")));
    EXPECT_TRUE(ParamSet::fromString("").empty());
    EXPECT_THROW(ParamSet::fromString("n=1;oops"), ParameterError);
}

TEST(Params, TextAxesTakeAnyTextOrNoneWhenOptional)
{
    const std::vector<Axis> text {Axis::text("out", "a file", "", {".h5", ".TXT"}), Axis::text("label", "a name", "x")};
    const auto defaults = ParamSet::parse(text, {});
    EXPECT_EQ(defaults.text("out"), ""); // optional: not set
    EXPECT_EQ(defaults.text("label"), "x");
    EXPECT_EQ(defaults.toString(), "out=;label=x");
    const auto given = ParamSet::parse(text, {{"out", "/tmp/a,b=c d.H5"}, {"label", "2.5"}});
    EXPECT_EQ(given.text("out"), "/tmp/a,b=c d.H5"); // commas and '=' are part of the text
    EXPECT_TRUE(std::holds_alternative<std::string>(given.value("label")));
    EXPECT_EQ(ParamSet::parse(text, {{"out", "f.txt"}}).text("out"), "f.txt");
    auto message = [&](std::map<std::string, std::string> values) {
        try {
            ParamSet::parse(text, values);
        } catch (const ParameterError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(message({{"out", "f.csv"}}), "out=f.csv does not end in .h5 or .txt");
    EXPECT_EQ(message({{"label", ""}}), "label= is empty; give a value");
    EXPECT_NE(message({{"label", "a;b"}}).find("holds ';' or a control character"), std::string::npos);
    EXPECT_NE(message({{"label", "a\nb"}}).find("holds ';' or a control character"), std::string::npos);
    // A results row reads back with the text as written.
    EXPECT_EQ(ParamSet::fromString(given.toString()).text("out"), "/tmp/a,b=c d.H5");
}

TEST(Sizes, ListsPowersAndRanges)
{
    EXPECT_EQ(parseSizeList("1,31, 1e6"), (std::vector<std::uint64_t> {1, 31, 1000000}));
    EXPECT_EQ(parseSizeList("2^16..2^18"), (std::vector<std::uint64_t> {65536, 131072, 262144}));
    EXPECT_EQ(parseSizeList("1000003"), (std::vector<std::uint64_t> {1000003}));
    for (const char* bad : {"0", "10..5", "", "abc", "1.5", "2^", "^3", "-4", "2^99"})
        EXPECT_THROW(parseSizeList(bad), ParameterError) << bad;
}

} // namespace
} // namespace ks
