#pragma once

#include <QHash>
#include <QList>
#include <QPlainTextEdit>
#include <QString>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>

#include <array>

class QLabel;
class QPaintEvent;
class QResizeEvent;

namespace ks::gui {

/// One compiler message on a line of the user's file.
struct KernelDiagnostic {
    int line = 0; ///< 1-based; 0 when the message names no line (then it is shown above the text, not in the margin)
    bool error = true; ///< false for a warning
    QString message; ///< without the "file:line: error: " prefix

    bool operator==(const KernelDiagnostic&) const = default;
};

/// Parses compiler output, one message per line, in the forms our compiler reports them:
/// - "my.cu:7: error: identifier \"foo\" is undefined" (CompileDiagnostic::text; "catastrophic error" too);
/// - "/abs/path/my.cu(7): error: ..." (NVRTC's raw form; "warning #177-D: ..." too);
/// - "my.cu:3: warning: ..." ("remark" counts as a warning);
/// - "my.cu:2: unknown key 'foo' ..." (a launch-declaration error, UserKernelError: no severity word, an error);
/// - "my.cu: error: no `// kernelscope: kernel=` line" and "my.cu: no launch declaration: ..." (no line: line 0);
/// - "error: cannot compile my.cu: ..." and "nvrtc: error: ..." (no file: line 0).
/// Lines naming another file (e.g. the ABI header prepended before the user's code) are kept with line 0, their
/// location kept at the front of the message ("kernelscope_spmv_abi.h:12: ..."). `fileName` is matched by its file
/// name (the path may differ: absolute vs relative). Every other line is dropped: NVRTC's raw log echoes the source
/// line and a caret under each message and ends with a count ("1 error detected in ..."), none of which is a message.
QList<KernelDiagnostic> parseKernelDiagnostics(const QString& fileName, const QString& compilerText);

/// The kinds of text CudaHighlighter colours.
enum class CudaToken { Keyword, Qualifier, Type, Builtin, Preprocessor, Number, String, Comment, Declaration };
inline constexpr int kCudaTokenCount = 9;

/// CUDA C++ syntax highlighting: C++ keywords, CUDA qualifiers (__global__, __device__, __shared__, __restrict__,
/// __syncthreads, ...), types, built-ins (threadIdx, blockIdx, blockDim, gridDim, warpSize), preprocessor lines,
/// numbers, strings, // and /* */ comments (multi-line, via block state), and KernelScope's own launch declaration
/// lines (`// kernelscope: kernel=... block=...`) in a distinct style. Colours follow the palette (setDark).
class CudaHighlighter : public QSyntaxHighlighter {
    Q_OBJECT
public:
    explicit CudaHighlighter(QTextDocument* document, bool dark = false);

    /// Switches between the light and the dark colour set and rehighlights.
    void setDark(bool dark);
    bool dark() const { return m_dark; }
    /// The format given to text of kind `token` in the current colour set.
    QTextCharFormat tokenFormat(CudaToken token) const;

protected:
    void highlightBlock(const QString& text) override;

private:
    void buildFormats();

    bool m_dark = false;
    std::array<QTextCharFormat, kCudaTokenCount> m_formats;
};

class KernelEditorMargin;

/// A QPlainTextEdit for a .cu file: a monospace font, a line-number area on the left, the current line highlighted,
/// and compiler diagnostics marked in that margin (a red mark for an error, amber for a warning, with the message as
/// the margin's tooltip on that line; the line itself gets a faint coloured background and a wavy underline via
/// extraSelections). Marks stay on their line numbers until the next setDiagnostics (the next compile) replaces them.
/// Diagnostics on line 0 or past the last line have no mark: a strip above the text lists them.
class KernelEditor : public QPlainTextEdit {
    Q_OBJECT
public:
    explicit KernelEditor(QWidget* parent = nullptr);

    void setDiagnostics(const QList<KernelDiagnostic>& diagnostics); ///< replaces; an empty list clears
    const QList<KernelDiagnostic>& diagnostics() const { return m_diagnostics; }
    int lineNumberAreaWidth() const;
    /// The text a tooltip over the margin at `line` (1-based) shows: the diagnostics on that line, one per line; empty
    /// when none.
    QString marginToolTip(int line) const;
    /// Moves the cursor to a line (1-based, clamped to the document) and centres it.
    void goToLine(int line);
    /// The strip above the text: the diagnostics with no line in the file (line 0, or past the last line), one per line
    /// as "error: message"; empty, and the strip hidden, when there are none.
    QString bannerText() const;
    /// Whether that strip is shown (the default); a host that lists those diagnostics itself turns it off.
    void setBannerEnabled(bool enabled);
    bool bannerEnabled() const { return m_bannerEnabled; }
    /// The 1-based line the margin shows at viewport height `y`, or 0 below the last line.
    int lineAtMarginY(int y) const;
    CudaHighlighter* highlighter() const { return m_highlighter; }
    /// The colour of the margin mark and the line background for an error (or a warning).
    QColor diagnosticColor(bool error) const;

protected:
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    friend class KernelEditorMargin;

    /// Places the margin and the strip and sets the viewport's margins to make room for them.
    void layoutMargins();
    void updateBanner();
    void updateMargin(const QRect& rect, int dy);
    void updateExtraSelections();
    void applyPalette();
    void paintMargin(QPaintEvent* event);

    KernelEditorMargin* m_margin = nullptr;
    QLabel* m_banner = nullptr;
    bool m_bannerEnabled = true;
    CudaHighlighter* m_highlighter = nullptr;
    QList<KernelDiagnostic> m_diagnostics;
    QHash<int, bool> m_lineSeverity; ///< line -> true when an error is on it (errors win over warnings)
};

} // namespace ks::gui
