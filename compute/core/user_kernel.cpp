#include "compute/core/user_kernel.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <sstream>

namespace ks {

namespace linreg {
const UserKernelAbi& userKernelAbi();
}
namespace lrv {
const UserKernelAbi& userKernelAbi();
}
namespace sdh {
const UserKernelAbi& userKernelAbi();
}
namespace spmv {
const UserKernelAbi& userKernelAbi();
}

UserKernelError::UserKernelError(const std::string& file, int line, const std::string& message)
    : std::runtime_error(file + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + message)
    , m_file(file)
    , m_line(line)
    , m_message(message)
{
}

// ---------------------------------------------------------------------------------------------------------------
// Formulas: a recursive-descent parser into a small tree, evaluated in exact rationals.

struct SizeFormula::Node {
    enum class Kind { Number, Name, Add, Sub, Mul, Div, Neg, Ceil, Floor, Min, Max };
    Kind kind = Kind::Number;
    std::int64_t number = 0;
    std::string name;
    std::vector<std::shared_ptr<const Node>> args;
};

namespace {

using Node = SizeFormula::Node;
using NodePtr = std::shared_ptr<const Node>;

class FormulaParser {
public:
    FormulaParser(const std::string& text, const std::vector<std::string>& names)
        : m_text(text)
        , m_names(names)
    {
    }

    NodePtr parseAll()
    {
        NodePtr root = expression();
        skipSpace();
        if (m_pos < m_text.size())
            fail("unexpected '" + std::string(1, m_text[m_pos]) + "'");
        return root;
    }

private:
    [[noreturn]] void fail(const std::string& what) const
    {
        throw std::invalid_argument(what + " at column " + std::to_string(m_pos + 1) + " of '" + m_text + "'");
    }
    void skipSpace()
    {
        while (m_pos < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_pos])))
            ++m_pos;
    }
    bool accept(char c)
    {
        skipSpace();
        if (m_pos < m_text.size() && m_text[m_pos] == c) {
            ++m_pos;
            return true;
        }
        return false;
    }
    static NodePtr make(Node::Kind kind, std::vector<NodePtr> args)
    {
        auto node = std::make_shared<Node>();
        node->kind = kind;
        node->args = std::move(args);
        return node;
    }
    NodePtr expression()
    {
        NodePtr left = term();
        for (;;) {
            if (accept('+'))
                left = make(Node::Kind::Add, {left, term()});
            else if (accept('-'))
                left = make(Node::Kind::Sub, {left, term()});
            else
                return left;
        }
    }
    NodePtr term()
    {
        NodePtr left = unary();
        for (;;) {
            if (accept('*'))
                left = make(Node::Kind::Mul, {left, unary()});
            else if (accept('/'))
                left = make(Node::Kind::Div, {left, unary()});
            else
                return left;
        }
    }
    NodePtr unary()
    {
        if (accept('-'))
            return make(Node::Kind::Neg, {unary()});
        return primary();
    }
    NodePtr primary()
    {
        skipSpace();
        if (m_pos >= m_text.size())
            fail(m_text.empty() ? "empty formula" : "formula ends too early");
        const char c = m_text[m_pos];
        if (accept('(')) {
            NodePtr inner = expression();
            if (!accept(')'))
                fail("missing ')'");
            return inner;
        }
        if (std::isdigit(static_cast<unsigned char>(c))) {
            std::int64_t value = 0;
            while (m_pos < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_pos]))) {
                if (__builtin_mul_overflow(value, 10, &value)
                    || __builtin_add_overflow(value, m_text[m_pos] - '0', &value))
                    fail("number too large");
                ++m_pos;
            }
            auto node = std::make_shared<Node>();
            node->number = value;
            return node;
        }
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            const std::size_t start = m_pos;
            while (m_pos < m_text.size()
                && (std::isalnum(static_cast<unsigned char>(m_text[m_pos])) || m_text[m_pos] == '_'))
                ++m_pos;
            const std::string word = m_text.substr(start, m_pos - start);
            if (accept('('))
                return call(word, start);
            if (std::find(m_names.begin(), m_names.end(), word) == m_names.end()) {
                std::string known;
                for (const std::string& n : m_names)
                    known += (known.empty() ? "" : ", ") + n;
                m_pos = start;
                fail("unknown name '" + word + "' (known: " + known + ")");
            }
            auto node = std::make_shared<Node>();
            node->kind = Node::Kind::Name;
            node->name = word;
            return node;
        }
        fail("unexpected '" + std::string(1, c) + "'");
    }
    NodePtr call(const std::string& function, std::size_t start)
    {
        Node::Kind kind;
        std::size_t arity;
        if (function == "ceil")
            kind = Node::Kind::Ceil, arity = 1;
        else if (function == "floor")
            kind = Node::Kind::Floor, arity = 1;
        else if (function == "min")
            kind = Node::Kind::Min, arity = 2;
        else if (function == "max")
            kind = Node::Kind::Max, arity = 2;
        else {
            m_pos = start;
            fail("unknown function '" + function + "' (known: ceil, floor, min, max)");
        }
        std::vector<NodePtr> args {expression()};
        while (accept(','))
            args.push_back(expression());
        if (!accept(')'))
            fail("missing ')' after the arguments of " + function);
        if (args.size() != arity) {
            m_pos = start;
            fail(function + " takes " + std::to_string(arity) + " argument" + (arity == 1 ? "" : "s") + ", not "
                + std::to_string(args.size()));
        }
        return make(kind, std::move(args));
    }

    const std::string& m_text;
    const std::vector<std::string>& m_names;
    std::size_t m_pos = 0;
};

