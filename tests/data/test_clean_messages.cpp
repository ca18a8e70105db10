// Error messages are safe to print and short: text from a file is escaped (no terminal escape sequence, control byte
// or invalid UTF-8 reaches the terminal) and cut, so every error line stays within 200 characters and names the file
// and the place. Checked for the quoting helper itself, for every reader on hostile inputs made here (an escape
// sequence, a 2 MB field, invalid UTF-8, NUL bytes), and for every file of the malformed corpora in tests/data.

#include "data/dataset_error.h"
#include "data/expression_table.h"
#include "data/hdf5_file.h"
#include "data/image_set.h"
#include "data/point_cloud.h"
#include "data/quote.h"
#include "data/reader_messages.h"
#include "data/series2d.h"
#include "data/sparse_matrix.h"

#include "test_support.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace ks::data::test {
namespace {

const std::string kEllipsis = "\xE2\x80\xA6";

// --- the helper ------------------------------------------------------------------------------------------------

TEST(EscapedText, KeepsPrintableAsciiAndValidUtf8)
{
    EXPECT_EQ(escapedText("x = 1.5e3, C:\\data"), "x = 1.5e3, C:\\data");
    EXPECT_EQ(escapedText("Gène β 日本 🧬"), "Gène β 日本 🧬");
    EXPECT_EQ(escapedText(""), "");
}

TEST(EscapedText, EscapesControlCharacters)
{
    EXPECT_EQ(escapedText("a\tb\nc\rd"), "a\\tb\\nc\\rd");
    EXPECT_EQ(escapedText("\033]0;PWNED\007"), "\\x1b]0;PWNED\\x07");
    EXPECT_EQ(escapedText(std::string_view("a\0b", 3)), "a\\x00b");
    EXPECT_EQ(escapedText("\x7f\x01\x1f"), "\\x7f\\x01\\x1f");
    // C1 controls (U+009B is a one-character CSI) and bidirectional overrides, though valid UTF-8.
    EXPECT_EQ(escapedText("\xC2\x9B"
                          "31m"),
        "\\u009b31m");
    EXPECT_EQ(escapedText("ab\xE2\x80\xAE"
                          "cd\xE2\x81\xA9"),
        "ab\\u202ecd\\u2069");
}

TEST(EscapedText, EscapesEachByteOfInvalidUtf8)
{
    EXPECT_EQ(escapedText("\xff\xfe"), "\\xff\\xfe");
    EXPECT_EQ(escapedText("a\x80z"), "a\\x80z"); // a lone continuation byte
    EXPECT_EQ(escapedText("\xC3"), "\\xc3"); // a sequence cut by the end
    EXPECT_EQ(escapedText("\xC3(x"), "\\xc3(x"); // a lead byte without its continuation
    EXPECT_EQ(escapedText("\xC0\xAF"), "\\xc0\\xaf"); // overlong '/'
    EXPECT_EQ(escapedText("\xE0\x80\xAF"), "\\xe0\\x80\\xaf"); // overlong, three bytes
    EXPECT_EQ(escapedText("\xED\xA0\x80"), "\\xed\\xa0\\x80"); // a UTF-16 surrogate
    EXPECT_EQ(escapedText("\xF4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80"); // past U+10FFFF
    EXPECT_EQ(escapedText("\xF5"), "\\xf5");
    EXPECT_EQ(escapedText("\xC3\xA9\xff\xC3\xA9"), "é\\xffé");
}

TEST(EscapedText, CutsAtTheLimitWithAnEllipsisNeverInsideAnEscapeOrACodePoint)
{
    EXPECT_EQ(escapedText("abcdef", 6), "abcdef");
    EXPECT_EQ(escapedText("abcdefg", 6), "abcdef" + kEllipsis);
    // "\x1b" is four characters wide: it goes whole or not at all.
    EXPECT_EQ(escapedText("abcd\033", 6), "abcd" + kEllipsis);
    EXPECT_EQ(escapedText("ab\033cd", 6), "ab\\x1b" + kEllipsis);
    // A code point counts one character, whatever its bytes.
    EXPECT_EQ(escapedText("ééééééé", 6), "éééééé" + kEllipsis);
    EXPECT_EQ(escapedText("日本語", 3), "日本語");
    EXPECT_EQ(escapedText("🧬🧬🧬🧬", 3), "🧬🧬🧬" + kEllipsis);
    EXPECT_EQ(escapedText("abc", 0), kEllipsis);
}

TEST(EscapedText, IsUnchangedBySecondPass)
{
    for (const std::string text : {"\033]0;PWNED\007", "\xff\xfe\xc3(", "a\tb", "Gène\xC2\x9B"}) {
        const std::string once = escapedText(text, 10);
        EXPECT_EQ(escapedText(once), once);
    }
}

TEST(QuotedToken, QuotesEscapesAndCutsAtFortyCharacters)
{
    EXPECT_EQ(quotedToken("3.5"), "'3.5'");
    EXPECT_EQ(quotedToken("\033]0;PWNED\007"), "'\\x1b]0;PWNED\\x07'");
    const std::string forty(40, 'x');
    EXPECT_EQ(quotedToken(forty), "'" + forty + "'");
    EXPECT_EQ(quotedToken(std::string(2'000'000, 'a')), "'" + std::string(40, 'a') + kEllipsis + "'");
    EXPECT_EQ(quotedToken(std::string(39, 'a') + "\t"), "'" + std::string(39, 'a') + kEllipsis + "'");
    EXPECT_EQ(quotedToken(std::string(39, 'a') + "é"), "'" + std::string(39, 'a') + "é'");
}

TEST(ShownName, EscapesAndCutsNamesForProseAndPlaces)
{
    EXPECT_EQ(shownName("vertex"), "vertex");
    EXPECT_EQ(shownName("v\033[2J"), "v\\x1b[2J");
    EXPECT_EQ(shownName(std::string(100, 'g'), kPlaceNameChars), std::string(kPlaceNameChars, 'g') + kEllipsis);
    EXPECT_EQ(listing({"a\033", "b"}), "a\\x1b, b");
}

TEST(DatasetErrorText, EscapesFilePlaceAndProblemAndBoundsPlaceAndProblem)
{
    const DatasetError error("in\033put.csv", "dataset /g\007", "bad \xff");
    EXPECT_EQ(error.file(), "in\\x1bput.csv");
    EXPECT_EQ(error.place(), "dataset /g\\x07");
    EXPECT_EQ(error.problem(), "bad \\xff");
    EXPECT_STREQ(error.what(), "in\\x1bput.csv: dataset /g\\x07: bad \\xff");

    const std::string longName(5000, 'n');
    const DatasetError flood("f.h5", "dataset /" + longName, "no such dataset " + longName);
    EXPECT_EQ(error.file(), "in\\x1bput.csv");
    EXPECT_LE(flood.place().size(), DatasetError::kPlaceChars + kEllipsis.size());
    EXPECT_LE(flood.place().size() + flood.problem().size(), DatasetError::kDetailChars + 2 * kEllipsis.size());
    EXPECT_TRUE(contains(flood.problem(), "no such dataset nnn"));
    // The file name is escaped, never cut: the user typed it.
    const std::string longFile(300, 'f');
    EXPECT_EQ(DatasetError(longFile, "", "x").file(), longFile);
}

// --- what every message must satisfy ---------------------------------------------------------------------------

std::size_t characters(std::string_view text)
{
    std::size_t count = 0;
    for (const char c : text)
        count += (static_cast<unsigned char>(c) & 0xC0u) != 0x80u;
    return count;
}

/// The CLI prints "error: " and what(); counted with the file named by a path of kFileChars characters (the file
/// name is the user's and is never cut), the line must stay within kLineChars.
constexpr std::size_t kFileChars = 50;
constexpr std::size_t kLineChars = 200;

::testing::AssertionResult isCleanMessage(const std::optional<DatasetError>& error, const std::string& file,
    bool needsPlace, std::string_view forbidden = "PWNED\007")
{
    if (!error)
        return ::testing::AssertionFailure() << "no DatasetError was thrown for " << file;
    const std::string what = error->what();
    const std::string shown = escapedText(what.substr(0, 400));
    if (escapedText(what) != what)
        return ::testing::AssertionFailure() << "control bytes or invalid UTF-8 in: " << shown;
    if (what.find(forbidden) != std::string::npos)
        return ::testing::AssertionFailure() << "the raw payload is in: " << shown;
    if (error->file() != escapedText(file) || what.rfind(error->file() + ": ", 0) != 0)
        return ::testing::AssertionFailure() << "does not start with the file: " << shown;
    if (needsPlace && error->place().empty())
        return ::testing::AssertionFailure() << "no place: " << shown;
    const std::size_t line = 7 + kFileChars + characters(what) - characters(error->file());
    if (line > kLineChars)
        return ::testing::AssertionFailure() << "a " << line << "-character line: " << shown;
    return ::testing::AssertionSuccess() << shown;
}

// --- hostile content, reader by reader ---------------------------------------------------------------------------

struct Payload {
    const char* name;
    std::string bytes;
};

std::vector<Payload> payloads()
{
    return {{"escape_sequence", "\033]0;PWNED\007"}, {"two_megabytes", std::string(2'000'000, 'x')},
        {"invalid_utf8", "1\xff\xfe\xc3("}, {"nul_bytes", std::string("1\0\0002", 4)}};
}

/// A file for one reader with the payload where the reader expects a number or a name.
struct HostileText {
    const char* name;
    const char* fileName;
    std::function<std::string(const std::string&)> make;
    std::function<void(const std::string&)> load;
};

std::string pdbAtom(const std::string& x)
{
    return "ATOM      1  CA  ALA A   1    " + x + "   1.000   1.000  1.00 20.00           C\n";
}

const char* const kPlyHeader = "ply\nformat ascii 1.0\nelement vertex 2\n";

const HostileText kHostileTexts[] = {
    {"linreg_csv", "s.csv", [](const std::string& p) { return "x,y\n1,2\n3," + p + "\n"; },
        [](const std::string& f) { loadSeries2D(f); }},
    {"linreg_tsv", "s.tsv", [](const std::string& p) { return "x\ty\n1\t2\n3\t" + p + "\n"; },
        [](const std::string& f) { loadSeries2D(f); }},
    {"linreg_whitespace", "s.txt", [](const std::string& p) { return "1 2\n3 " + p + "\n"; },
        [](const std::string& f) { loadSeries2D(f); }},
    {"lrv_cell", "e.csv", [](const std::string& p) { return ",G1,G2,G3\nS1,1,2,3\nS2," + p + ",5,6\n"; },
        [](const std::string& f) { loadExpressionTable(f); }},
    {"lrv_duplicate_names", "e.tsv",
        [](const std::string& p) { return "\t" + p + "\t" + p + "\tG3\nS1\t1\t2\t3\nS2\t4\t5\t6\n"; },
        [](const std::string& f) { loadExpressionTable(f); }},
    {"sdh_text", "p.csv", [](const std::string& p) { return "x,y,z\n1,2,3\n4," + p + ",6\n"; },
        [](const std::string& f) { loadPointCloud(f); }},
    {"sdh_xyz", "p.xyz", [](const std::string& p) { return "2\ncomment\nC 1 2 3\nC " + p + " 2 3\n"; },
        [](const std::string& f) { loadPointCloud(f); }},
    {"sdh_xyz_count", "c.xyz", [](const std::string& p) { return p + "\ncomment\nC 1 2 3\n"; },
        [](const std::string& f) { readXyz(f); }},
    {"sdh_pdb", "p.pdb", [](const std::string& p) { return pdbAtom("   1.000") + pdbAtom(p); },
        [](const std::string& f) { loadPointCloud(f); }},
    {"sdh_ply_value", "v.ply",
        [](const std::string& p) {
            return std::string(kPlyHeader)
                + "property float x\nproperty float y\nproperty float z\nend_header\n1 2 3\n4 " + p + " 6\n";
        },
        [](const std::string& f) { loadPointCloud(f); }},
    {"sdh_ply_property_name", "n.ply",
        [](const std::string& p) {
            return std::string(kPlyHeader) + "property float " + p
                + "\nproperty float y\nproperty float z\nend_header\n1 2 3\n4 5 6\n";
        },
        [](const std::string& f) { loadPointCloud(f); }},
    {"sdh_ply_keyword", "k.ply", [](const std::string& p) { return std::string(kPlyHeader) + p + " x\n"; },
        [](const std::string& f) { loadPointCloud(f); }},
    {"spmv_value", "v.mtx",
        [](const std::string& p) { return "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 " + p + "\n"; },
        [](const std::string& f) { loadSparseMatrix(f); }},
    {"spmv_banner", "b.mtx",
        [](const std::string& p) { return "%%MatrixMarket matrix " + p + " real general\n2 2 1\n1 1 1\n"; },
        [](const std::string& f) { loadSparseMatrix(f); }},
    {"spmv_size", "s.mtx",
        [](const std::string& p) { return "%%MatrixMarket matrix coordinate real general\n2 " + p + " 1\n1 1 1\n"; },
        [](const std::string& f) { loadSparseMatrix(f); }},
    {"spmv_vector", "x.txt", [](const std::string& p) { return "1\n" + p + "\n"; },
        [](const std::string& f) { readVector(f); }},
};

class HostileTextTest : public TempDirTest, public ::testing::WithParamInterface<HostileText> { };

TEST_P(HostileTextTest, EveryPayloadGivesACleanShortMessageWithFileAndPlace)
{
    for (const Payload& payload : payloads()) {
        SCOPED_TRACE(payload.name);
        const std::string path = writeFile(GetParam().fileName, GetParam().make(payload.bytes));
        EXPECT_TRUE(isCleanMessage(catchDatasetError([&] { GetParam().load(path); }), path, true));
    }
}

INSTANTIATE_TEST_SUITE_P(EveryTextReader, HostileTextTest, ::testing::ValuesIn(kHostileTexts),
    [](const ::testing::TestParamInfo<HostileText>& param) { return std::string(param.param.name); });

using HostileNameTest = TempDirTest;

/// HDF5 names hold any byte but NUL and '/'; the payloads without NUL, with a long name in place of the 2 MB field.
std::vector<Payload> namePayloads()
{
    return {
        {"escape_sequence", "\033]0;PWNED\007"}, {"long", std::string(5000, 'n')}, {"invalid_utf8", "n\xff\xfe\xc3("}};
}

TEST_F(HostileNameTest, Hdf5DatasetNamesInAListing)
{
    for (const Payload& payload : namePayloads()) {
        SCOPED_TRACE(payload.name);
        const std::string path = tempPath(std::string(payload.name) + ".h5");
        {
            h5::File file = h5::File::create(path);
            const std::vector<double> values {1.0, 2.0};
            file.writeDoubles("/a", values, {2});
            file.writeDoubles("/" + payload.bytes, values, {2});
        }
        EXPECT_TRUE(isCleanMessage(catchDatasetError([&] { loadSeries2D(path); }), path, false));
    }
}

TEST_F(HostileNameTest, Hdf5GroupNameAndStringAttributeValue)
{
    for (const Payload& payload : namePayloads()) {
        SCOPED_TRACE(payload.name);
        const std::string path = tempPath(std::string(payload.name) + ".h5");
        const std::string group = "/" + payload.bytes;
        {
            h5::File file = h5::File::create(path);
            const std::vector<double> data {1.0};
            const std::vector<std::int32_t> indices {0};
            const std::vector<std::int64_t> indptr {0, 1};
            const std::vector<std::int64_t> shape {1, 1};
            file.writeDoubles(group + "/data", data, {1});
            file.writeInt32s(group + "/indices", indices, {1});
            file.writeInt64s(group + "/indptr", indptr, {2});
            file.writeInt64s(group + "/shape", shape, {2});
            file.writeStringAttribute(group, "encoding-type", payload.bytes);
        }
        const auto error = catchDatasetError([&] { loadSparseMatrix(path); });
        EXPECT_TRUE(isCleanMessage(error, path, true));
        if (error) {
            EXPECT_TRUE(contains(error->problem(), "encoding-type"));
        }
    }
}

TEST_F(HostileNameTest, FileNamesFromAFolderAreEscaped)
{
    // The IDX reader names the files it found in a folder; a folder someone else filled can name them anything.
    for (const Payload& payload : namePayloads()) {
        SCOPED_TRACE(payload.name);
        const std::string folder = tempPath(payload.name);
        std::filesystem::create_directories(folder);
        const std::string stem = payload.bytes.size() > 100 ? payload.bytes.substr(0, 100) : payload.bytes;
        writeFile(std::string(payload.name) + "/" + stem + "-images-idx3-ubyte", std::string(16, '\0'));
        EXPECT_TRUE(isCleanMessage(catchDatasetError([&] { loadImageSet(folder); }), folder, false));
    }
}

TEST_F(HostileNameTest, ATypedFileNameIsEscapedButKept)
{
    const std::string path = writeFile("in\033]0;PWNED\007put.csv", "x,y\n1,2\n3,a\n");
    const auto error = catchDatasetError([&] { loadSeries2D(path); });
    ASSERT_TRUE(error);
    EXPECT_EQ(error->file(), escapedText(path));
    EXPECT_TRUE(contains(error->file(), "in\\x1b]0;PWNED\\x07put.csv"));
    EXPECT_TRUE(isCleanMessage(error, path, true));
}

// --- the malformed corpora ---------------------------------------------------------------------------------------

struct Corpus {
    const char* workload;
    std::function<void(const std::string&)> load;
};

const Corpus kCorpora[] = {
    {"linreg", [](const std::string& f) { loadSeries2D(f); }},
    // A file named *feature_rows* stores features as rows, as its name says; read the default way it has no error.
    {"lrv",
        [](const std::string& f) {
            ReadOptions options;
            if (f.find("feature_rows") != std::string::npos)
                options.params["orientation"] = "features-as-rows";
            loadExpressionTable(f, options);
        }},
    {"sdh", [](const std::string& f) { loadPointCloud(f); }},
    {"spmv", [](const std::string& f) { loadSparseMatrix(f); }},
};

class CorpusMessageTest : public ::testing::TestWithParam<Corpus> { };

TEST_P(CorpusMessageTest, EveryBadFileGivesACleanShortUncutMessage)
{
    std::size_t files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(corpusPath("bad", GetParam().workload))) {
        const std::string path = entry.path().string();
        SCOPED_TRACE(path);
        ++files;
        const auto error = catchDatasetError([&] { GetParam().load(path); });
        EXPECT_TRUE(isCleanMessage(error, path, false, "\033"));
        // The bound on place and problem is a last line of defence; the corpus's own messages fit without it.
        if (error) {
            EXPECT_FALSE(error->problem().ends_with(kEllipsis)) << error->what();
        }
    }
    EXPECT_GT(files, 10u);
}

INSTANTIATE_TEST_SUITE_P(EveryCorpus, CorpusMessageTest, ::testing::ValuesIn(kCorpora),
    [](const ::testing::TestParamInfo<Corpus>& param) { return std::string(param.param.workload); });

} // namespace
} // namespace ks::data::test
