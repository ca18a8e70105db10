// The CUDA kernel editor: the compiler-output parser on every form our CLI and NVRTC write, the highlighter's formats,
// and the editor's margin, diagnostics and rendering in both palettes, offscreen.
#include "gui/panels/kernel_editor.h"

#include "compute/core/user_kernel.h"
#include "gui/theme.h"

#include <QApplication>
#include <QHelpEvent>
#include <QImage>
#include <QLabel>
#include <QPixmap>
#include <QScrollBar>
#include <QTest>
#include <QTextBlock>
#include <QTextDocument>
#include <QTextLayout>
#include <QToolTip>

#include <gtest/gtest.h>

#include <algorithm>

namespace {

using ks::gui::CudaHighlighter;
using ks::gui::CudaToken;
using ks::gui::KernelDiagnostic;
using ks::gui::KernelEditor;
using ks::gui::parseKernelDiagnostics;

// ---------------------------------------------------------------------------------------------------------------
// parseKernelDiagnostics

TEST(KernelDiagnostics, CliFormWithRelativeAndAbsolutePaths)
{
    const QString text = QStringLiteral("my.cu:7: error: identifier \"foo\" is undefined\n"
                                        "/home/me/kernels/my.cu:9: error: expected a \";\"\n");
    const auto d = parseKernelDiagnostics(QStringLiteral("/home/me/kernels/my.cu"), text);
    ASSERT_EQ(d.size(), 2);
    EXPECT_EQ(d[0], (KernelDiagnostic {7, true, QStringLiteral("identifier \"foo\" is undefined")}));
    EXPECT_EQ(d[1], (KernelDiagnostic {9, true, QStringLiteral("expected a \";\"")}));

    // The other way round: the editor knows the file by a relative name, the compiler wrote an absolute one.
    const auto e = parseKernelDiagnostics(QStringLiteral("kernels/my.cu"), text);
    ASSERT_EQ(e.size(), 2);
    EXPECT_EQ(e[1].line, 9);
}

TEST(KernelDiagnostics, NvrtcRawFormDropsEchoAndCaretAndCount)
{
    // What NVRTC's log holds for tests/data/user_kernels/line7_error.cu, plus a numbered warning.
    const QString log = QStringLiteral("/abs/path/line7_error.cu(7): error: expected an expression\n"
                                       "          a.y[row] = 0.0 + ;\n"
                                       "                           ^\n"
                                       "\n"
                                       "/abs/path/line7_error.cu(3): warning #177-D: variable \"k\" was declared but "
                                       "never referenced\n"
                                       "1 error detected in the compilation of \"line7_error.cu\".\r\n");
    const auto d = parseKernelDiagnostics(QStringLiteral("line7_error.cu"), log);
    ASSERT_EQ(d.size(), 2);
    EXPECT_EQ(d[0], (KernelDiagnostic {7, true, QStringLiteral("expected an expression")}));
    EXPECT_EQ(d[1], (KernelDiagnostic {3, false, QStringLiteral("variable \"k\" was declared but never referenced")}));
}

TEST(KernelDiagnostics, WarningsRemarksAndCatastrophicErrors)
{
    const QString text = QStringLiteral("my.cu:3: warning: variable \"x\" set but not used\n"
                                        "my.cu:4: remark: loop not unrolled\n"
                                        "my.cu:1: catastrophic error: cannot open source file \"nope.h\"\n");
    const auto d = parseKernelDiagnostics(QStringLiteral("my.cu"), text);
    ASSERT_EQ(d.size(), 3);
    EXPECT_EQ(d[0], (KernelDiagnostic {3, false, QStringLiteral("variable \"x\" set but not used")}));
    EXPECT_EQ(d[1], (KernelDiagnostic {4, false, QStringLiteral("loop not unrolled")}));
    EXPECT_EQ(d[2], (KernelDiagnostic {1, true, QStringLiteral("cannot open source file \"nope.h\"")}));
}

TEST(KernelDiagnostics, LaunchDeclarationErrorsHaveNoSeverityWord)
{
    // UserKernelError's text: "file:line: message" and "file: message".
    const QString text
        = QStringLiteral("my.cu:2: unknown key 'blocks' (known: kernel, block, grid, shared, scratch)\n"
                         "my.cu: no launch declaration: add a line such as '// kernelscope: kernel=my_kernel block=256 "
                         "grid=ceil(n/256)' (see kernelscope-cli new-kernel)\n"
                         "my.cu: error: no `// kernelscope: kernel=` line\n"
                         "my.cu:12: kernel 'k' is declared here but the file defines no extern \"C\" __global__ "
                         "function of that name\n");
    const auto d = parseKernelDiagnostics(QStringLiteral("my.cu"), text);
    ASSERT_EQ(d.size(), 4);
    EXPECT_EQ(d[0],
        (KernelDiagnostic {
            2, true, QStringLiteral("unknown key 'blocks' (known: kernel, block, grid, shared, scratch)")}));
    EXPECT_EQ(d[1].line, 0);
    EXPECT_TRUE(d[1].error);
    EXPECT_TRUE(d[1].message.startsWith(QStringLiteral("no launch declaration: add a line such as")));
    EXPECT_EQ(d[2], (KernelDiagnostic {0, true, QStringLiteral("no `// kernelscope: kernel=` line")}));
    EXPECT_EQ(d[3].line, 12);

    // A path with spaces, in both forms.
    const auto spaced = parseKernelDiagnostics(QStringLiteral("my.cu"),
        QStringLiteral("/home/me/My Kernels/my.cu: no launch declaration\n"
                       "/home/me/My Kernels/my.cu:4: 'block' given twice\n"));
    ASSERT_EQ(spaced.size(), 2);
    EXPECT_EQ(spaced[0], (KernelDiagnostic {0, true, QStringLiteral("no launch declaration")}));
    EXPECT_EQ(spaced[1], (KernelDiagnostic {4, true, QStringLiteral("'block' given twice")}));
}

TEST(KernelDiagnostics, OtherFilesAndFilelessMessagesKeptOnLineZero)
{
    const QString text = QStringLiteral("kernelscope_spmv_abi.h:12: error: expected a type specifier\n"
                                        "kernelscope_spmv_abi.h(14): warning: something in the header\n"
                                        "other.cu:5: error: not ours\n"
                                        "nvrtc: error: invalid value for --gpu-architecture (-arch)\n"
                                        "error: cannot compile my.cu: NVRTC is not installed\n");
    const auto d = parseKernelDiagnostics(QStringLiteral("my.cu"), text);
    ASSERT_EQ(d.size(), 5);
    EXPECT_EQ(
        d[0], (KernelDiagnostic {0, true, QStringLiteral("kernelscope_spmv_abi.h:12: expected a type specifier")}));
    EXPECT_EQ(
        d[1], (KernelDiagnostic {0, false, QStringLiteral("kernelscope_spmv_abi.h:14: something in the header")}));
    EXPECT_EQ(d[2], (KernelDiagnostic {0, true, QStringLiteral("other.cu:5: not ours")}));
    EXPECT_EQ(
        d[3], (KernelDiagnostic {0, true, QStringLiteral("nvrtc: invalid value for --gpu-architecture (-arch)")}));
    EXPECT_EQ(d[4], (KernelDiagnostic {0, true, QStringLiteral("cannot compile my.cu: NVRTC is not installed")}));
}

TEST(KernelDiagnostics, GarbageIsDropped)
{
    const QString text = QStringLiteral("my.cu: compiled for sm_90 with NVRTC 12.4 (PTX, 1234 bytes)\n"
                                        "  case 1: x = 2;\n"
                                        "random words\n"
                                        "other.cu:3: no severity and not our file\n"
                                        "\n   \n");
    // The first line names our file without a severity: a launch-declaration-like message, kept as an error on
    // line 0 (our CLI writes the success line to stdout, which the dock never parses).
    const auto d = parseKernelDiagnostics(QStringLiteral("my.cu"), text);
    ASSERT_EQ(d.size(), 1);
    EXPECT_EQ(d[0].line, 0);
    EXPECT_TRUE(parseKernelDiagnostics(QStringLiteral("my.cu"), QString()).isEmpty());
}

// ---------------------------------------------------------------------------------------------------------------
// CudaHighlighter

/// The format the highlighter gave the character at `column` of `line` (0-based).
QTextCharFormat formatAt(const QTextDocument& document, int line, int column)
{
    const QTextBlock block = document.findBlockByNumber(line);
    for (const QTextLayout::FormatRange& range : block.layout()->formats())
        if (column >= range.start && column < range.start + range.length)
            return range.format;
    return {};
}

int columnOf(const QTextDocument& document, int line, const QString& needle)
{
    return static_cast<int>(document.findBlockByNumber(line).text().indexOf(needle));
}

bool sameFormat(const QTextCharFormat& a, const QTextCharFormat& b)
{
    return a.foreground().color() == b.foreground().color() && a.fontWeight() == b.fontWeight()
        && a.fontItalic() == b.fontItalic() && a.background() == b.background();
}

class HighlighterTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        // A document reports edits (contentsChange, which the highlighter follows) only once it has a layout, as a
        // document shown in an editor does.
        m_document.documentLayout();
        m_document.setPlainText(
            QStringLiteral("// kernelscope: kernel=row_per_thread block=256 grid=ceil(rows/256)\n" // 0
                           "#include <cuda_runtime.h>\n" // 1
                           "extern \"C\" __global__ void k(const float* __restrict__ x, int n)\n" // 2
                           "{\n" // 3
                           "    __shared__ double tile[32];\n" // 4
                           "    const int i = blockIdx.x * blockDim.x + threadIdx.x; /* starts\n" // 5
                           "       int return still a comment */ return;\n" // 6
                           "    const char* s = \"a // b\"; float y = 1.5f; // tail\n" // 7
                           "    __syncthreads();\n" // 8
                           "}\n"));
        m_highlighter = new CudaHighlighter(&m_document, false);
        // Attaching to a document highlights it from the event loop (and ignores edits until then).
        QApplication::processEvents();
    }
    QTextCharFormat expected(CudaToken t) const { return m_highlighter->tokenFormat(t); }
    QTextCharFormat at(int line, const QString& needle, int extra = 0) const
    {
        const int column = columnOf(m_document, line, needle);
        EXPECT_GE(column, 0) << needle.toStdString();
        return formatAt(m_document, line, column + extra);
    }

    QTextDocument m_document;
    CudaHighlighter* m_highlighter = nullptr;
};

