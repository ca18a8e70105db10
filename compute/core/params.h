#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ks {

enum class AxisKind { Integer, PowerOfTwo, Float, Enum };

/// A named parameter a workload or generator accepts: the CLI parses `--param` against it and the GUI builds its
/// controls from it (NVBench-style axes).
struct Axis {
    std::string name;
    std::string description;
    AxisKind kind = AxisKind::Integer;
    std::string defaultValue;
    double min = 0.0; ///< numeric axes: inclusive range
    double max = 0.0;
    std::vector<std::string> choices; ///< enum axes
    bool readerOption = false; ///< read when a file is loaded (how to parse it), not by the variants

    static Axis integer(
        std::string name, std::string description, std::int64_t def, std::int64_t min, std::int64_t max);
    static Axis powerOfTwo(
        std::string name, std::string description, std::int64_t def, std::int64_t min, std::int64_t max);
    static Axis real(std::string name, std::string description, double def, double min, double max);
    static Axis choice(std::string name, std::string description, std::string def, std::vector<std::string> choices);
    /// The same axis marked as read when a file is loaded.
    Axis asReaderOption() const
    {
        Axis a = *this;
        a.readerOption = true;
        return a;
    }
};

/// Parameter values validated against a list of axes; every axis has a value (given or default).
class ParamSet {
public:
    ParamSet() = default;

    /// Validates `given` against `axes`: unknown names, non-numbers, out-of-range values and unknown choices throw
    /// ParameterError with a message naming the parameter and what is allowed.
    static ParamSet parse(const std::vector<Axis>& axes, const std::map<std::string, std::string>& given);
    /// Parses "key=value,key=value" (the CLI's --generate form) into a map; throws ParameterError when malformed.
    static std::map<std::string, std::string> splitAssignments(const std::string& text, char separator = ',');

    bool has(const std::string& name) const;
    std::int64_t integer(const std::string& name) const;
    double real(const std::string& name) const;
    const std::string& text(const std::string& name) const;

    /// Returns a copy with one value replaced (validated against the axis).
    ParamSet with(const std::string& name, const std::string& value) const;

    /// Values in axis order.
    const std::vector<std::pair<std::string, std::string>>& values() const { return m_values; }
    /// "key=value;key=value" in axis order: stable, used in result rows.
    std::string toString() const;

private:
    std::vector<Axis> m_axes;
    std::vector<std::pair<std::string, std::string>> m_values;
};

} // namespace ks
