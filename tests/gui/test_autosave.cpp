// The autosave: a session's CSV and appended workspace, written as Summaries arrive, and the rotation that keeps
// the newest sessions.
#include "gui/autosave.h"

#include "compute/core/results_io.h"
#include "data/delimited_text.h"
#include "data/text_file.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <csignal>
#include <gtest/gtest.h>
#include <sys/resource.h>

namespace ks::gui {
namespace {

Summary summary(int index)
{
    Summary s;
    s.runId = "20260101T000000-1-" + std::to_string(index);
    s.workload = "linreg";
    s.variant = "reference";
    s.backend = "cpu";
    s.size = 100u + static_cast<std::uint64_t>(index);
    s.outcome = Outcome::Passed;
    s.repetitions = 2;
    s.samplesMs = {1.0, 1.0 + index};
    return s;
}

Workspace header()
{
    Workspace w;
    w.workload = QStringLiteral("linreg");
    w.generator = {{"n", "100"}};
    w.variants = {QStringLiteral("reference")};
    w.settings.sizes = QStringLiteral("100");
    return w;
}

int csvRows(const QString& path)
{
    int rows = 0;
    data::parseDelimitedText(data::readTextFile(path.toStdString()), "autosave", {}, [&](data::TextRow&) {
        ++rows;
        return true;
    });
    return rows;
}

/// An old session's two files, dated `age` seconds ago.
void makeSession(const QDir& dir, const QString& stamp, int age)
{
    for (const char* suffix : {".csv", ".ksw"}) {
        QFile f(dir.filePath(QStringLiteral("session-") + stamp + QLatin1String(suffix)));
        ASSERT_TRUE(f.open(QIODevice::WriteOnly));
        f.write("x\n");
        ASSERT_TRUE(f.flush()); // so closing writes nothing more, which would date the file now
        ASSERT_TRUE(f.setFileTime(QDateTime::currentDateTime().addSecs(-age), QFileDevice::FileModificationTime));
    }
}

TEST(Autosave, WritesTheSessionsCsvAndWorkspaceAsSummariesArrive)
{
    QTemporaryDir dir;
    Autosave autosave(dir.filePath(QStringLiteral("autosave")));
    EXPECT_FALSE(autosave.isOn());
    EXPECT_TRUE(autosave.csvPath().isEmpty());
    autosave.append(summary(0)); // no session: nothing, no error

    Workspace w = header();
    w.summaries = {summary(0)}; // the table before this sweep
    autosave.begin(QStringLiteral("20260101T000000-1"), w);
    ASSERT_TRUE(autosave.isOn());
    EXPECT_TRUE(autosave.csvPath().endsWith(QStringLiteral("/session-20260101T000000-1.csv")));
    EXPECT_TRUE(autosave.workspacePath().endsWith(QStringLiteral("/session-20260101T000000-1.ksw")));
    EXPECT_EQ(csvRows(autosave.csvPath()), 1) << "the header";
    EXPECT_EQ(loadWorkspace(autosave.workspacePath()).summaries.size(), 1u);

    autosave.append(summary(1));
    autosave.append(summary(2));
    // Flushed at once: readable while the session is still on.
    EXPECT_EQ(csvRows(autosave.csvPath()), 3) << "this sweep's rows only";
    const Workspace back = loadWorkspace(autosave.workspacePath());
    ASSERT_EQ(back.summaries.size(), 3u);
    EXPECT_EQ(back.summaries[2].runId, summary(2).runId);
    EXPECT_EQ(back.summaries[2].samplesMs, summary(2).samplesMs);
    EXPECT_EQ(back.settings.sizes, QStringLiteral("100"));

    autosave.end();
    EXPECT_FALSE(autosave.isOn());
    autosave.append(summary(3));
    EXPECT_EQ(loadWorkspace(autosave.workspacePath()).summaries.size(), 3u) << "nothing after the end";
    EXPECT_FALSE(autosave.csvPath().isEmpty()) << "the last session's files stay named";
}

TEST(Autosave, TheSessionsWorkspaceKeepsADecisionRunsVerdicts)
{
    QTemporaryDir dir;
    Autosave autosave(dir.filePath(QStringLiteral("autosave")));
    Decision d;
    d.workload = "linreg";
    d.size = 100;
    d.variantA = "reference";
    d.variantB = "cpu_openmp";
    d.ratio = 1.2;
    d.low = 1.1;
    d.high = 1.3;
    d.confidence = 0.99;
    d.verdict = DecisionVerdict::Slower;
    d.rounds = 12;
    d.stopReason = "decided";
    autosave.appendDecisions({d}); // no session: nothing, no error

    autosave.begin(QStringLiteral("20260101T000000-1"), header());
    autosave.append(summary(0));
    autosave.append(summary(1));
    autosave.appendDecisions({d});
    const Workspace back = loadWorkspace(autosave.workspacePath());
    EXPECT_EQ(back.summaries.size(), 2u);
    ASSERT_EQ(back.decisions.size(), 1u);
    EXPECT_EQ(back.decisions.front().text(), d.text());
    EXPECT_EQ(csvRows(autosave.csvPath()), 3) << "the CSV holds Summaries only";
    autosave.end();
}

TEST(Autosave, KeepsTheNewestSessions)
{
    QTemporaryDir dir;
    const QDir autosaveDir(dir.filePath(QStringLiteral("autosave")));
    ASSERT_TRUE(QDir().mkpath(autosaveDir.path()));
    const int old = Autosave::kSessionsKept + 5;
    for (int i = 0; i < old; ++i)
        makeSession(autosaveDir, QStringLiteral("2025010%1T0000-%2").arg(i % 10).arg(i), 1000 + 10 * i);
    QFile unrelated(autosaveDir.filePath(QStringLiteral("notes.txt")));
    ASSERT_TRUE(unrelated.open(QIODevice::WriteOnly));
    unrelated.close();

    Autosave autosave(autosaveDir.path());
    autosave.begin(QStringLiteral("20260101T000000-1"), header());
    const QStringList left = autosaveDir.entryList({QStringLiteral("session-*")}, QDir::Files, QDir::Name);
    EXPECT_EQ(left.size(), 2 * Autosave::kSessionsKept);
    EXPECT_TRUE(left.contains(QStringLiteral("session-20260101T000000-1.ksw")));
    EXPECT_TRUE(left.contains(QStringLiteral("session-20260101T000000-1.csv")));
    // The youngest old sessions (i = 0 is the youngest) stay, the oldest go, both files of each.
    EXPECT_TRUE(left.contains(QStringLiteral("session-20250100T0000-0.csv")));
    EXPECT_TRUE(left.contains(QStringLiteral("session-20250100T0000-0.ksw")));
    const QString oldest = QStringLiteral("session-2025010%1T0000-%2").arg((old - 1) % 10).arg(old - 1);
    EXPECT_FALSE(left.contains(oldest + QStringLiteral(".csv")));
    EXPECT_FALSE(left.contains(oldest + QStringLiteral(".ksw")));
    EXPECT_TRUE(QFile::exists(autosaveDir.filePath(QStringLiteral("notes.txt")))) << "only sessions are rotated";
}

TEST(Autosave, AFailedWriteIsReportedOnceAndLeavesWholeRows)
{
    QTemporaryDir dir;
    Autosave autosave(dir.filePath(QStringLiteral("autosave")));
    autosave.begin(QStringLiteral("20260101T000000-1"), header());
    autosave.append(summary(1));
    // A full disk, as RLIMIT_FSIZE gives it: the next row cannot be written whole.
    const auto size = static_cast<rlim_t>(QFileInfo(autosave.csvPath()).size());
    rlimit saved {};
    ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
    const auto previous = std::signal(SIGXFSZ, SIG_IGN);
    rlimit tight = saved;
    tight.rlim_cur = size + 10;
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &tight), 0);
    EXPECT_THROW(autosave.append(summary(2)), std::runtime_error);
    setrlimit(RLIMIT_FSIZE, &saved);
    std::signal(SIGXFSZ, previous);
    EXPECT_FALSE(autosave.isOn()) << "the session ends at the failure";
    EXPECT_NO_THROW(autosave.append(summary(3))) << "reported once";
    EXPECT_EQ(QFileInfo(autosave.csvPath()).size(), static_cast<qint64>(size)) << "the half row is cut off";
    EXPECT_EQ(csvRows(autosave.csvPath()), 2);
}

TEST(Autosave, ADirectoryThatCannotBeMadeTurnsItOff)
{
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("a file"));
    QFile f(file);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.close();
    Autosave autosave(file + QStringLiteral("/autosave"));
    EXPECT_THROW(autosave.begin(QStringLiteral("20260101T000000-1"), header()), std::runtime_error);
    EXPECT_FALSE(autosave.isOn());
    EXPECT_TRUE(autosave.csvPath().isEmpty());
    EXPECT_TRUE(autosave.workspacePath().isEmpty());
    autosave.append(summary(0));
}

} // namespace
} // namespace ks::gui