TEST_F(HighlighterTest, WordsOfEachKind)
{
    EXPECT_TRUE(sameFormat(at(2, QStringLiteral("extern")), expected(CudaToken::Keyword)));
    EXPECT_TRUE(sameFormat(at(2, QStringLiteral("__global__")), expected(CudaToken::Qualifier)));
    EXPECT_TRUE(sameFormat(at(2, QStringLiteral("__restrict__"), 3), expected(CudaToken::Qualifier)));
    EXPECT_TRUE(sameFormat(at(2, QStringLiteral("void")), expected(CudaToken::Type)));
    EXPECT_TRUE(sameFormat(at(2, QStringLiteral("float")), expected(CudaToken::Type)));
    EXPECT_TRUE(sameFormat(at(4, QStringLiteral("__shared__")), expected(CudaToken::Qualifier)));
    EXPECT_TRUE(sameFormat(at(4, QStringLiteral("32")), expected(CudaToken::Number)));
    EXPECT_TRUE(sameFormat(at(5, QStringLiteral("blockIdx")), expected(CudaToken::Builtin)));
    EXPECT_TRUE(sameFormat(at(5, QStringLiteral("threadIdx"), 4), expected(CudaToken::Builtin)));
    EXPECT_TRUE(sameFormat(at(7, QStringLiteral("1.5f")), expected(CudaToken::Number)));
    EXPECT_TRUE(sameFormat(at(8, QStringLiteral("__syncthreads")), expected(CudaToken::Qualifier)));
    EXPECT_TRUE(sameFormat(at(1, QStringLiteral("include")), expected(CudaToken::Preprocessor)));
    // Plain identifiers keep the default format.
    EXPECT_FALSE(formatAt(m_document, 2, columnOf(m_document, 2, QStringLiteral(" k(")) + 1)
                     .hasProperty(QTextFormat::ForegroundBrush));
}

