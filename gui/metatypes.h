#pragma once

// The engine's value types, declared to Qt's meta-type system so they can cross threads in queued signals.

#include "compute/core/observer.h"
#include "compute/core/summary.h"
#include "data/dataset.h"

#include <QList>
#include <QMetaType>
#include <vector>

Q_DECLARE_METATYPE(ks::Sample)
Q_DECLARE_METATYPE(QList<ks::Sample>)
Q_DECLARE_METATYPE(ks::Summary)
Q_DECLARE_METATYPE(std::vector<ks::Summary>)
Q_DECLARE_METATYPE(ks::SweepProgress)
Q_DECLARE_METATYPE(ks::data::Dataset)

namespace ks::gui {

/// Registers the types above with Qt (idempotent; the RunController calls it).
void registerMetaTypes();

} // namespace ks::gui
