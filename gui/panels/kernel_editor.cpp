#include "gui/panels/kernel_editor.h"

#include "gui/theme.h"

#include <QEvent>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHelpEvent>
#include <QLabel>
#include <QPainter>
#include <QRegularExpression>
#include <QTextBlock>
#include <QToolTip>

#include <algorithm>
#include <utility>

namespace ks::gui {

namespace {

/// "error", "catastrophic error", "fatal error", "warning" or "remark" at the front of `rest`, with NVRTC's optional
/// message number ("warning #177-D"), then ": " and the message.
const QRegularExpression& severityPattern()
{
    static const QRegularExpression pattern(
        QStringLiteral(R"(^((?:catastrophic |fatal )?error|warning|remark)(?: #[^:]*)?: (.*)$)"));
    return pattern;
}

/// "file:7: rest" (our CLI, CompileDiagnostic::text) or "file(7): rest" (NVRTC's raw log).
const QRegularExpression& locatedPattern()
{
    static const QRegularExpression pattern(QStringLiteral(R"(^(.+?)(?::([0-9]+):|\(([0-9]+)\):) (.*)$)"));
    return pattern;
}

/// "file: rest", the file having no space in its name (a source line echoed by NVRTC has spaces before its colon).
const QRegularExpression& unlocatedPattern()
{
    static const QRegularExpression pattern(QStringLiteral(R"(^([^\s:]+): (.*)$)"));
    return pattern;
}

struct Severity {
    bool known = false;
    bool error = true;
    QString message;
};

Severity splitSeverity(const QString& rest)
{
    const QRegularExpressionMatch m = severityPattern().match(rest);
    if (!m.hasMatch())
        return {false, true, rest};
    const QString word = m.captured(1);
    return {true, word.endsWith(QLatin1String("error")), m.captured(2)};
}

} // namespace

QList<KernelDiagnostic> parseKernelDiagnostics(const QString& fileName, const QString& compilerText)
{
    const QString ownName = QFileInfo(fileName).fileName();
    auto isOwnFile = [&](const QString& file) { return !ownName.isEmpty() && QFileInfo(file).fileName() == ownName; };

    QList<KernelDiagnostic> out;
    const QStringList lines = compilerText.split(QLatin1Char('\n'));
    for (QString line : lines) {
        if (line.endsWith(QLatin1Char('\r')))
            line.chop(1);
        if (line.trimmed().isEmpty())
            continue;

        // A message with no file: "error: cannot compile my.cu: ...".
        if (const Severity s = splitSeverity(line); s.known) {
            out.append({0, s.error, s.message});
            continue;
        }

        if (const QRegularExpressionMatch m = locatedPattern().match(line); m.hasMatch()) {
            const QString file = m.captured(1);
            const int number = (m.captured(2).isEmpty() ? m.captured(3) : m.captured(2)).toInt();
            const Severity s = splitSeverity(m.captured(4));
            if (isOwnFile(file)) {
                // Without a severity word this is a launch-declaration error (UserKernelError): an error.
                out.append({number, s.error, s.message});
            } else if (s.known) {
                out.append(
                    {0, s.error, file + QLatin1Char(':') + QString::number(number) + QStringLiteral(": ") + s.message});
            }
            continue;
        }

        // "my.cu: message" where the path before the name may hold spaces ("/home/me/My Kernels/my.cu: ...").
        if (const qsizetype at = line.indexOf(ownName + QStringLiteral(": ")); !ownName.isEmpty() && at >= 0
            && (at == 0 || line.at(at - 1) == QLatin1Char('/')) && !line.left(at).contains(QStringLiteral(": "))) {
            const Severity s = splitSeverity(line.mid(at + ownName.size() + 2));
            out.append({0, s.error, s.message});
            continue;
        }

        if (const QRegularExpressionMatch m = unlocatedPattern().match(line); m.hasMatch()) {
            const QString file = m.captured(1);
            const Severity s = splitSeverity(m.captured(2));
            if (s.known)
                out.append({0, s.error, file + QStringLiteral(": ") + s.message});
        }
    }
    return out;
}

// ---------------------------------------------------------------------------------------------------------------
// CudaHighlighter

namespace {

struct TokenRule {
    QRegularExpression pattern;
    CudaToken token;
};

QString wordList(const char* words)
{
    return QStringLiteral(R"(\b(?:%1)\b)")
        .arg(QString::fromLatin1(words).split(QLatin1Char(' ')).join(QLatin1Char('|')));
}

/// The word rules, compiled once; later rules win where two match the same text.
const std::vector<TokenRule>& tokenRules()
{
    static const std::vector<TokenRule> rules = [] {
        const auto options = QRegularExpression::UseUnicodePropertiesOption;
        std::vector<TokenRule> r;
        r.push_back({QRegularExpression(
                         wordList("alignas alignof asm auto break case catch class const constexpr const_cast continue "
                                  "decltype default delete do dynamic_cast else enum explicit extern false for friend "
                                  "goto if inline mutable namespace new noexcept nullptr operator private protected "
                                  "public register reinterpret_cast return sizeof static static_assert static_cast "
                                  "struct switch template this throw true try typedef typeid typename union using "
                                  "virtual volatile while"),
                         options),
            CudaToken::Keyword});
        r.push_back({QRegularExpression(wordList("void bool char short int long float double signed unsigned size_t "
                                                 "dim3 half __half __half2 __nv_bfloat16 __nv_bfloat162")
                             + QStringLiteral(R"(|\b[A-Za-z_]\w*_t\b)")
                             + QStringLiteral(R"(|\b(?:u?char|u?short|u?int|u?long|u?longlong|float|double)[1-4]\b)"),
                         options),
            CudaToken::Type});
        r.push_back({QRegularExpression(QStringLiteral(R"re(\b__\w+__\b|)re")
                             + wordList("__syncthreads __syncthreads_count __syncthreads_and __syncthreads_or "
                                        "__syncwarp __shfl_sync __shfl_up_sync __shfl_down_sync __shfl_xor_sync "
                                        "__ballot_sync __any_sync __all_sync __activemask __ldg __threadfence "
                                        "__threadfence_block __threadfence_system __popc __popcll __clz __ffs "
                                        "atomicAdd atomicSub atomicExch atomicMin atomicMax atomicInc atomicDec "
                                        "atomicCAS atomicAnd atomicOr atomicXor"),
                         options),
            CudaToken::Qualifier});
        r.push_back({QRegularExpression(wordList("threadIdx blockIdx blockDim gridDim warpSize"), options),
            CudaToken::Builtin});
        r.push_back(
            {QRegularExpression(
                 QStringLiteral(
                     R"((?<![\w.])(?:0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)[uUlLfF]*(?![\w.]))"),
                 options),
                CudaToken::Number});
        return r;
    }();
    return rules;
}

const QRegularExpression& preprocessorPattern()
{
    static const QRegularExpression pattern(QStringLiteral(R"(^\s*#)"));
    return pattern;
}

/// The launch declaration, as compute/core/user_kernel.cpp's declarationText recognises it.
const QRegularExpression& declarationPattern()
{
    static const QRegularExpression pattern(QStringLiteral(R"(^[ \t]*//[ \t]*kernelscope:)"));
    return pattern;
}

constexpr int kPlainState = 0;
constexpr int kInBlockComment = 1;

QTextCharFormat makeFormat(const QColor& colour, bool bold = false, bool italic = false)
{
    QTextCharFormat f;
    f.setForeground(colour);
    if (bold)
        f.setFontWeight(QFont::Bold);
    f.setFontItalic(italic);
    return f;
}

} // namespace

CudaHighlighter::CudaHighlighter(QTextDocument* document, bool dark)
    : QSyntaxHighlighter(document)
    , m_dark(dark)
{
    buildFormats();
}

void CudaHighlighter::setDark(bool dark)
{
    if (dark == m_dark)
        return;
    m_dark = dark;
    buildFormats();
    rehighlight();
}

QTextCharFormat CudaHighlighter::tokenFormat(CudaToken token) const
{
    return m_formats[static_cast<std::size_t>(token)];
}

void CudaHighlighter::buildFormats()
{
    // Light colours in the spirit of Qt Creator's default scheme, dark ones of its "dark" scheme: each readable on
    // its own background (contrast at least 4.5:1 on white or on #2b2b2b).
    auto set = [&](CudaToken token, QTextCharFormat format) {
        m_formats[static_cast<std::size_t>(token)] = std::move(format);
    };
    if (m_dark) {
        set(CudaToken::Keyword, makeFormat(QColor(0x82, 0xaa, 0xff), true));
        set(CudaToken::Qualifier, makeFormat(QColor(0xd0, 0x9c, 0xf0), true));
        set(CudaToken::Type, makeFormat(QColor(0x4e, 0xc9, 0xb0)));
        set(CudaToken::Builtin, makeFormat(QColor(0xff, 0xb8, 0x6c)));
        set(CudaToken::Preprocessor, makeFormat(QColor(0xd7, 0xba, 0x7d)));
        set(CudaToken::Number, makeFormat(QColor(0xb5, 0xce, 0xa8)));
        set(CudaToken::String, makeFormat(QColor(0xe6, 0xa0, 0x7c)));
        set(CudaToken::Comment, makeFormat(QColor(0x9a, 0xa3, 0xad), false, true));
        QTextCharFormat declaration = makeFormat(QColor(0x7f, 0xd8, 0xff), true);
        declaration.setBackground(QColor(0x1c, 0x35, 0x48));
        set(CudaToken::Declaration, declaration);
    } else {
        set(CudaToken::Keyword, makeFormat(QColor(0x00, 0x33, 0xb3), true));
        set(CudaToken::Qualifier, makeFormat(QColor(0x87, 0x10, 0x94), true));
        set(CudaToken::Type, makeFormat(QColor(0x00, 0x66, 0x66)));
        set(CudaToken::Builtin, makeFormat(QColor(0x9a, 0x4a, 0x00)));
        set(CudaToken::Preprocessor, makeFormat(QColor(0x6e, 0x5a, 0x00)));
        set(CudaToken::Number, makeFormat(QColor(0x15, 0x4f, 0xd6)));
        set(CudaToken::String, makeFormat(QColor(0x06, 0x7d, 0x17)));
        set(CudaToken::Comment, makeFormat(QColor(0x5f, 0x67, 0x70), false, true));
        QTextCharFormat declaration = makeFormat(QColor(0x00, 0x52, 0x7a), true);
        declaration.setBackground(QColor(0xe2, 0xf1, 0xfb));
        set(CudaToken::Declaration, declaration);
    }
}

void CudaHighlighter::highlightBlock(const QString& text)
{
    const bool startsInComment = previousBlockState() == kInBlockComment;
    const int length = static_cast<int>(text.size());

    if (!startsInComment && declarationPattern().match(text).hasMatch()) {
        setFormat(0, length, tokenFormat(CudaToken::Declaration));
        setCurrentBlockState(kPlainState);
        return;
    }

    if (!startsInComment && preprocessorPattern().match(text).hasMatch()) {
        setFormat(0, length, tokenFormat(CudaToken::Preprocessor));
    } else {
        for (const TokenRule& rule : tokenRules()) {
            const QTextCharFormat format = tokenFormat(rule.token);
            for (auto it = rule.pattern.globalMatch(text); it.hasNext();) {
                const QRegularExpressionMatch m = it.next();
                setFormat(static_cast<int>(m.capturedStart()), static_cast<int>(m.capturedLength()), format);
            }
        }
    }

    // One left-to-right scan for strings and comments, so a "//" inside a string is no comment and a quote inside a
    // comment no string; they override the word formats beneath them.
    const QTextCharFormat stringFormat = tokenFormat(CudaToken::String);
    const QTextCharFormat commentFormat = tokenFormat(CudaToken::Comment);
    int state = startsInComment ? kInBlockComment : kPlainState;
    int i = 0;
    while (i < length) {
        if (state == kInBlockComment) {
            const int end = static_cast<int>(text.indexOf(QLatin1String("*/"), i));
            const int stop = end < 0 ? length : end + 2;
            setFormat(i, stop - i, commentFormat);
            i = stop;
            if (end >= 0)
                state = kPlainState;
            continue;
        }
        const QChar c = text.at(i);
        if (c == QLatin1Char('"') || c == QLatin1Char('\'')) {
            int j = i + 1;
            while (j < length && text.at(j) != c)
                j += text.at(j) == QLatin1Char('\\') ? 2 : 1;
            const int stop = std::min(j + 1, length);
            setFormat(i, stop - i, stringFormat);
            i = stop;
        } else if (c == QLatin1Char('/') && i + 1 < length && text.at(i + 1) == QLatin1Char('/')) {
            setFormat(i, length - i, commentFormat);
            break;
        } else if (c == QLatin1Char('/') && i + 1 < length && text.at(i + 1) == QLatin1Char('*')) {
            state = kInBlockComment;
            setFormat(i, 2, commentFormat);
            i += 2;
        } else {
            ++i;
        }
    }
    setCurrentBlockState(state);
}

// ---------------------------------------------------------------------------------------------------------------
// KernelEditor

/// The line-number area: a child of the editor painted in the viewport's left margin (the idea of Qt's Code Editor
/// example); the editor does the painting and answers its tooltips.
class KernelEditorMargin : public QWidget {
public:
    explicit KernelEditorMargin(KernelEditor* editor)
        : QWidget(editor)
        , m_editor(editor)
    {
    }
    QSize sizeHint() const override { return {m_editor->lineNumberAreaWidth(), 0}; }

protected:
    void paintEvent(QPaintEvent* event) override { m_editor->paintMargin(event); }
    bool event(QEvent* event) override
    {
        if (event->type() == QEvent::ToolTip) {
            auto* help = static_cast<QHelpEvent*>(event);
            const QString text = m_editor->marginToolTip(m_editor->lineAtMarginY(help->pos().y()));
            if (text.isEmpty()) {
                QToolTip::hideText();
                event->ignore();
            } else {
                QToolTip::showText(help->globalPos(), text, this);
            }
            return true;
        }
        return QWidget::event(event);
    }

private:
    KernelEditor* m_editor;
};

namespace {
constexpr int kMinimumDigits = 3;
constexpr int kTabWidthInSpaces = 4;
/// The strip lists this many messages at most, then how many more there are, so it never hides the text.
constexpr int kBannerMaxMessages = 4;

QColor blend(const QColor& a, const QColor& b, double t)
{
    return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * t),
        static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * t),
        static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * t));
}
} // namespace