// __int128 holds a product of two 64-bit values exactly (a GCC and Clang extension, hence __extension__).
__extension__ typedef __int128 Wide;

/// num / den with den > 0, in lowest terms.
struct Rational {
    std::int64_t num = 0;
    std::int64_t den = 1;
};

[[noreturn]] void overflow(const std::string& text)
{
    throw std::invalid_argument("'" + text + "' overflows 64 bits");
}

Rational normalised(Wide num, Wide den, const std::string& text)
{
    if (den < 0)
        num = -num, den = -den;
    Wide a = num < 0 ? -num : num, b = den;
    while (b != 0) {
        const Wide t = a % b;
        a = b;
        b = t;
    }
    if (a > 1)
        num /= a, den /= a;
    constexpr Wide kMax = std::numeric_limits<std::int64_t>::max();
    if (num > kMax || num < -kMax || den > kMax)
        overflow(text);
    return {static_cast<std::int64_t>(num), static_cast<std::int64_t>(den)};
}

std::int64_t floorOf(Rational r)
{
    std::int64_t q = r.num / r.den;
    if (r.num % r.den != 0 && r.num < 0)
        --q;
    return q;
}

Rational evaluateNode(const Node& node, const std::map<std::string, std::int64_t>& values, const std::string& text)
{
    using K = Node::Kind;
    switch (node.kind) {
    case K::Number:
        return {node.number, 1};
    case K::Name: {
        const auto it = values.find(node.name);
        if (it == values.end())
            throw std::invalid_argument("no value for '" + node.name + "' in '" + text + "'");
        return {it->second, 1};
    }
    case K::Neg: {
        const Rational a = evaluateNode(*node.args[0], values, text);
        return {-a.num, a.den};
    }
    case K::Ceil:
    case K::Floor: {
        const Rational a = evaluateNode(*node.args[0], values, text);
        const std::int64_t f = floorOf(a);
        return {node.kind == K::Floor || a.den == 1 ? f : f + 1, 1};
    }
    default:
        break;
    }
    const Rational a = evaluateNode(*node.args[0], values, text);
    const Rational b = evaluateNode(*node.args[1], values, text);
    const Wide an = a.num, ad = a.den, bn = b.num, bd = b.den;
    switch (node.kind) {
    case K::Add:
        return normalised(an * bd + bn * ad, ad * bd, text);
    case K::Sub:
        return normalised(an * bd - bn * ad, ad * bd, text);
    case K::Mul:
        return normalised(an * bn, ad * bd, text);
    case K::Div:
        if (bn == 0)
            throw std::invalid_argument("division by zero in '" + text + "'");
        return normalised(an * bd, ad * bn, text);
    case K::Min:
        return an * bd <= bn * ad ? a : b;
    case K::Max:
        return an * bd >= bn * ad ? a : b;
    default:
        throw std::logic_error("unhandled formula node");
    }
}

} // namespace

SizeFormula SizeFormula::parse(const std::string& text, const std::vector<std::string>& names)
{
    SizeFormula formula;
    formula.m_text = text;
    formula.m_root = FormulaParser(text, names).parseAll();
    return formula;
}

std::int64_t SizeFormula::evaluate(const std::map<std::string, std::int64_t>& values) const
{
    if (!m_root)
        return 0;
    const Rational r = evaluateNode(*m_root, values, m_text);
    if (r.den != 1) {
        std::ostringstream s;
        s << "'" << m_text << "' is " << r.num << "/" << r.den << ", not an integer (round it with ceil or floor)";
        throw std::invalid_argument(s.str());
    }
    return r.num;
}