TEST_F(HighlighterTest, BlockCommentSpansLines)
{
    EXPECT_TRUE(sameFormat(at(5, QStringLiteral("/* starts")), expected(CudaToken::Comment)));
    EXPECT_TRUE(sameFormat(at(5, QStringLiteral("starts")), expected(CudaToken::Comment)));
    // Keywords inside the comment's second line are comment, the code after "*/" is code again.
    EXPECT_TRUE(sameFormat(at(6, QStringLiteral("int")), expected(CudaToken::Comment)));
    EXPECT_TRUE(sameFormat(at(6, QStringLiteral("return still")), expected(CudaToken::Comment)));
    EXPECT_TRUE(sameFormat(at(6, QStringLiteral("*/")), expected(CudaToken::Comment)));
    EXPECT_TRUE(sameFormat(at(6, QStringLiteral(" return;"), 1), expected(CudaToken::Keyword)));
    EXPECT_EQ(m_document.findBlockByNumber(5).userState(), 1);
    EXPECT_EQ(m_document.findBlockByNumber(6).userState(), 0);

    // Closing the comment earlier rehighlights the next line.
    QTextCursor cursor(m_document.findBlockByNumber(5));
    cursor.movePosition(QTextCursor::EndOfBlock);
    cursor.insertText(QStringLiteral(" */"));
    EXPECT_TRUE(sameFormat(at(6, QStringLiteral("int")), expected(CudaToken::Type)));
}

