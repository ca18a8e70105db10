#pragma once

#include "compute/core/result.h"
#include "compute/core/summary.h"

#include <fstream>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace ks {

/// The CSV schema: one row per Summary, columns in this order (documented in the README; append-only).
const std::vector<std::string>& csvColumns();
std::vector<std::string> csvRow(const Summary& summary);

/// Every writer below writes through an AtomicFile (atomic_file.h): a temporary file beside `path` renamed over it
/// when complete, so a failed or interrupted write leaves `path` as it was; `path` must be absent or a regular file (a
/// symbolic link is followed to one), else the writer throws before writing anything.

/// Writes a header and one row per summary. Throws std::runtime_error naming the file when it cannot be written.
void writeCsv(const std::string& path, const std::vector<Summary>& summaries);
/// Reads what writeCsv (or a CsvAppender) wrote, finding each field by its column name: columns appended later are
/// ignored, and an older file without the last columns reads with those fields empty. Samples are not in a CSV, so
/// samplesMs stays empty. A last row cut short by a writer killed mid-write (see CsvAppender) is left out. Throws
/// data::DatasetError naming the file, the line and the problem.
std::vector<Summary> readCsv(const std::string& path);

/// Appends rows to a CSV file as they arrive, writing the header once; each row goes to the file in one write, so a
/// crash loses nothing already measured, and a failed write or a signal the process handles never leaves half a row.
/// Only a process killed outright during that very write can: Linux stops a write for a fatal signal at a page
/// boundary, and readCsv leaves such a cut last row out (the workspace autosave uses it; the CLI's --csv
/// appends to an AtomicFile instead, so that an older file at its path is replaced only at the end). The file is
/// never renamed: a crash leaves the rows under its own name, where the user looks for them.
class CsvAppender {
public:
    /// Opens (creating) `path` for appending. Throws std::runtime_error naming the file for one that cannot be
    /// opened or is not a regular file (a device, FIFO, folder or symbolic link is never written through).
    explicit CsvAppender(const std::string& path);
    ~CsvAppender();
    CsvAppender(const CsvAppender&) = delete;
    CsvAppender& operator=(const CsvAppender&) = delete;
    /// Throws std::runtime_error naming the file and the system's reason when the row cannot be written whole; what
    /// was written of it is cut off again, so the file ends at the last whole row.
    void append(const Summary& summary);
    const std::string& path() const { return m_path; }

private:
    void writeWhole(const std::string& text);

    std::string m_path;
    int m_fd = -1;
};

/// JSON: the CSV's fields under the same names and in the same order, plus delta details, every sample and small
/// results.
nlohmann::ordered_json toJson(const Summary& summary);
Summary summaryFromJson(const nlohmann::ordered_json& json);
/// {"kernelscope_version": ..., "summaries": [...]}
void writeJson(const std::string& path, const std::vector<Summary>& summaries);
/// The document writeJson writes, for files that add keys after "summaries" (decisions).
nlohmann::ordered_json resultsDocument(const std::vector<Summary>& summaries);
/// Writes a JSON document, one space of indent; throws std::runtime_error naming the file when it cannot be written.
void writeJsonDocument(const std::string& path, const nlohmann::ordered_json& document);
/// Parses a JSON file; throws data::DatasetError naming the file (and the byte where the JSON goes wrong).
nlohmann::ordered_json readJsonDocument(const std::string& path);
/// Reads what writeJson wrote; throws data::DatasetError naming the file and the problem.
std::vector<Summary> readJson(const std::string& path);

/// Saves a computed result: ".csv" (labelled values as `quantity,value` rows, otherwise one value per row under a
/// header naming the quantity; each value the shortest text that reads back as exactly that double) or ".h5"/".hdf5"
/// (a dataset named `result`). Throws std::runtime_error for other
/// extensions or write failures. A result with named arrays (a trained network's weights) saves those instead: one
/// dataset per array in HDF5, `array,index,value` rows in CSV.
void writeResultFile(const std::string& path, const Result& result);
/// Why writeResultFile cannot write `path`'s format (its extension), or empty when it can: checked before a run.
std::string resultFileFormatProblem(const std::string& path);

} // namespace ks
