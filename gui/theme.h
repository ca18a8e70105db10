#pragma once

#include <QColor>
#include <QPalette>
#include <QString>

class QApplication;

namespace ks::gui {

enum class ThemeMode { System, Light, Dark };

/// Qt 6.4 has no colour-scheme hint, so both palettes are built here (on the Fusion style).
QPalette lightPalette();
QPalette darkPalette();
/// Applies a theme to the application; System keeps the platform's palette.
void applyTheme(QApplication& app, ThemeMode mode);
ThemeMode themeFromName(const QString& name);
QString themeName(ThemeMode mode);

/// True when the palette's window colour is dark (charts pick their colours from this).
bool isDark(const QPalette& palette);

/// How many variants get colours chosen to stand apart from each other; later ones get golden-angle hues.
inline constexpr int kDistinctSeriesColors = 16;
/// A qualitative colour for the n-th variant (Okabe & Ito's colour-blind-safe set, then colours chosen to stay
/// distinct from it, then golden-angle hues), lightened on dark backgrounds.
QColor seriesColor(int index, bool dark);
/// The colour that marks a result over its tolerance, everywhere.
QColor alarmColor();

} // namespace ks::gui
