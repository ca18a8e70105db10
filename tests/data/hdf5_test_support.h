#pragma once

// Shared by the ks_data_tests sources that build HDF5 files through the C API.

#include <hdf5.h>

namespace ks::data::test {

/// Closes an identifier the test opened through the C API.
class RawId {
public:
    RawId(hid_t id, herr_t (*close)(hid_t))
        : m_id(id)
        , m_close(close)
    {
    }
    RawId(const RawId&) = delete;
    RawId& operator=(const RawId&) = delete;
    ~RawId()
    {
        if (m_id >= 0)
            m_close(m_id);
    }
    hid_t get() const { return m_id; }

private:
    hid_t m_id;
    herr_t (*m_close)(hid_t);
};

} // namespace ks::data::test
