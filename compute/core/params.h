#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace ks {

enum class AxisKind { Integer, PowerOfTwo, Float, Enum, Text };

/// A named parameter a workload or generator accepts: the CLI parses `--param` against it and the GUI builds its
/// controls from it (NVBench-style axes).
struct Axis {
    std::string name;
    std::string description;
    AxisKind kind = AxisKind::Integer;
    std::string defaultValue;
    double min = 0.0; ///< numeric axes: inclusive range
    double max = 0.0;
    std::vector<std::string>
        choices; ///< enum axes: the choices; text axes: the endings a value may have (any when empty)
    bool readerOption = false; ///< read when a file is loaded (how to parse it), not by the variants
    std::vector<std::string> readers; ///< the variants that read it; every variant when empty

    static Axis integer(
        std::string name, std::string description, std::int64_t def, std::int64_t min, std::int64_t max);
    static Axis powerOfTwo(
        std::string name, std::string description, std::int64_t def, std::int64_t min, std::int64_t max);
    static Axis real(std::string name, std::string description, double def, double min, double max);
    static Axis choice(std::string name, std::string description, std::string def, std::vector<std::string> choices);
    /// Free text, such as a file path: any non-empty text without ';' (the params column's separator) or control
    /// characters, ending in one of `suffixes` (compared case-insensitively) when any are given. An empty default makes
    /// the axis optional: the empty text then means "not set". Text is never split at commas or swept.
    static Axis text(
        std::string name, std::string description, std::string def = {}, std::vector<std::string> suffixes = {});
    /// The same axis marked as read when a file is loaded.
    Axis asReaderOption() const
    {
        Axis a = *this;
        a.readerOption = true;
        return a;
    }
    /// The same axis marked as read by these variants only (the others run the same whatever its value).
    Axis readOnlyBy(std::vector<std::string> variants) const
    {
        Axis a = *this;
        a.readers = std::move(variants);
        return a;
    }
    /// Whether `variant` reads this axis.
    bool readBy(const std::string& variant) const
    {
        return readers.empty() || std::find(readers.begin(), readers.end(), variant) != readers.end();
    }
};

/// The non-empty items of a list separated by `separator` ("a,,b" gives a and b).
std::vector<std::string> splitList(const std::string& text, char separator = ',');

/// One parameter's value, typed by its axis: integers (integer and power-of-two axes), reals, or text (enum choices,
/// text axes).
using ParamValue = std::variant<std::int64_t, double, std::string>;

/// Parameter values validated against a list of axes; every axis has a value (given or default). Values are kept
/// typed; text is made only at the edges (the CSV/JSON `params` column, dataset names).
class ParamSet {
public:
    ParamSet() = default;

    /// Validates `given` against `axes`: unknown names, non-numbers, out-of-range values and unknown choices throw
    /// ParameterError with a message naming the parameter and what is allowed.
    static ParamSet parse(const std::vector<Axis>& axes, const std::map<std::string, std::string>& given);
    /// Reads the `params` column of a results file ("key=value;key=value") without the axes that wrote it: a value
    /// that reads as an integer is an integer, one that reads as a number is a real, anything else is text. Throws
    /// ParameterError when an item is not key=value.
    static ParamSet fromString(const std::string& text);
    /// Parses "key=value,key=value" (the CLI's --generate form) into a map; throws ParameterError when malformed.
    static std::map<std::string, std::string> splitAssignments(const std::string& text, char separator = ',');

    bool has(const std::string& name) const;
    bool empty() const { return m_entries.empty(); }
    /// The value of an integer axis (a real one only when it holds a whole number). Throws ParameterError when the
    /// parameter is missing or not a whole number.
    std::int64_t integer(const std::string& name) const;
    /// The value of a numeric axis. Throws ParameterError when missing or not a number.
    double real(const std::string& name) const;
    /// The value as the CSV writes it (an enum's choice, a number in its shortest exact form).
    const std::string& text(const std::string& name) const;
    const ParamValue& value(const std::string& name) const;
    /// Whether the axis this value came from is read when a file is loaded (unknown for sets read from files).
    bool isReaderOption(const std::string& name) const;

    /// Returns a copy with one value replaced (validated against the axis).
    ParamSet with(const std::string& name, const std::string& value) const;
    /// The values of the parameters that are not reader options, by name, as text: what a variant computes with.
    std::map<std::string, std::string> runValues() const;
    /// Every value by name, as text (the form `parse` takes back).
    std::map<std::string, std::string> textValues() const;

    /// "key=value;key=value" in axis order: stable, the `params` column of result rows.
    std::string toString() const;

    friend bool operator==(const ParamSet& a, const ParamSet& b) { return a.toString() == b.toString(); }

private:
    struct Entry {
        std::string name;
        ParamValue value;
        std::string text; ///< the canonical text form of value
        bool readerOption = false;
    };
    const Entry& entry(const std::string& name) const;

    std::vector<Axis> m_axes;
    std::vector<Entry> m_entries;
};

} // namespace ks