KernelEditor::KernelEditor(QWidget* parent)
    : QPlainTextEdit(parent)
    , m_margin(new KernelEditorMargin(this))
    , m_banner(new QLabel(this))
    , m_highlighter(new CudaHighlighter(document(), isDark(palette())))
{
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setTabStopDistance(kTabWidthInSpaces * fontMetrics().horizontalAdvance(QLatin1Char(' ')));

    m_margin->setObjectName(QStringLiteral("kernelEditorMargin"));
    m_banner->setObjectName(QStringLiteral("kernelEditorBanner"));
    m_banner->setWordWrap(true);
    m_banner->setTextFormat(Qt::PlainText);
    m_banner->setAutoFillBackground(true);
    m_banner->setContentsMargins(6, 3, 6, 3);
    m_banner->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_banner->hide();

    connect(this, &QPlainTextEdit::blockCountChanged, this, [this] {
        updateBanner(); // a diagnostic past the last line may now have its line, or lose it
        layoutMargins();
    });
    connect(this, &QPlainTextEdit::updateRequest, this, &KernelEditor::updateMargin);
    connect(this, &QPlainTextEdit::cursorPositionChanged, this, [this] {
        updateExtraSelections();
        m_margin->update(); // the current line's number is drawn in bold
    });
    layoutMargins();
    updateExtraSelections();
}