// ---------------------------------------------------------------------------------------------------------------
// The launch declaration.

namespace {

constexpr std::string_view kMarker = "kernelscope:";

/// True when `line` is a "// kernelscope:" comment; `text` then holds what follows the marker.
bool declarationText(const std::string& line, std::string& text)
{
    std::size_t pos = line.find_first_not_of(" \t");
    if (pos == std::string::npos || line.compare(pos, 2, "//") != 0)
        return false;
    pos = line.find_first_not_of(" \t", pos + 2);
    if (pos == std::string::npos || line.compare(pos, kMarker.size(), kMarker) != 0)
        return false;
    text = line.substr(pos + kMarker.size());
    if (!text.empty() && text.back() == '\r')
        text.pop_back();
    return true;
}

/// Splits "kernel=a block=256 grid=min(ceil(n/256), 4*sm_count)" into key/value pairs: a new pair starts at a word
/// followed by '=' outside parentheses, so spaces inside a formula are fine.
std::vector<std::pair<std::string, std::string>> keyValues(
    const std::string& text, const std::string& fileName, int lineNumber)
{
    std::vector<std::string> tokens;
    std::string current;
    int depth = 0;
    for (char c : text) {
        if (c == '(')
            ++depth;
        else if (c == ')')
            --depth;
        if (depth <= 0 && std::isspace(static_cast<unsigned char>(c))) {
            if (!current.empty())
                tokens.push_back(current), current.clear();
            continue;
        }
        current += c;
    }
    if (!current.empty())
        tokens.push_back(current);

    auto startsPair = [](const std::string& token) {
        const std::size_t eq = token.find('=');
        if (eq == std::string::npos || eq == 0)
            return false;
        return std::all_of(token.begin(), token.begin() + static_cast<std::ptrdiff_t>(eq), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
        }) && !std::isdigit(static_cast<unsigned char>(token[0]));
    };
    std::vector<std::pair<std::string, std::string>> pairs;
    for (const std::string& token : tokens) {
        if (startsPair(token)) {
            const std::size_t eq = token.find('=');
            pairs.emplace_back(token.substr(0, eq), token.substr(eq + 1));
        } else if (!pairs.empty()) {
            pairs.back().second += " " + token;
        } else {
            throw UserKernelError(fileName, lineNumber, "expected key=value, found '" + token + "'");
        }
    }
    return pairs;
}