TEST_F(HighlighterTest, StringWithSlashesIsNoComment)
{
    EXPECT_TRUE(sameFormat(at(7, QStringLiteral("\"a // b\"")), expected(CudaToken::String)));
    EXPECT_TRUE(sameFormat(at(7, QStringLiteral("// b")), expected(CudaToken::String)));
    EXPECT_TRUE(sameFormat(at(7, QStringLiteral("float y")), expected(CudaToken::Type)));
    EXPECT_TRUE(sameFormat(at(7, QStringLiteral("// tail")), expected(CudaToken::Comment)));
    EXPECT_TRUE(sameFormat(at(2, QStringLiteral("\"C\"")), expected(CudaToken::String)));
}

TEST_F(HighlighterTest, DeclarationLineHasItsOwnStyle)
{
    const QTextCharFormat declaration = expected(CudaToken::Declaration);
    EXPECT_FALSE(sameFormat(declaration, expected(CudaToken::Comment)));
    EXPECT_TRUE(sameFormat(at(0, QStringLiteral("//")), declaration));
    EXPECT_TRUE(sameFormat(at(0, QStringLiteral("256")), declaration));
    EXPECT_TRUE(sameFormat(at(0, QStringLiteral("ceil")), declaration));
    // An ordinary comment that mentions the marker later is a comment.
    QTextCursor cursor(m_document.findBlockByNumber(3));
    cursor.insertText(QStringLiteral("// see the kernelscope: line above"));
    EXPECT_TRUE(sameFormat(at(3, QStringLiteral("kernelscope")), expected(CudaToken::Comment)));
}

TEST_F(HighlighterTest, DarkColoursDifferAndRehighlight)
{
    const QColor light = expected(CudaToken::Keyword).foreground().color();
    m_highlighter->setDark(true);
    EXPECT_NE(expected(CudaToken::Keyword).foreground().color(), light);
    EXPECT_TRUE(sameFormat(at(2, QStringLiteral("extern")), expected(CudaToken::Keyword)));
    // Dark colours are light and light ones dark, so each reads on its background.
    EXPECT_GT(expected(CudaToken::Comment).foreground().color().lightnessF(), 0.5);
    m_highlighter->setDark(false);
    EXPECT_LT(expected(CudaToken::Comment).foreground().color().lightnessF(), 0.5);
}

