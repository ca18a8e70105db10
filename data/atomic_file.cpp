#include "data/atomic_file.h"

#include "data/dataset_error.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <streambuf>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace ks::data {

namespace {
namespace fs = std::filesystem;

/// Enough links to leave a loop, as the kernel's own limit (MAXSYMLINKS).
constexpr int kMaxLinks = 40;
/// Leaves room for the dot and the suffix within a file name's 255 bytes.
constexpr std::size_t kMaxStemInTemporaryName = 200;

std::string systemReason(int error)
{
    return std::strerror(error);
}

const char* kindOf(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a folder";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISFIFO(mode))
        return "a FIFO (named pipe)";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISLNK(mode))
        return "a symbolic link";
    return "not a regular file";
}

fs::path folderOf(const fs::path& path)
{
    return path.has_parent_path() ? path.parent_path() : fs::path(".");
}

/// `path` with its own symbolic links followed (not those of its folders, which rename goes through anyway); a
/// dangling link leads to the file it names, which writing creates.
fs::path followLinks(const fs::path& path)
{
    fs::path at = path;
    for (int i = 0; i < kMaxLinks; ++i) {
        struct stat info { };
        if (::lstat(at.c_str(), &info) != 0 || !S_ISLNK(info.st_mode))
            return at;
        std::error_code ec;
        const fs::path next = fs::read_symlink(at, ec);
        if (ec)
            return at;
        at = next.is_absolute() ? next : folderOf(at) / next;
    }
    return at;
}

/// Why a file cannot be created in `folder`, or empty.
std::string folderProblem(const fs::path& folder)
{
    struct stat info { };
    if (::stat(folder.c_str(), &info) != 0)
        return errno == ENOENT ? "no such folder " + folder.string()
                               : "its folder " + folder.string() + " cannot be reached (" + systemReason(errno) + ")";
    if (!S_ISDIR(info.st_mode))
        return folder.string() + " is not a folder";
    if (::access(folder.c_str(), W_OK | X_OK) != 0)
        return "cannot create files in " + folder.string() + " (" + systemReason(errno) + ")";
    return {};
}

/// The permission bits a file created now gets from the umask, read without changing it where Linux says it.
mode_t newFileMode()
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("Umask:", 0) == 0)
            return static_cast<mode_t>(0666 & ~std::strtoul(line.c_str() + 6, nullptr, 8));
    const mode_t mask = ::umask(022);
    ::umask(mask);
    return 0666 & ~mask;
}
} // namespace

std::string outputTarget(const std::string& path, bool followLinksToo)
{
    return followLinksToo ? followLinks(path).string() : path;
}

std::string outputProblem(const std::string& path, bool followLinksToo)
{
    if (path.empty())
        return "an empty file name";
    struct stat info { };
    if (::lstat(path.c_str(), &info) != 0) {
        if (errno != ENOENT)
            return "cannot be reached (" + systemReason(errno) + ")";
        return folderProblem(folderOf(path));
    }
    if (S_ISLNK(info.st_mode)) {
        std::error_code ec;
        const fs::path to = fs::read_symlink(path, ec);
        if (!followLinksToo)
            return "a symbolic link" + (ec ? std::string() : " to " + to.string());
        const fs::path target = followLinks(path);
        if (::lstat(target.c_str(), &info) != 0) {
            if (errno != ENOENT)
                return "a symbolic link to " + target.string() + ", which cannot be reached (" + systemReason(errno)
                    + ")";
            const std::string problem = folderProblem(folderOf(target));
            return problem.empty() ? problem : "a symbolic link to " + target.string() + ": " + problem;
        }
        if (S_ISLNK(info.st_mode))
            return "a symbolic link in a loop of links";
        if (!S_ISREG(info.st_mode))
            return "a symbolic link to " + target.string() + ", " + kindOf(info.st_mode) + ", not a regular file";
        if (::access(target.c_str(), W_OK) != 0)
            return "a symbolic link to " + target.string() + ", which is not writable (" + systemReason(errno) + ")";
        const std::string problem = folderProblem(folderOf(target));
        return problem.empty() ? problem : "a symbolic link to " + target.string() + ": " + problem;
    }
    if (!S_ISREG(info.st_mode))
        return std::string(kindOf(info.st_mode)) + ", not a regular file";
    // Renaming over a write-protected file would replace it anyway; a protection the user set is respected.
    if (::access(path.c_str(), W_OK) != 0)
        return "not writable (" + systemReason(errno) + ")";
    return folderProblem(folderOf(path));
}

