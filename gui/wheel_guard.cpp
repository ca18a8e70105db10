#include "gui/wheel_guard.h"

#include <QAbstractScrollArea>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QEvent>
#include <QWidget>

namespace ks::gui {

bool WheelGuard::eventFilter(QObject* watched, QEvent* event)
{
    if (event->type() != QEvent::Wheel || !watched->isWidgetType())
        return false;
    // The spin box or combo box under the wheel: the widget itself or what holds it (a spin box's line edit), never
    // looking past a scroll area (an open combo box's list scrolls itself).
    QWidget* control = nullptr;
    for (auto* w = static_cast<QWidget*>(watched); w != nullptr && control == nullptr; w = w->parentWidget()) {
        if (qobject_cast<QAbstractSpinBox*>(w) != nullptr || qobject_cast<QComboBox*>(w) != nullptr)
            control = w;
        else if (qobject_cast<QAbstractScrollArea*>(w) != nullptr)
            break;
    }
    if (control == nullptr || control->hasFocus())
        return false;
    for (QWidget* w = control->parentWidget(); w != nullptr; w = w->parentWidget())
        if (auto* area = qobject_cast<QAbstractScrollArea*>(w)) {
            QCoreApplication::sendEvent(area->viewport(), event);
            break;
        }
    return true;
}

} // namespace ks::gui