// ---------------------------------------------------------------------------------------------------------------
// KernelEditor

QString spmvTemplate()
{
    const ks::UserKernelAbi* abi = ks::findUserKernelAbi("spmv");
    EXPECT_NE(abi, nullptr);
    return abi ? QString::fromStdString(abi->templateSource) : QString();
}

TEST(KernelEditor, MonospaceFontAndFourSpaceTabs)
{
    KernelEditor editor;
    // Checked by the glyphs' widths: fontconfig does not mark every monospace font (Noto Sans Mono) as fixed-pitch.
    const QFontMetrics metrics(editor.font());
    EXPECT_EQ(metrics.horizontalAdvance(QLatin1Char('i')), metrics.horizontalAdvance(QLatin1Char('W')));
    EXPECT_DOUBLE_EQ(editor.tabStopDistance(), 4.0 * editor.fontMetrics().horizontalAdvance(QLatin1Char(' ')));
    EXPECT_NE(editor.highlighter(), nullptr);
}

TEST(KernelEditor, MarginWidthGrowsWithLineCount)
{
    KernelEditor editor;
    editor.setPlainText(QStringLiteral("a\nb\nc"));
    const int small = editor.lineNumberAreaWidth();
    EXPECT_GT(small, 0);
    QStringList lines;
    for (int i = 0; i < 1200; ++i)
        lines.append(QStringLiteral("x"));
    editor.setPlainText(lines.join(QLatin1Char('\n')));
    EXPECT_EQ(editor.blockCount(), 1200);
    EXPECT_GT(editor.lineNumberAreaWidth(), small);
    EXPECT_EQ(editor.viewport()->geometry().left() - editor.contentsRect().left(), editor.lineNumberAreaWidth());
    auto* margin = editor.findChild<QWidget*>(QStringLiteral("kernelEditorMargin"));
    ASSERT_NE(margin, nullptr);
    EXPECT_EQ(margin->width(), editor.lineNumberAreaWidth());
}

TEST(KernelEditor, DiagnosticsMarkLines)
{
    KernelEditor editor;
    editor.resize(600, 400);
    editor.setPlainText(spmvTemplate());
    const int before = static_cast<int>(editor.extraSelections().size());
    EXPECT_EQ(before, 1); // the current line

    editor.setDiagnostics({{7, true, QStringLiteral("expected an expression")},
        {7, false, QStringLiteral("variable \"k\" unused")}, {10, false, QStringLiteral("narrowing")},
        {0, true, QStringLiteral("no line")}, {999, true, QStringLiteral("past the end")}});
    EXPECT_EQ(editor.diagnostics().size(), 5);

    // Lines 7 and 10 each get a full-width background and a wavy underline; lines 0 and 999 get none.
    QList<int> markedBlocks;
    bool sawWave = false;
    for (const QTextEdit::ExtraSelection& s : editor.extraSelections()) {
        if (s.format.underlineStyle() == QTextCharFormat::WaveUnderline) {
            sawWave = true;
            EXPECT_TRUE(s.cursor.hasSelection());
        } else if (s.cursor.blockNumber() != editor.textCursor().blockNumber()) {
            markedBlocks.append(s.cursor.blockNumber() + 1);
            EXPECT_TRUE(s.format.property(QTextFormat::FullWidthSelection).toBool());
        }
    }
    std::sort(markedBlocks.begin(), markedBlocks.end());
    EXPECT_EQ(markedBlocks, (QList<int> {7, 10}));
    EXPECT_TRUE(sawWave);
    EXPECT_EQ(editor.extraSelections().size(), before + 4);

    // An error and a warning on line 7: the error's colour wins.
    for (const QTextEdit::ExtraSelection& s : editor.extraSelections()) {
        if (s.cursor.blockNumber() == 6 && s.format.underlineStyle() == QTextCharFormat::WaveUnderline) {
            EXPECT_EQ(s.format.underlineColor(), editor.diagnosticColor(true));
        }
    }

    EXPECT_EQ(editor.marginToolTip(7), QStringLiteral("error: expected an expression\nwarning: variable \"k\" unused"));
    EXPECT_EQ(editor.marginToolTip(10), QStringLiteral("warning: narrowing"));
    EXPECT_TRUE(editor.marginToolTip(8).isEmpty());
    EXPECT_TRUE(editor.marginToolTip(0).isEmpty());

    // Line 0 and line 999 (past the end) are listed in the strip above the text instead.
    EXPECT_EQ(editor.bannerText(), QStringLiteral("error: no line\nerror: past the end"));

    editor.setDiagnostics({});
    EXPECT_TRUE(editor.diagnostics().isEmpty());
    EXPECT_TRUE(editor.bannerText().isEmpty());
    EXPECT_EQ(editor.extraSelections().size(), before);
    EXPECT_TRUE(editor.marginToolTip(7).isEmpty());
}

