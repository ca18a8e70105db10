#pragma once

#include <functional>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>

namespace ks::data {

/// An output file that could not be checked, created, written or put in place; the message names the file.
class OutputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Why an output cannot be written at `path`, or empty when it can: it must be absent or a regular file, in an
/// existing folder this process may create files in. A symbolic link is refused ("a symbolic link to …") unless
/// `followLinks`, which judges the file the link leads to instead; a device, FIFO, socket or folder is always
/// refused. Touches nothing: nothing is opened, created or removed.
std::string outputProblem(const std::string& path, bool followLinks);

/// The file an output at `path` replaces: `path` itself, or with `followLinks` what its symbolic links lead to.
std::string outputTarget(const std::string& path, bool followLinks);

/// An output written to a temporary file beside its target (`.NAME.kernelscope-XXXXXX` in the same folder) and renamed
/// over the target by commit(): until then the target keeps its old content, and no reader ever sees a half-written
/// file under the target's name. A temporary file neither committed nor kept is removed when this is destroyed; one
/// left by a killed process is the run's partial output. A failed write (a full disk) is remembered with the
/// system's reason; later writes are dropped and commit() refuses, so a half-written file never replaces the target.
class AtomicFile {
public:
    /// Checks `path` (outputProblem) and creates the temporary file; throws OutputError naming `path` and why. A
    /// replaced file's permissions are kept; a new one gets those the umask allows, as a plain open would.
    explicit AtomicFile(const std::string& path, bool followLinks = true);
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    /// Text written here is buffered until flush() or commit().
    std::ostream& stream();
    /// Writes what is buffered to the temporary file now; false once a write has failed.
    bool flush();
    bool failed() const;
    /// The system's reason for the failed write ("No space left on device"); empty while none failed.
    std::string error() const;

    /// As the caller named it.
    const std::string& path() const { return m_path; }
    /// The file renamed over: path() or, following links, the file they lead to.
    const std::string& target() const { return m_target; }
    const std::string& temporaryPath() const { return m_temporary; }

    /// Flushes, syncs and closes the temporary file and renames it over the target. Throws OutputError naming path()
    /// and the reason after a failed write or rename, having removed the temporary file (the target is as it was).
    void commit();
    /// Removes the temporary file; the target stays as it was.
    void discard();

private:
    class Buffer;
    std::string m_path;
    std::string m_target;
    std::string m_temporary;
    int m_fd = -1;
    std::unique_ptr<Buffer> m_buffer;
    std::unique_ptr<std::ostream> m_stream;
};

/// Writes `path` as data/'s writers do: `write` fills an AtomicFile's temporary file (through stream(), or by name
/// through temporaryPath() for a library that opens files itself, as HDF5 does) and it is committed when `write`
/// returns. A target that cannot be written (outputProblem, links followed), a failed write or rename is a DatasetError
/// naming `path`; an exception from `write` leaves the target as it was.
void writeFileAtomically(const std::string& path, const std::function<void(AtomicFile&)>& write);

} // namespace ks::data