int KernelEditor::lineNumberAreaWidth() const
{
    int digits = 1;
    for (int n = std::max(1, blockCount()); n >= 10; n /= 10)
        ++digits;
    digits = std::max(digits, kMinimumDigits);
    const QFontMetrics metrics = fontMetrics();
    const int markColumn = metrics.height();
    return markColumn + digits * metrics.horizontalAdvance(QLatin1Char('9'))
        + metrics.horizontalAdvance(QLatin1Char(' '));
}

void KernelEditor::layoutMargins()
{
    const QRect r = contentsRect();
    const int marginWidth = lineNumberAreaWidth();
    int bannerHeight = 0;
    if (!m_banner->isHidden()) {
        bannerHeight = m_banner->heightForWidth(r.width());
        if (bannerHeight < 0)
            bannerHeight = m_banner->sizeHint().height();
        m_banner->setGeometry(QRect(r.left(), r.top(), r.width(), bannerHeight));
    }
    setViewportMargins(marginWidth, bannerHeight, 0, 0);
    m_margin->setGeometry(QRect(r.left(), r.top() + bannerHeight, marginWidth, r.height() - bannerHeight));
}

void KernelEditor::updateMargin(const QRect& rect, int dy)
{
    if (dy != 0)
        m_margin->scroll(0, dy);
    else
        m_margin->update(0, rect.y(), m_margin->width(), rect.height());
    if (rect.contains(viewport()->rect()))
        layoutMargins();
}