bool isIdentifier(const std::string& s)
{
    return !s.empty() && (std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')
        && std::all_of(
            s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

} // namespace

LaunchDeclaration parseLaunchDeclaration(
    const std::string& source, const std::string& fileName, const std::vector<std::string>& sizeNames)
{
    std::vector<std::string> names = sizeNames;
    names.emplace_back(kSmCountName);
    LaunchDeclaration declaration;
    declaration.scratch = SizeFormula::parse("0", names);

    auto formula = [&](const std::string& key, const std::string& value, int lineNumber) {
        try {
            return SizeFormula::parse(value, names);
        } catch (const std::invalid_argument& e) {
            throw UserKernelError(fileName, lineNumber, key + ": " + e.what());
        }
    };

    std::istringstream lines(source);
    std::string line, text;
    int lineNumber = 0;
    while (std::getline(lines, line)) {
        ++lineNumber;
        if (!declarationText(line, text))
            continue;
        const auto pairs = keyValues(text, fileName, lineNumber);
        if (pairs.empty())
            throw UserKernelError(fileName, lineNumber, "empty kernelscope declaration");
        std::map<std::string, std::string> seen;
        for (const auto& [key, value] : pairs) {
            if (key != "kernel" && key != "block" && key != "grid" && key != "shared" && key != "scratch")
                throw UserKernelError(
                    fileName, lineNumber, "unknown key '" + key + "' (known: kernel, block, grid, shared, scratch)");
            if (!seen.emplace(key, value).second)
                throw UserKernelError(fileName, lineNumber, "'" + key + "' given twice");
            if (value.empty())
                throw UserKernelError(fileName, lineNumber, "'" + key + "' has no value");
        }
        if (seen.count("scratch")) {
            if (seen.size() != 1)
                throw UserKernelError(fileName, lineNumber, "scratch= goes on a line of its own");
            if (declaration.scratchLine != 0)
                throw UserKernelError(fileName, lineNumber,
                    "scratch is already declared on line " + std::to_string(declaration.scratchLine));
            declaration.scratch = formula("scratch", seen["scratch"], lineNumber);
            declaration.scratchLine = lineNumber;
            continue;
        }
        for (const char* required : {"kernel", "block", "grid"})
            if (!seen.count(required))
                throw UserKernelError(fileName, lineNumber, std::string("missing ") + required + "=");
        if (!isIdentifier(seen["kernel"]))
            throw UserKernelError(fileName, lineNumber, "kernel name '" + seen["kernel"] + "' is not an identifier");
        LaunchStep step;
        step.kernel = seen["kernel"];
        step.block = formula("block", seen["block"], lineNumber);
        step.grid = formula("grid", seen["grid"], lineNumber);
        step.shared = formula("shared", seen.count("shared") ? seen["shared"] : "0", lineNumber);
        step.line = lineNumber;
        declaration.steps.push_back(std::move(step));
    }
    if (declaration.steps.empty())
        throw UserKernelError(fileName, 0,
            "no launch declaration: add a line such as '// kernelscope: kernel=my_kernel block=256 grid=ceil(n/256)' "
            "(see kernelscope-cli new-kernel)");
    return declaration;
}

LaunchPlan evaluateLaunches(const LaunchDeclaration& declaration, const std::map<std::string, std::int64_t>& values,
    const std::string& fileName)
{
    auto evaluate = [&](const SizeFormula& f, const char* key, int line, std::int64_t lo, std::int64_t hi) {
        std::int64_t v = 0;
        try {
            v = f.evaluate(values);
        } catch (const std::invalid_argument& e) {
            throw UserKernelError(fileName, line, std::string(key) + ": " + e.what());
        }
        if (v < lo || v > hi)
            throw UserKernelError(fileName, line,
                std::string(key) + " = " + std::to_string(v) + " ('" + f.text() + "') is outside " + std::to_string(lo)
                    + " … " + std::to_string(hi));
        return v;
    };
    LaunchPlan plan;
    plan.scratchBytes = static_cast<std::uint64_t>(
        evaluate(declaration.scratch, "scratch", declaration.scratchLine, 0, std::numeric_limits<std::int64_t>::max()));
    for (const LaunchStep& step : declaration.steps) {
        Launch launch;
        launch.kernel = step.kernel;
        launch.block = static_cast<unsigned>(evaluate(step.block, "block", step.line, 1, 1024));
        launch.grid = static_cast<unsigned>(evaluate(step.grid, "grid", step.line, 0, 0x7fffffff));
        launch.shared = static_cast<unsigned>(evaluate(step.shared, "shared", step.line, 0, 0xffffffff));
        plan.launches.push_back(std::move(launch));
    }
    return plan;
}

// ---------------------------------------------------------------------------------------------------------------
// The ABIs.

const UserKernelAbi* findUserKernelAbi(std::string_view workload)
{
    static const UserKernelAbi* const kAbis[]
        = {&linreg::userKernelAbi(), &lrv::userKernelAbi(), &sdh::userKernelAbi(), &spmv::userKernelAbi()};
    for (const UserKernelAbi* abi : kAbis)
        if (abi->workload == workload)
            return abi;
    return nullptr;
}

std::vector<std::string> userKernelWorkloads()
{
    return {"linreg", "lrv", "sdh", "spmv"};
}

namespace {
/// A string literal for a #line directive: backslashes and quotes escaped.
std::string quoted(const std::string& text)
{
    std::string out = "\"";
    for (char c : text) {
        if (c == '\\' || c == '"')
            out += '\\';
        if (c == '\n' || c == '\r')
            continue;
        out += c;
    }
    return out + "\"";
}
} // namespace

std::string userKernelProgram(const UserKernelAbi& abi, const std::string& userSource, const std::string& fileName)
{
    std::string program = "#line 1 \"kernelscope_" + abi.workload + "_abi.h\"\n" + abi.header;
    if (!program.empty() && program.back() != '\n')
        program += '\n';
    // The device struct must have the host mirror's size: a run passes the host struct's bytes as the kernels' only
    // parameter. (NVRTC has no constant offsetof; the fields' order and natural alignment are the same on both sides,
    // as for every CUDA kernel parameter.)
    program += "static_assert(sizeof(" + abi.argsType + ") == " + std::to_string(abi.argsBytes)
        + ", \"KernelScope ABI: " + abi.argsType + " differs from the host's layout\");\n";
    program += "#line 1 " + quoted(fileName) + "\n";
    program += userSource;
    return program;
}

} // namespace ks
