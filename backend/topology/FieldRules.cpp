#include "FieldRules.h"

#include <arpa/inet.h>

#include <QCoreApplication>
#include <QChar>
#include <QList>

#include "PrintableText.h"
#include "TopologyLimits.h"

namespace hips {

namespace {

struct CodePoint {
    char32_t value;
    qsizetype position;  // 1-based, in characters
};

// The code points of `text`; a lone surrogate stays one (unpaired) code point.
QList<CodePoint> codePoints(QStringView text) {
    QList<CodePoint> out;
    out.reserve(text.size());
    for (qsizetype i = 0; i < text.size(); ++i) {
        char32_t c = text[i].unicode();
        if (QChar::isHighSurrogate(c) && i + 1 < text.size() && text[i + 1].isLowSurrogate()) {
            c = QChar::surrogateToUcs4(text[i].unicode(), text[i + 1].unicode());
            ++i;
        }
        out.append({c, out.size() + 1});
    }
    return out;
}

bool isBidiControl(char32_t c) {
    return c == 0x061C || c == 0x200E || c == 0x200F || (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
}

// Why c is refused, for a message: "\u202e (a bidi control)".
QString describe(char32_t c, bool inId) {
    QString kind;
    if (c >= 0xD800 && c <= 0xDFFF) kind = QCoreApplication::translate("TopologyCheck", "a lone surrogate, not a character");
    else if (c < 0x20 || (c >= 0x7F && c <= 0x9F)) kind = QCoreApplication::translate("TopologyCheck", "a control character");
    else if (isBidiControl(c)) kind = QCoreApplication::translate("TopologyCheck", "a bidi control, which reorders how text is shown");
    else if (QChar::isSpace(c)) kind = QStringLiteral("whitespace");
    else if (c == U'/' && inId) kind = QCoreApplication::translate("TopologyCheck", "'/', which separates party and role in node ids");
    else if (QChar::category(c) == QChar::Other_Format)
        kind = QCoreApplication::translate("TopologyCheck", "an invisible format character");
    else if (isUnprintable(c)) kind = QCoreApplication::translate("TopologyCheck", "not a printable character");
    else kind = QCoreApplication::translate("TopologyCheck", "not allowed here");
    // One code point as a string; a lone surrogate stays itself (fromUcs4 would replace it).
    const QString ch = c <= 0xFFFF ? QString(QChar(static_cast<char16_t>(c))) : QStringView(QChar::fromUcs4(c)).toString();
    QString shown;
    if (isUnprintable(c)) shown = printableText(ch);
    else if (c == U' ' || !QChar::isSpace(c)) shown = QLatin1Char('\'') + ch + QLatin1Char('\'');
    else shown = QStringLiteral("\\u%1").arg(static_cast<uint>(c), 4, 16,
                                             QLatin1Char('0'));  // U+00A0...
    return QStringLiteral("%1 (%2)").arg(shown, kind);
}

QString quoted(QStringView text) {
    return QLatin1Char('\'') + printableText(text, 40) + QLatin1Char('\'');
}

QString badCharacter(const QString& what, QStringView text, const CodePoint& c, const QString& fix, bool inId = false) {
    // One arg() call: the quoted text may itself hold "%1", which a chained arg() would replace.
    return QCoreApplication::translate("TopologyCheck", "%1 %2 contains %3 at character %4; %5")
        .arg(what, quoted(text), describe(c.value, inId), QString::number(c.position), fix);
}

QString tooLong(const QString& what, QStringView text, qsizetype length, qsizetype max) {
    return QCoreApplication::translate("TopologyCheck", "%1 %2 is %3 characters long; use at most %4")
        .arg(what, quoted(text), QString::number(length), QString::number(max));
}

bool isIdCharacter(char32_t c, bool first) {
    if (QChar::isLetter(c) || QChar::category(c) == QChar::Number_DecimalDigit || c == U'_') return true;
    if (first) return false;
    return c == U'-' || c == U'.' || QChar::isMark(c);
}

bool isAsciiDigit(QChar c) {
    return c >= QLatin1Char('0') && c <= QLatin1Char('9');
}

bool isIpv4(QStringView a) {
    const auto parts = a.split(QLatin1Char('.'));
    if (parts.size() != 4) return false;
    for (QStringView p : parts) {
        if (p.isEmpty() || p.size() > 3 || (p.size() > 1 && p[0] == QLatin1Char('0'))) return false;
        for (QChar c : p)
            if (!isAsciiDigit(c)) return false;
        if (p.toInt() > 255) return false;
    }
    return true;
}

bool isIpv6(QStringView a) {
    in6_addr out{};
    return inet_pton(AF_INET6, a.toLatin1().constData(), &out) == 1;
}

QString hostNameProblem(QStringView a, const QString& what) {
    const auto labels = a.split(QLatin1Char('.'));
    for (QStringView l : labels) {
        if (l.isEmpty())
            return QCoreApplication::translate("TopologyCheck",
                                               "%1 %2 has an empty label (two dots, or a dot at either end); "
                                               "write the host name without them")
                .arg(what, quoted(a));
        if (l.size() > kMaxHostLabelLength)
            return QCoreApplication::translate("TopologyCheck", "%1 %2 has a label of %3 characters; a DNS label has at most %4")
                .arg(what, quoted(a), QString::number(l.size()), QString::number(kMaxHostLabelLength));
        if (l.startsWith(QLatin1Char('-')) || l.endsWith(QLatin1Char('-')))
            return QCoreApplication::translate("TopologyCheck", "%1 %2 has a label that starts or ends with '-'; a host name cannot")
                .arg(what, quoted(a));
    }
    bool numeric = true;
    for (QChar c : labels.last()) numeric = numeric && isAsciiDigit(c);
    if (numeric)
        return QCoreApplication::translate("TopologyCheck",
                                           "%1 %2 is neither an IPv4 address (four numbers 0-255, no leading zeros) "
                                           "nor a host name (its last label is a number)")
            .arg(what, quoted(a));
    return {};
}

}  // namespace

QString idProblem(QStringView id, const QString& what) {
    if (id.isEmpty())
        return QCoreApplication::translate("TopologyCheck", "%1 is empty; give it a name of letters, digits, '_', '-' or '.'").arg(what);
    const QList<CodePoint> cps = codePoints(id);
    for (const CodePoint& c : cps) {
        if (isIdCharacter(c.value, c.position == 1)) continue;
        if (c.position == 1 && (c.value == U'-' || c.value == U'.' || QChar::isMark(c.value)))
            return QCoreApplication::translate("TopologyCheck", "%1 %2 starts with %3; start it with a letter, a digit or '_'")
                .arg(what, quoted(id), quoted(id.left(c.value > 0xFFFF ? 2 : 1)));
        return badCharacter(what, id, c, QCoreApplication::translate("TopologyCheck", "use only letters, digits, '_', '-' and '.'"), true);
    }
    if (cps.size() > kMaxIdLength) return tooLong(what, id, cps.size(), kMaxIdLength);
    return {};
}

QString hostAddressProblem(QStringView a, const QString& what) {
    if (a.isEmpty())
        return QCoreApplication::translate("TopologyCheck", "%1 is empty; give an IPv4 or IPv6 address or a host name").arg(what);
    const QList<CodePoint> cps = codePoints(a);
    if (cps.size() > kMaxHostNameLength) return tooLong(what, a, cps.size(), kMaxHostNameLength);
    for (const CodePoint& c : cps) {
        const bool ok = (c.value < 0x80 && (QChar::isLetterOrNumber(c.value) || c.value == U'.' || c.value == U'-' || c.value == U':'));
        if (!ok)
            return badCharacter(what, a, c,
                                QCoreApplication::translate("TopologyCheck",
                                                            "give an IPv4 or IPv6 address or a host name "
                                                            "(letters A-Z, digits, '-' and '.'; "
                                                            "international names in their xn-- form)"));
    }
    if (a.contains(QLatin1Char(':'))) {
        if (isIpv6(a)) return {};
        return QCoreApplication::translate("TopologyCheck", "%1 %2 is not a valid IPv6 address; write it without brackets or port")
            .arg(what, quoted(a));
    }
    if (isIpv4(a)) return {};
    return hostNameProblem(a, what);
}

QString textProblem(QStringView text, qsizetype maxLength, const QString& what) {
    const QList<CodePoint> cps = codePoints(text);
    for (const CodePoint& c : cps)
        if (isUnprintable(c.value)) return badCharacter(what, text, c, QCoreApplication::translate("TopologyCheck", "remove it"));
    if (cps.size() > maxLength) return tooLong(what, text, cps.size(), maxLength);
    return {};
}

QString userNameProblem(QStringView user, const QString& what) {
    if (QString p = textProblem(user, kMaxNameLength, what); !p.isEmpty()) return p;
    for (const CodePoint& c : codePoints(user))
        if (QChar::isSpace(c.value)) return badCharacter(what, user, c, QCoreApplication::translate("TopologyCheck", "remove it"));
    if (user.startsWith(QLatin1Char('-')))
        return QCoreApplication::translate("TopologyCheck", "%1 %2 starts with '-'; a user name cannot").arg(what, quoted(user));
    return {};
}

}  // namespace hips