void KernelEditor::resizeEvent(QResizeEvent* event)
{
    QPlainTextEdit::resizeEvent(event);
    layoutMargins();
}

void KernelEditor::changeEvent(QEvent* event)
{
    QPlainTextEdit::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::ApplicationPaletteChange)
        applyPalette();
    else if (event->type() == QEvent::FontChange) {
        setTabStopDistance(kTabWidthInSpaces * fontMetrics().horizontalAdvance(QLatin1Char(' ')));
        layoutMargins();
    }
}

void KernelEditor::applyPalette()
{
    m_highlighter->setDark(isDark(palette()));
    updateExtraSelections();
    updateBanner();
    m_margin->update();
}

QColor KernelEditor::diagnosticColor(bool error) const
{
    const bool dark = isDark(palette());
    if (error)
        return dark ? alarmColor().lighter(135) : alarmColor();
    // Okabe & Ito's orange: amber that reads as "warning" on both backgrounds.
    return dark ? QColor(0xf0, 0xb0, 0x30) : QColor(0xd5, 0x8a, 0x00);
}

void KernelEditor::setDiagnostics(const QList<KernelDiagnostic>& diagnostics)
{
    m_diagnostics = diagnostics;
    m_lineSeverity.clear();
    for (const KernelDiagnostic& d : m_diagnostics)
        if (d.line > 0)
            m_lineSeverity[d.line] = m_lineSeverity.value(d.line, false) || d.error;
    updateExtraSelections();
    updateBanner();
    layoutMargins();
    m_margin->update();
}