TEST(KernelEditor, BannerAboveTheTextListsUnplacedDiagnostics)
{
    KernelEditor editor;
    editor.resize(600, 300);
    editor.setPlainText(QStringLiteral("a\nb\nc"));
    editor.show();
    auto* banner = editor.findChild<QLabel*>(QStringLiteral("kernelEditorBanner"));
    ASSERT_NE(banner, nullptr);
    EXPECT_FALSE(banner->isVisible());
    const int textTop = editor.viewport()->geometry().top();

    editor.setDiagnostics({{0, true, QStringLiteral("no `// kernelscope: kernel=` line")},
        {2, false, QStringLiteral("on a line")}, {5, false, QStringLiteral("line 5 of 3")}});
    EXPECT_TRUE(banner->isVisible());
    EXPECT_EQ(banner->text(), QStringLiteral("error: no `// kernelscope: kernel=` line\nwarning: line 5 of 3"));
    // The text and the margin move down below the strip.
    EXPECT_GE(editor.viewport()->geometry().top(), textTop + banner->height());
    auto* margin = editor.findChild<QWidget*>(QStringLiteral("kernelEditorMargin"));
    ASSERT_NE(margin, nullptr);
    EXPECT_EQ(margin->geometry().top(), editor.viewport()->geometry().top());

    // Typing lines 4 and 5 gives the second warning its line: it leaves the strip for the margin.
    editor.appendPlainText(QStringLiteral("d\ne"));
    EXPECT_EQ(editor.bannerText(), QStringLiteral("error: no `// kernelscope: kernel=` line"));

    // Many messages: the strip shows a few and counts the rest.
    QList<KernelDiagnostic> many;
    for (int i = 0; i < 9; ++i)
        many.append({0, true, QStringLiteral("m%1").arg(i)});
    editor.setDiagnostics(many);
    EXPECT_EQ(editor.bannerText().count(QLatin1Char('\n')), 4);
    EXPECT_TRUE(editor.bannerText().endsWith(QStringLiteral("5 more")));

    // A host that lists them itself turns the strip off; the text goes back to the top.
    editor.setBannerEnabled(false);
    EXPECT_FALSE(banner->isVisible());
    EXPECT_EQ(editor.viewport()->geometry().top(), textTop);
    editor.setBannerEnabled(true);
    editor.setDiagnostics({});
    EXPECT_FALSE(banner->isVisible());
    EXPECT_EQ(editor.viewport()->geometry().top(), textTop);
}