/// Writes straight to the temporary file's descriptor, remembering the first failure's errno (which std::ofstream
/// loses): after one, everything is dropped.
class AtomicFile::Buffer final : public std::streambuf {
public:
    explicit Buffer(int fd)
        : m_fd(fd)
        , m_data(kSize)
    {
        setp(m_data.data(), m_data.data() + m_data.size());
    }
    int error() const { return m_error; }
    /// The descriptor is closing: what is written from now on is dropped (its number may be reused).
    void detach()
    {
        setp(m_data.data(), m_data.data() + m_data.size());
        m_fd = -1;
    }

protected:
    int_type overflow(int_type ch) override
    {
        if (!drain())
            return traits_type::eof();
        if (!traits_type::eq_int_type(ch, traits_type::eof())) {
            *pptr() = traits_type::to_char_type(ch);
            pbump(1);
        }
        return traits_type::not_eof(ch);
    }
    int sync() override { return drain() ? 0 : -1; }

private:
    bool drain()
    {
        const char* at = pbase();
        const char* end = pptr();
        if (m_fd < 0 && at < end && m_error == 0)
            m_error = EBADF;
        while (m_error == 0 && at < end) {
            const ssize_t written = ::write(m_fd, at, static_cast<std::size_t>(end - at));
            if (written < 0 && errno == EINTR)
                continue;
            if (written <= 0)
                m_error = written < 0 ? errno : EIO;
            else
                at += written;
        }
        setp(m_data.data(), m_data.data() + m_data.size());
        return m_error == 0;
    }

    static constexpr std::size_t kSize = 64 * 1024;
    int m_fd;
    int m_error = 0;
    std::vector<char> m_data;
};

AtomicFile::AtomicFile(const std::string& path, bool followLinksToo)
    : m_path(path)
{
    if (const std::string problem = outputProblem(path, followLinksToo); !problem.empty())
        throw OutputError(path + ": " + problem);
    m_target = outputTarget(path, followLinksToo);
    const fs::path target(m_target);
    const std::string stem = target.filename().string().substr(0, kMaxStemInTemporaryName);
    std::string pattern = (folderOf(target) / ("." + stem + ".kernelscope-XXXXXX")).string();
    m_fd = ::mkostemp(pattern.data(), O_CLOEXEC);
    if (m_fd < 0)
        throw OutputError(path + ": cannot create a temporary file beside it (" + systemReason(errno) + ")");
    m_temporary = pattern;
    struct stat old { };
    if (::stat(m_target.c_str(), &old) == 0) {
        if (::geteuid() == 0 && (old.st_uid != ::geteuid() || old.st_gid != ::getegid()))
            // Best effort: root replacing a user's file gives it back to that user; failing leaves root's.
            (void)::fchown(m_fd, old.st_uid, old.st_gid);
        (void)::fchmod(m_fd, old.st_mode & 07777);
    } else {
        (void)::fchmod(m_fd, newFileMode());
    }
    m_buffer = std::make_unique<Buffer>(m_fd);
    m_stream = std::make_unique<std::ostream>(m_buffer.get());
}

AtomicFile::~AtomicFile()
{
    discard();
}

std::ostream& AtomicFile::stream()
{
    return *m_stream;
}

bool AtomicFile::flush()
{
    if (m_stream)
        m_stream->flush();
    return !failed();
}

bool AtomicFile::failed() const
{
    return m_buffer && m_buffer->error() != 0;
}

std::string AtomicFile::error() const
{
    return failed() ? systemReason(m_buffer->error()) : std::string();
}

void AtomicFile::commit()
{
    if (m_fd < 0)
        throw OutputError(m_path + ": already closed");
    auto fail = [this](const std::string& what) {
        const std::string left = m_target + " was left as it was";
        discard();
        throw OutputError(m_path + ": " + what + "; " + left);
    };
    if (!flush())
        fail("write failed (" + error() + ")");
    if (::fsync(m_fd) != 0 && errno != EINVAL)
        fail("write failed (" + systemReason(errno) + ")");
    const int fd = m_fd;
    m_fd = -1;
    m_buffer->detach();
    if (::close(fd) != 0 && errno != EINTR)
        fail("write failed (" + systemReason(errno) + ")");
    // Checked again at the last moment: a device or folder put there during the run is never replaced.
    struct stat info { };
    if (::lstat(m_target.c_str(), &info) == 0 && !S_ISREG(info.st_mode))
        fail(std::string("became ") + kindOf(info.st_mode) + " during the run");
    if (::rename(m_temporary.c_str(), m_target.c_str()) != 0)
        fail("cannot be put in place (" + systemReason(errno) + ")");
    m_temporary.clear();
    // The rename itself is made durable too; a folder that cannot be synced still holds the file.
    const int folder = ::open(folderOf(fs::path(m_target)).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (folder >= 0) {
        (void)::fsync(folder);
        ::close(folder);
    }
}

void AtomicFile::discard()
{
    if (m_fd >= 0) {
        m_buffer->detach();
        ::close(m_fd);
        m_fd = -1;
    }
    if (!m_temporary.empty()) {
        ::unlink(m_temporary.c_str());
        m_temporary.clear();
    }
}

void writeFileAtomically(const std::string& path, const std::function<void(AtomicFile&)>& write)
{
    // OutputError's message starts with the path, which DatasetError names apart.
    const auto problem = [&path](const OutputError& e) {
        const std::string text = e.what();
        return text.starts_with(path + ": ") ? text.substr(path.size() + 2) : text;
    };
    std::unique_ptr<AtomicFile> file;
    try {
        file = std::make_unique<AtomicFile>(path);
    } catch (const OutputError& e) {
        throw DatasetError(path, "", "cannot open for writing: " + problem(e));
    }
    write(*file);
    try {
        file->commit();
    } catch (const OutputError& e) {
        throw DatasetError(path, "", problem(e));
    }
}

} // namespace ks::data