QString KernelEditor::bannerText() const
{
    QStringList texts;
    int unplaced = 0;
    for (const KernelDiagnostic& d : m_diagnostics) {
        if (d.line > 0 && d.line <= blockCount())
            continue;
        if (++unplaced <= kBannerMaxMessages)
            texts.append((d.error ? QStringLiteral("error: ") : QStringLiteral("warning: ")) + d.message);
    }
    if (unplaced > kBannerMaxMessages)
        texts.append(tr("… and %n more", nullptr, unplaced - kBannerMaxMessages));
    return texts.join(QLatin1Char('\n'));
}

void KernelEditor::setBannerEnabled(bool enabled)
{
    m_bannerEnabled = enabled;
    updateBanner();
    layoutMargins();
}

void KernelEditor::updateBanner()
{
    const QString text = bannerText();
    bool anyError = false;
    for (const KernelDiagnostic& d : m_diagnostics)
        anyError = anyError || ((d.line <= 0 || d.line > blockCount()) && d.error);
    m_banner->setText(text);
    QPalette pal = palette();
    const QColor base = pal.color(QPalette::Base);
    pal.setColor(QPalette::Window, blend(base, diagnosticColor(anyError), isDark(pal) ? 0.25 : 0.14));
    pal.setColor(QPalette::WindowText, pal.color(QPalette::Text));
    m_banner->setPalette(pal);
    m_banner->setVisible(m_bannerEnabled && !text.isEmpty());
}

QString KernelEditor::marginToolTip(int line) const
{
    if (line <= 0)
        return {};
    QStringList texts;
    for (const KernelDiagnostic& d : m_diagnostics)
        if (d.line == line)
            texts.append((d.error ? QStringLiteral("error: ") : QStringLiteral("warning: ")) + d.message);
    return texts.join(QLatin1Char('\n'));
}

void KernelEditor::goToLine(int line)
{
    const int number = std::clamp(line, 1, std::max(1, blockCount()));
    QTextCursor cursor(document()->findBlockByNumber(number - 1));
    setTextCursor(cursor);
    centerCursor();
    setFocus(Qt::OtherFocusReason);
}

int KernelEditor::lineAtMarginY(int y) const
{
    QTextBlock block = firstVisibleBlock();
    const QPointF offset = contentOffset();
    while (block.isValid()) {
        const QRectF geometry = blockBoundingGeometry(block).translated(offset);
        if (geometry.top() > y)
            break;
        if (block.isVisible() && y < geometry.bottom())
            return block.blockNumber() + 1;
        block = block.next();
    }
    return 0;
}

