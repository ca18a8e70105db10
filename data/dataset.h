#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <typeindex>
#include <utility>
#include <vector>

namespace ks::data {

/// What every dataset says about itself, whatever its kind: shown by the GUI, written into every result row.
struct DatasetMeta {
    std::string kind; ///< "series2d", "csr", "points", ...
    std::string name; ///< file name or "generated linreg (n=…)"
    std::string source; ///< file path, or "generator" for embedded data
    std::string contentHash; ///< hash of the numeric content, independent of the file format
    std::uint64_t size = 0; ///< the workload's size measure (points, rows, features)
    std::vector<std::pair<std::string, std::string>> properties; ///< shape, ranges, value type, ...
    std::vector<std::string> notes; ///< what a reader changed (e.g. zeros replaced)
};

/// An immutable, cheaply copyable dataset of any kind. The payload is shared between copies and threads.
class Dataset {
public:
    Dataset() = default;

    template <class T> static Dataset make(DatasetMeta meta, T value)
    {
        Dataset d;
        d.m_meta = std::move(meta);
        d.m_payload = std::make_shared<const T>(std::move(value));
        d.m_type = std::type_index(typeid(T));
        return d;
    }

    bool empty() const { return m_payload == nullptr; }
    const DatasetMeta& meta() const { return m_meta; }

    template <class T> bool holds() const { return m_payload && m_type == std::type_index(typeid(T)); }

    /// The payload; throws std::logic_error when the dataset is of another kind.
    template <class T> const T& as() const
    {
        if (!holds<T>())
            throw std::logic_error(
                "dataset '" + m_meta.name + "' is of kind '" + m_meta.kind + "', not the kind this workload reads");
        return *static_cast<const T*>(m_payload.get());
    }

private:
    DatasetMeta m_meta;
    std::shared_ptr<const void> m_payload;
    std::type_index m_type {typeid(void)};
};

/// "[lo, hi]" of a set of values with six significant digits, "empty" for none: the ranges shown in DatasetMeta.
std::string formatRange(const std::vector<double>& values);

} // namespace ks::data
