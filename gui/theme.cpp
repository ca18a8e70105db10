#include "gui/theme.h"

#include <QApplication>
#include <QStyle>
#include <QStyleFactory>
#include <array>
#include <cmath>

namespace ks::gui {

QPalette lightPalette()
{
    QPalette p;
    p.setColor(QPalette::Window, QColor(0xf4, 0xf5, 0xf7));
    p.setColor(QPalette::WindowText, QColor(0x1d, 0x1f, 0x24));
    p.setColor(QPalette::Base, QColor(0xff, 0xff, 0xff));
    p.setColor(QPalette::AlternateBase, QColor(0xee, 0xf0, 0xf3));
    p.setColor(QPalette::ToolTipBase, QColor(0xff, 0xff, 0xe8));
    p.setColor(QPalette::ToolTipText, QColor(0x1d, 0x1f, 0x24));
    p.setColor(QPalette::PlaceholderText, QColor(0x80, 0x84, 0x8c));
    p.setColor(QPalette::Text, QColor(0x1d, 0x1f, 0x24));
    p.setColor(QPalette::Button, QColor(0xe9, 0xeb, 0xee));
    p.setColor(QPalette::ButtonText, QColor(0x1d, 0x1f, 0x24));
    p.setColor(QPalette::BrightText, QColor(0xd6, 0x27, 0x28));
    p.setColor(QPalette::Highlight, QColor(0x1f, 0x6f, 0xd1));
    p.setColor(QPalette::HighlightedText, QColor(0xff, 0xff, 0xff));
    p.setColor(QPalette::Link, QColor(0x1f, 0x6f, 0xd1));
    p.setColor(QPalette::Mid, QColor(0xc4, 0xc8, 0xce));
    p.setColor(QPalette::Dark, QColor(0x9a, 0x9f, 0xa7));
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x9a, 0x9f, 0xa7));
    p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x9a, 0x9f, 0xa7));
    p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x9a, 0x9f, 0xa7));
    return p;
}

QPalette darkPalette()
{
    QPalette p;
    p.setColor(QPalette::Window, QColor(0x23, 0x25, 0x2b));
    p.setColor(QPalette::WindowText, QColor(0xe4, 0xe6, 0xeb));
    p.setColor(QPalette::Base, QColor(0x1a, 0x1c, 0x21));
    p.setColor(QPalette::AlternateBase, QColor(0x2a, 0x2d, 0x34));
    p.setColor(QPalette::ToolTipBase, QColor(0x2f, 0x32, 0x39));
    p.setColor(QPalette::ToolTipText, QColor(0xe4, 0xe6, 0xeb));
    p.setColor(QPalette::PlaceholderText, QColor(0x8a, 0x8f, 0x99));
    p.setColor(QPalette::Text, QColor(0xe4, 0xe6, 0xeb));
    p.setColor(QPalette::Button, QColor(0x30, 0x33, 0x3a));
    p.setColor(QPalette::ButtonText, QColor(0xe4, 0xe6, 0xeb));
    p.setColor(QPalette::BrightText, QColor(0xff, 0x6b, 0x6b));
    p.setColor(QPalette::Highlight, QColor(0x3d, 0x8b, 0xfd));
    p.setColor(QPalette::HighlightedText, QColor(0xff, 0xff, 0xff));
    p.setColor(QPalette::Link, QColor(0x6c, 0xa8, 0xff));
    p.setColor(QPalette::Mid, QColor(0x4a, 0x4e, 0x57));
    p.setColor(QPalette::Dark, QColor(0x15, 0x16, 0x1a));
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x6b, 0x70, 0x7a));
    p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x6b, 0x70, 0x7a));
    p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x6b, 0x70, 0x7a));
    return p;
}

void applyTheme(QApplication& app, ThemeMode mode)
{
    app.setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    switch (mode) {
    case ThemeMode::Light:
        app.setPalette(lightPalette());
        break;
    case ThemeMode::Dark:
        app.setPalette(darkPalette());
        break;
    case ThemeMode::System:
        app.setPalette(app.style()->standardPalette());
        break;
    }
}

ThemeMode themeFromName(const QString& name)
{
    if (name == QLatin1String("light"))
        return ThemeMode::Light;
    if (name == QLatin1String("dark"))
        return ThemeMode::Dark;
    return ThemeMode::System;
}

QString themeName(ThemeMode mode)
{
    switch (mode) {
    case ThemeMode::Light:
        return QStringLiteral("light");
    case ThemeMode::Dark:
        return QStringLiteral("dark");
    case ThemeMode::System:
        break;
    }
    return QStringLiteral("system");
}

bool isDark(const QPalette& palette)
{
    return palette.color(QPalette::Window).lightnessF() < 0.5;
}

QColor seriesColor(int index, bool dark)
{
    // Okabe & Ito (2008) first, without black and yellow, which vanish on one of the two backgrounds; then nine more
    // picked so that every pair of the sixteen is at least 15 apart in CIEDE2000 on both themes (an spmv sweep has
    // a dozen variants, and a user kernel's colour must not pass for a neighbour's). tests/gui/test_chart_honesty.cpp
    // checks it.
    static const std::array<QColor, kDistinctSeriesColors> kBase
        = {QColor(0x00, 0x72, 0xb2), QColor(0xe6, 0x9f, 0x00), QColor(0x00, 0x9e, 0x73), QColor(0xcc, 0x79, 0xa7),
            QColor(0x56, 0xb4, 0xe9), QColor(0xd5, 0x5e, 0x00), QColor(0x7f, 0x3c, 0x8d), QColor(0x8c, 0x56, 0x4b),
            QColor(0xbc, 0xbd, 0x22), QColor(0xd8, 0x1b, 0x60), QColor(0x66, 0xa6, 0x1e), QColor(0x00, 0x83, 0x8f),
            QColor(0x9c, 0x9e, 0xde), QColor(0x28, 0x35, 0x93), QColor(0xf4, 0xa3, 0xa8), QColor(0x5d, 0x6d, 0x3c)};
    QColor c;
    if (index >= 0 && index < kDistinctSeriesColors) {
        c = kBase[static_cast<std::size_t>(index)];
    } else {
        const double hue = std::fmod(0.11 + 0.618033988749895 * index, 1.0);
        c = QColor::fromHsvF(static_cast<float>(hue), 0.65f, 0.80f);
    }
    return dark ? c.lighter(125) : c;
}

QColor alarmColor()
{
    return QColor(0xd6, 0x27, 0x28);
}

} // namespace ks::gui
