#include "gui/autosave.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <algorithm>
#include <map>
#include <stdexcept>
#include <utility>
#include <vector>

namespace ks::gui {

namespace {
const QString kSessionPrefix = QStringLiteral("session-");
} // namespace

QString Autosave::defaultDirectory()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/autosave");
}

Autosave::Autosave(QString directory)
    : m_directory(std::move(directory))
{
}

Autosave::~Autosave() = default;

void Autosave::begin(const QString& stamp, const Workspace& workspace)
{
    end();
    m_csvPath.clear();
    m_workspacePath.clear();
    if (!QDir().mkpath(m_directory))
        throw std::runtime_error(m_directory.toStdString() + ": cannot create the autosave directory");
    const QString stem = QDir(m_directory).filePath(kSessionPrefix + stamp);
    m_workspace = std::make_unique<WorkspaceAppender>(stem + QStringLiteral(".ksw"), workspace);
    try {
        m_csv = std::make_unique<CsvAppender>((stem + QStringLiteral(".csv")).toStdString());
    } catch (...) {
        m_workspace.reset();
        throw;
    }
    m_csvPath = stem + QStringLiteral(".csv");
    m_workspacePath = stem + QStringLiteral(".ksw");
    removeOldSessions();
}

void Autosave::append(const Summary& summary)
{
    if (!isOn())
        return;
    try {
        m_csv->append(summary);
        m_workspace->append(summary);
    } catch (...) {
        // Reported once: the session's files keep every whole row written so far, and nothing more is tried.
        end();
        throw;
    }
}

void Autosave::appendDecisions(const std::vector<Decision>& decisions)
{
    if (!isOn())
        return;
    m_workspace->appendDecisions(decisions);
}

void Autosave::end()
{
    m_csv.reset();
    m_workspace.reset();
}

void Autosave::removeOldSessions() const
{
    // A session is every file sharing a stem (session-<stamp>.csv and .ksw); its age is its newest file's.
    std::map<QString, std::pair<QDateTime, QStringList>> sessions;
    const QDir dir(m_directory);
    for (const QFileInfo& file : dir.entryInfoList({kSessionPrefix + QLatin1Char('*')}, QDir::Files)) {
        auto& [newest, paths] = sessions[file.completeBaseName()];
        newest = std::max(newest, file.lastModified());
        paths << file.absoluteFilePath();
    }
    if (sessions.size() <= static_cast<std::size_t>(kSessionsKept))
        return;
    std::vector<std::pair<QDateTime, QString>> byAge;
    for (const auto& [stem, session] : sessions)
        byAge.emplace_back(session.first, stem);
    // Newest first; equal times fall back to the stem, whose stamp sorts by time too.
    std::sort(byAge.begin(), byAge.end(), [](const auto& a, const auto& b) { return a > b; });
    const QString current = QFileInfo(m_workspacePath).completeBaseName();
    for (std::size_t i = kSessionsKept; i < byAge.size(); ++i)
        if (byAge[i].second != current)
            for (const QString& path : sessions[byAge[i].second].second)
                QFile::remove(path);
}

} // namespace ks::gui
