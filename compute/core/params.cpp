#include "compute/core/params.h"

#include "compute/core/errors.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace ks {

namespace {
std::string formatNumber(double v)
{
    char buffer[64];
    if (v == std::floor(v) && std::fabs(v) < 1e15) {
        std::snprintf(buffer, sizeof buffer, "%.0f", v);
        return buffer;
    }
    std::snprintf(buffer, sizeof buffer, "%.17g", v);
    // Prefer the shortest form that round-trips.
    for (int precision = 1; precision <= 17; ++precision) {
        char shorter[64];
        std::snprintf(shorter, sizeof shorter, "%.*g", precision, v);
        if (std::strtod(shorter, nullptr) == v)
            return shorter;
    }
    return buffer;
}

bool parseInteger(const std::string& text, std::int64_t& out)
{
    const char* begin = text.data();
    const char* end = text.data() + text.size();
    if (begin != end && *begin == '+')
        ++begin;
    // Accept 1e6-style and 2^20-style sizes as well as plain integers.
    if (auto caret = text.find('^'); caret != std::string::npos) {
        std::int64_t base = 0, exponent = 0;
        if (!parseInteger(text.substr(0, caret), base) || !parseInteger(text.substr(caret + 1), exponent)
            || exponent < 0 || exponent > 62)
            return false;
        double value = std::pow(static_cast<double>(base), static_cast<double>(exponent));
        if (value > 9.2e18)
            return false;
        out = static_cast<std::int64_t>(value);
        return true;
    }
    auto [ptr, ec] = std::from_chars(begin, end, out);
    if (ec == std::errc() && ptr == end)
        return true;
    double real = 0.0;
    auto [rptr, rec] = std::from_chars(begin, end, real);
    if (rec != std::errc() || rptr != end || real != std::floor(real) || std::fabs(real) > 9.2e18)
        return false;
    out = static_cast<std::int64_t>(real);
    return true;
}

bool parseReal(const std::string& text, double& out)
{
    const char* begin = text.data();
    const char* end = text.data() + text.size();
    if (begin != end && *begin == '+')
        ++begin;
    auto [ptr, ec] = std::from_chars(begin, end, out);
    return ec == std::errc() && ptr == end && std::isfinite(out);
}

/// A value checked against its axis, in its typed form and its canonical text.
std::pair<ParamValue, std::string> normalise(const Axis& axis, const std::string& raw)
{
    switch (axis.kind) {
    case AxisKind::Integer:
    case AxisKind::PowerOfTwo: {
        std::int64_t v = 0;
        if (!parseInteger(raw, v))
            throw ParameterError(axis.name + "=" + raw + " is not an integer");
        if (static_cast<double>(v) < axis.min || static_cast<double>(v) > axis.max)
            throw ParameterError(
                axis.name + "=" + raw + " is outside [" + formatNumber(axis.min) + ", " + formatNumber(axis.max) + "]");
        if (axis.kind == AxisKind::PowerOfTwo && (v <= 0 || (v & (v - 1)) != 0))
            throw ParameterError(axis.name + "=" + raw + " is not a power of two");
        return {v, std::to_string(v)};
    }
    case AxisKind::Float: {
        double v = 0.0;
        if (!parseReal(raw, v))
            throw ParameterError(axis.name + "=" + raw + " is not a finite number");
        if (v < axis.min || v > axis.max)
            throw ParameterError(
                axis.name + "=" + raw + " is outside [" + formatNumber(axis.min) + ", " + formatNumber(axis.max) + "]");
        return {v, formatNumber(v)};
    }
    case AxisKind::Enum: {
        if (std::find(axis.choices.begin(), axis.choices.end(), raw) == axis.choices.end()) {
            std::string allowed;
            for (auto& c : axis.choices)
                allowed += (allowed.empty() ? "" : ", ") + c;
            throw ParameterError(axis.name + "=" + raw + " is not one of: " + allowed);
        }
        return {raw, raw};
    }
    case AxisKind::Text: {
        if (raw.empty()) {
            if (axis.defaultValue.empty())
                return {raw, raw};
            throw ParameterError(axis.name + "= is empty; give a value");
        }
        if (std::any_of(
                raw.begin(), raw.end(), [](char c) { return c == ';' || static_cast<unsigned char>(c) < 0x20; }))
            throw ParameterError(axis.name + "=" + raw
                + " holds ';' or a control character; a results file's params column could not hold it");
        if (!axis.choices.empty()) {
            std::string lower = raw;
            std::transform(lower.begin(), lower.end(), lower.begin(),
                [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
            const bool fits = std::any_of(axis.choices.begin(), axis.choices.end(),
                [&](const std::string& suffix) { return lower.ends_with(suffix); });
            if (!fits) {
                std::string allowed;
                for (std::size_t i = 0; i < axis.choices.size(); ++i)
                    allowed += (i == 0 ? "" : i + 1 == axis.choices.size() ? " or " : ", ") + axis.choices[i];
                throw ParameterError(axis.name + "=" + raw + " does not end in " + allowed);
            }
        }
        return {raw, raw};
    }
    }
    return {raw, raw};
}
} // namespace

Axis Axis::integer(std::string name, std::string description, std::int64_t def, std::int64_t min, std::int64_t max)
{
    return Axis {std::move(name), std::move(description), AxisKind::Integer, std::to_string(def),
        static_cast<double>(min), static_cast<double>(max), {}, false, {}};
}

Axis Axis::powerOfTwo(std::string name, std::string description, std::int64_t def, std::int64_t min, std::int64_t max)
{
    return Axis {std::move(name), std::move(description), AxisKind::PowerOfTwo, std::to_string(def),
        static_cast<double>(min), static_cast<double>(max), {}, false, {}};
}

Axis Axis::real(std::string name, std::string description, double def, double min, double max)
{
    return Axis {std::move(name), std::move(description), AxisKind::Float, formatNumber(def), min, max, {}, false, {}};
}

Axis Axis::choice(std::string name, std::string description, std::string def, std::vector<std::string> choices)
{
    return Axis {std::move(name), std::move(description), AxisKind::Enum, std::move(def), 0.0, 0.0, std::move(choices),
        false, {}};
}

Axis Axis::text(std::string name, std::string description, std::string def, std::vector<std::string> suffixes)
{
    for (auto& suffix : suffixes)
        std::transform(suffix.begin(), suffix.end(), suffix.begin(),
            [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return Axis {std::move(name), std::move(description), AxisKind::Text, std::move(def), 0.0, 0.0, std::move(suffixes),
        false, {}};
}

std::vector<std::string> splitList(const std::string& text, char separator)
{
    std::vector<std::string> items;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        std::size_t end = text.find(separator, pos);
        if (end == std::string::npos)
            end = text.size();
        if (end > pos)
            items.push_back(text.substr(pos, end - pos));
        pos = end + 1;
    }
    return items;
}

ParamSet ParamSet::parse(const std::vector<Axis>& axes, const std::map<std::string, std::string>& given)
{
    for (const auto& [name, value] : given) {
        const bool known = std::any_of(axes.begin(), axes.end(), [&](const Axis& a) { return a.name == name; });
        if (!known) {
            std::string names;
            for (const auto& a : axes)
                names += (names.empty() ? "" : ", ") + a.name;
            throw ParameterError("unknown parameter '" + name + "' (known: " + (names.empty() ? "none" : names) + ")");
        }
    }
    ParamSet set;
    set.m_axes = axes;
    for (const auto& axis : axes) {
        auto it = given.find(axis.name);
        auto [value, text] = normalise(axis, it == given.end() ? axis.defaultValue : it->second);
        set.m_entries.push_back({axis.name, std::move(value), std::move(text), axis.readerOption});
    }
    return set;
}

ParamSet ParamSet::fromString(const std::string& text)
{
    ParamSet set;
    for (const auto& item : splitList(text, ';')) {
        const auto eq = item.find('=');
        if (eq == std::string::npos || eq == 0)
            throw ParameterError("'" + item + "' is not of the form key=value");
        Entry e {item.substr(0, eq), {}, item.substr(eq + 1), false};
        std::int64_t i = 0;
        double r = 0.0;
        if (e.text.find_first_not_of("+-0123456789") == std::string::npos && parseInteger(e.text, i))
            e.value = i;
        else if (parseReal(e.text, r))
            e.value = r;
        else
            e.value = e.text;
        set.m_entries.push_back(std::move(e));
    }
    return set;
}

std::map<std::string, std::string> ParamSet::splitAssignments(const std::string& text, char separator)
{
    std::map<std::string, std::string> out;
    for (const auto& item : splitList(text, separator)) {
        const auto eq = item.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
            throw ParameterError("'" + item + "' is not of the form key=value");
        out[item.substr(0, eq)] = item.substr(eq + 1);
    }
    return out;
}

const ParamSet::Entry& ParamSet::entry(const std::string& name) const
{
    for (const auto& e : m_entries)
        if (e.name == name)
            return e;
    throw ParameterError("no parameter named '" + name + "'");
}

bool ParamSet::has(const std::string& name) const
{
    return std::any_of(m_entries.begin(), m_entries.end(), [&](const Entry& e) { return e.name == name; });
}

const std::string& ParamSet::text(const std::string& name) const
{
    return entry(name).text;
}

const ParamValue& ParamSet::value(const std::string& name) const
{
    return entry(name).value;
}

bool ParamSet::isReaderOption(const std::string& name) const
{
    return entry(name).readerOption;
}

std::int64_t ParamSet::integer(const std::string& name) const
{
    const Entry& e = entry(name);
    if (const auto* i = std::get_if<std::int64_t>(&e.value))
        return *i;
    if (const auto* r = std::get_if<double>(&e.value); r && *r == std::floor(*r) && std::fabs(*r) < 9.2e18)
        return static_cast<std::int64_t>(*r);
    throw ParameterError(name + "=" + e.text + " is not an integer");
}

double ParamSet::real(const std::string& name) const
{
    const Entry& e = entry(name);
    if (const auto* r = std::get_if<double>(&e.value))
        return *r;
    if (const auto* i = std::get_if<std::int64_t>(&e.value))
        return static_cast<double>(*i);
    throw ParameterError(name + "=" + e.text + " is not a number");
}

ParamSet ParamSet::with(const std::string& name, const std::string& value) const
{
    std::map<std::string, std::string> given = textValues();
    given[name] = value;
    return parse(m_axes, given);
}

std::map<std::string, std::string> ParamSet::runValues() const
{
    std::map<std::string, std::string> out;
    for (const auto& e : m_entries)
        if (!e.readerOption)
            out[e.name] = e.text;
    return out;
}

std::map<std::string, std::string> ParamSet::textValues() const
{
    std::map<std::string, std::string> out;
    for (const auto& e : m_entries)
        out[e.name] = e.text;
    return out;
}

std::string ParamSet::toString() const
{
    std::string out;
    for (const auto& e : m_entries)
        out += (out.empty() ? "" : ";") + e.name + "=" + e.text;
    return out;
}

} // namespace ks