TEST(KernelEditor, MarginShowsTheLinesDiagnosticsAsToolTip)
{
    KernelEditor editor;
    editor.resize(600, 300);
    editor.setPlainText(spmvTemplate());
    editor.setDiagnostics({{7, true, QStringLiteral("identifier \"foo\" is undefined")}});
    editor.show();
    QApplication::processEvents();
    auto* margin = editor.findChild<QWidget*>(QStringLiteral("kernelEditorMargin"));
    ASSERT_NE(margin, nullptr);

    const QTextBlock block = editor.document()->findBlockByNumber(6);
    QTextCursor cursor(block);
    const int y = editor.cursorRect(cursor).center().y();
    EXPECT_EQ(editor.lineAtMarginY(y), 7);
    QHelpEvent help(QEvent::ToolTip, QPoint(4, y), margin->mapToGlobal(QPoint(4, y)));
    QApplication::sendEvent(margin, &help);
    EXPECT_EQ(QToolTip::text(), QStringLiteral("error: identifier \"foo\" is undefined"));

    const int yOther = editor.cursorRect(QTextCursor(editor.document()->findBlockByNumber(1))).center().y();
    QHelpEvent none(QEvent::ToolTip, QPoint(4, yOther), margin->mapToGlobal(QPoint(4, yOther)));
    QApplication::sendEvent(margin, &none);
    // Qt hides a tooltip after a short fade-out delay.
    EXPECT_TRUE(QTest::qWaitFor([] { return !QToolTip::isVisible(); }, 3000));
}

TEST(KernelEditor, GoToLineMovesAndCentresTheCursor)
{
    KernelEditor editor;
    editor.resize(500, 200);
    editor.show();
    QStringList lines;
    for (int i = 1; i <= 300; ++i)
        lines.append(QStringLiteral("int line%1;").arg(i));
    editor.setPlainText(lines.join(QLatin1Char('\n')));
    QApplication::processEvents();

    editor.goToLine(150);
    EXPECT_EQ(editor.textCursor().blockNumber(), 149);
    EXPECT_EQ(editor.textCursor().positionInBlock(), 0);
    EXPECT_GT(editor.verticalScrollBar()->value(), 100);
    // The line is on screen, near the middle of the viewport.
    const int y = editor.cursorRect().center().y();
    EXPECT_GT(y, editor.viewport()->height() / 4);
    EXPECT_LT(y, editor.viewport()->height() * 3 / 4);
    EXPECT_EQ(editor.lineAtMarginY(y), 150);

    editor.goToLine(100000);
    EXPECT_EQ(editor.textCursor().blockNumber(), 299);
    editor.goToLine(-3);
    EXPECT_EQ(editor.textCursor().blockNumber(), 0);
}

/// Renders the spmv template with an error on line 7 in a palette, saves it to `path`, and returns the image.
QImage renderEditor(const QPalette& palette, const QString& path)
{
    KernelEditor editor;
    editor.setPalette(palette);
    editor.resize(820, 420);
    editor.setPlainText(spmvTemplate());
    editor.setDiagnostics({{7, true, QStringLiteral("identifier \"ks_spmv_argz\" is undefined")},
        {13, false, QStringLiteral("variable \"sum\" may be used before being set")},
        {0, false, QStringLiteral("kernelscope_spmv_abi.h:3: a message with no line in this file")}});
    editor.goToLine(11);
    editor.show();
    QApplication::processEvents();
    const QImage image = editor.grab().toImage();
    image.save(path);
    return image;
}

TEST(KernelEditor, RendersInLightAndDarkPalettes)
{
    const QImage light = renderEditor(ks::gui::lightPalette(), QStringLiteral("/tmp/editor-light.png"));
    const QImage dark = renderEditor(ks::gui::darkPalette(), QStringLiteral("/tmp/editor-dark.png"));
    ASSERT_FALSE(light.isNull());
    ASSERT_FALSE(dark.isNull());
    // The text area's background follows the palette.
    const QPoint inText(light.width() - 20, light.height() - 20);
    EXPECT_GT(light.pixelColor(inText).lightnessF(), 0.5);
    EXPECT_LT(dark.pixelColor(inText).lightnessF(), 0.5);
}

TEST(KernelEditor, PaletteChangeSwitchesHighlighterColours)
{
    KernelEditor editor;
    editor.setPalette(ks::gui::lightPalette());
    EXPECT_FALSE(editor.highlighter()->dark());
    editor.setPalette(ks::gui::darkPalette());
    EXPECT_TRUE(editor.highlighter()->dark());
}

} // namespace
