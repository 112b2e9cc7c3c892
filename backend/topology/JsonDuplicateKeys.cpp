#include "JsonDuplicateKeys.h"

#include <QHash>
#include <QList>

#include "PrintableText.h"

namespace hips {

namespace {

class DuplicateKeyScanner {
public:
    explicit DuplicateKeyScanner(const QByteArray& json) : m_s(json) {}

    TopologyIssues run() {
        while (skipSpace()) {
            const char c = m_s[m_pos];
            if (c == '{' || c == '[') open(c == '{');
            else if (c == '}' || c == ']') close();
            else if (c == ',') comma();
            else if (c == '"') string();
            else if (c == ':') ++m_pos;
            else scalar();
        }
        return m_issues;
    }

private:
    struct Frame {
        bool object = false;
        QString path;
        int index = 0;  // arrays: the element being read
        bool expectKey = false;  // objects: the next string is a key
        QString key;  // objects: the key of the value being read
        QHash<QString, int> keyLines;  // objects: every key so far and its line
    };

    bool skipSpace() {
        for (; m_pos < m_s.size(); ++m_pos) {
            const char c = m_s[m_pos];
            if (c == '\n') ++m_line;
            else if (c != ' ' && c != '\t' && c != '\r') return true;
        }
        return false;
    }

    QString valuePath() const {
        if (m_stack.isEmpty()) return QStringLiteral("$");
        const Frame& f = m_stack.last();
        return f.object ? f.path + QLatin1Char('.') + f.key : QStringLiteral("%1[%2]").arg(f.path).arg(f.index);
    }

    void open(bool object) {
        Frame f;
        f.object = object;
        f.path = valuePath();
        f.expectKey = object;
        m_stack.append(std::move(f));
        ++m_pos;
    }

    void close() {
        if (!m_stack.isEmpty()) m_stack.removeLast();
        ++m_pos;
    }

    void comma() {
        if (!m_stack.isEmpty()) {
            Frame& f = m_stack.last();
            if (f.object) f.expectKey = true;
            else ++f.index;
        }
        ++m_pos;
    }

    void scalar() {
        auto ends = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' || c == ']' || c == '}' || c == ':'; };
        while (m_pos < m_s.size() && !ends(m_s[m_pos])) ++m_pos;
        if (m_pos < m_s.size() && m_s[m_pos] == ':') ++m_pos;  // never stall on bad input
    }

    void string() {
        const int line = m_line;
        const QString text = readString();
        if (m_stack.isEmpty() || !m_stack.last().object || !m_stack.last().expectKey) return;
        Frame& f = m_stack.last();
        f.expectKey = false;
        f.key = text;
        const auto first = f.keyLines.constFind(text);
        if (first == f.keyLines.cend()) {
            f.keyLines.insert(text, line);
            return;
        }
        m_issues.append({f.path + QLatin1Char('.') + printableText(text, 64),
                         QStringLiteral("duplicate key \"%1\" on line %2 (first on line %3); a JSON reader "
                                        "keeps only one of them silently, so remove the other")
                             .arg(printableText(text, 64))
                             .arg(line)
                             .arg(*first)});
    }

    // Reads the string starting at m_pos (the opening quote) and decodes its escapes.
    QString readString() {
        QString out;
        QByteArray raw;
        auto flush = [&] {
            out += QString::fromUtf8(raw);
            raw.clear();
        };
        for (++m_pos; m_pos < m_s.size(); ++m_pos) {
            const char c = m_s[m_pos];
            if (c == '"') {
                ++m_pos;
                break;
            }
            if (c != '\\' || m_pos + 1 >= m_s.size()) {
                raw.append(c);
                continue;
            }
            flush();
            const char e = m_s[++m_pos];
            switch (e) {
                case 'b': out += QLatin1Char('\b'); break;
                case 'f': out += QLatin1Char('\f'); break;
                case 'n': out += QLatin1Char('\n'); break;
                case 'r': out += QLatin1Char('\r'); break;
                case 't': out += QLatin1Char('\t'); break;
                case 'u': {
                    bool ok = false;
                    const ushort unit = m_s.mid(m_pos + 1, 4).toUShort(&ok, 16);
                    if (ok && m_pos + 4 < m_s.size()) {
                        out += QChar(unit);  // a surrogate pair arrives as two escapes, as in the text
                        m_pos += 4;
                    }
                    break;
                }
                default: out += QLatin1Char(e); break;  // \" \\ \/
            }
        }
        flush();
        return out;
    }

    const QByteArray& m_s;
    qsizetype m_pos = 0;
    int m_line = 1;
    QList<Frame> m_stack;
    TopologyIssues m_issues;
};

}  // namespace

TopologyIssues duplicateKeyIssues(const QByteArray& json) {
    return DuplicateKeyScanner(json).run();
}

}  // namespace hips
