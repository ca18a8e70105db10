#pragma once

// Scrolling a panel never changes a setting: a mouse wheel over a spin box or combo box that does not have the keyboard
// focus scrolls the panel holding it instead (Qt's default turns the value and takes the focus). Click the field
// first, and the wheel turns it as before.

#include <QObject>

class QEvent;

namespace ks::gui {

/// An application-wide event filter (MainWindow installs one on qApp).
class WheelGuard final : public QObject {
public:
    using QObject::QObject;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
};

} // namespace ks::gui