void KernelEditor::updateExtraSelections()
{
    QList<QTextEdit::ExtraSelection> selections;
    const bool dark = isDark(palette());

    QTextEdit::ExtraSelection current;
    QColor currentColour = palette().color(QPalette::Highlight);
    currentColour.setAlpha(dark ? 48 : 28);
    current.format.setBackground(currentColour);
    current.format.setProperty(QTextFormat::FullWidthSelection, true);
    current.cursor = textCursor();
    current.cursor.clearSelection();
    selections.append(current);

    for (auto it = m_lineSeverity.cbegin(); it != m_lineSeverity.cend(); ++it) {
        const QTextBlock block = document()->findBlockByNumber(it.key() - 1);
        if (!block.isValid())
            continue;
        const QColor colour = diagnosticColor(it.value());

        QTextEdit::ExtraSelection line;
        QColor background = colour;
        background.setAlpha(dark ? 56 : 36);
        line.format.setBackground(background);
        line.format.setProperty(QTextFormat::FullWidthSelection, true);
        line.cursor = QTextCursor(block);
        selections.append(line);

        // The wavy underline under the line's text, from its first non-blank character.
        const QString text = block.text();
        const int first = static_cast<int>(text.indexOf(QRegularExpression(QStringLiteral("\\S"))));
        if (first >= 0) {
            QTextEdit::ExtraSelection squiggle;
            squiggle.format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
            squiggle.format.setUnderlineColor(colour);
            squiggle.cursor = QTextCursor(block);
            squiggle.cursor.setPosition(block.position() + first);
            squiggle.cursor.setPosition(block.position() + static_cast<int>(text.size()), QTextCursor::KeepAnchor);
            selections.append(squiggle);
        }
    }
    setExtraSelections(selections);
}

void KernelEditor::paintMargin(QPaintEvent* event)
{
    QPainter painter(m_margin);
    const QPalette pal = palette();
    const bool dark = isDark(pal);
    const QColor background = pal.color(QPalette::Window);
    painter.fillRect(event->rect(), background);
    painter.setPen(pal.color(QPalette::Mid));
    painter.drawLine(m_margin->width() - 1, event->rect().top(), m_margin->width() - 1, event->rect().bottom());

    const QFontMetrics metrics = fontMetrics();
    const int markColumn = metrics.height();
    const int numberRight = m_margin->width() - metrics.horizontalAdvance(QLatin1Char(' ')) / 2 - 1;
    const int currentLine = textCursor().blockNumber();
    QColor numberColour = pal.color(QPalette::Text);
    numberColour.setAlphaF(dark ? 0.5f : 0.55f);
    QFont boldFont = font();
    boldFont.setBold(true);

    painter.setRenderHint(QPainter::Antialiasing, true);
    QTextBlock block = firstVisibleBlock();
    const QPointF offset = contentOffset();
    while (block.isValid()) {
        const QRectF geometry = blockBoundingGeometry(block).translated(offset);
        if (geometry.top() > event->rect().bottom())
            break;
        if (block.isVisible() && geometry.bottom() >= event->rect().top()) {
            const int number = block.blockNumber() + 1;
            const int top = static_cast<int>(geometry.top());
            const auto severity = m_lineSeverity.constFind(number);
            const bool marked = severity != m_lineSeverity.cend();
            if (marked) {
                const QColor colour = diagnosticColor(severity.value());
                const qreal diameter = metrics.height() * 0.6;
                const QRectF dot(
                    (markColumn - diameter) / 2.0, top + (metrics.height() - diameter) / 2.0, diameter, diameter);
                painter.setPen(Qt::NoPen);
                painter.setBrush(colour);
                if (severity.value())
                    painter.drawEllipse(dot);
                else {
                    // A warning is a triangle, so the two differ by shape as well as colour.
                    const QPolygonF triangle(
                        {QPointF(dot.center().x(), dot.top()), dot.bottomRight(), dot.bottomLeft()});
                    painter.drawPolygon(triangle);
                }
            }
            const bool current = number - 1 == currentLine;
            painter.setFont(current || marked ? boldFont : font());
            painter.setPen(marked ? diagnosticColor(severity.value())
                    : current     ? pal.color(QPalette::Text)
                                  : numberColour);
            painter.drawText(QRect(markColumn, top, numberRight - markColumn, metrics.height()),
                Qt::AlignRight | Qt::AlignVCenter, QString::number(number));
        }
        block = block.next();
    }
}

} // namespace ks::gui
