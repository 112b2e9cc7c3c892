#include "PrintableText.h"

#include <QChar>

namespace hips {

namespace {

QString hex(char32_t value, int width) {
    return QString::number(static_cast<uint>(value), 16).rightJustified(width, QLatin1Char('0'));
}

void appendEscaped(QString& out, char32_t c) {
    switch (c) {
        case U'\n': out += QLatin1String("\\n"); return;
        case U'\r': out += QLatin1String("\\r"); return;
        case U'\t': out += QLatin1String("\\t"); return;
        default: break;
    }
    if (c < 0x80) out += QLatin1String("\\x") + hex(c, 2);
    else if (c <= 0xFFFF) out += QLatin1String("\\u") + hex(c, 4);
    else out += QLatin1String("\\U") + hex(c, 8);
}

void appendCodePoint(QString& out, char32_t c) {
    if (isUnprintable(c)) appendEscaped(out, c);
    else out += QStringView(QChar::fromUcs4(c));
}

// Length of the well-formed UTF-8 sequence at p (RFC 3629, Unicode table 3-7), 0 if ill-formed.
int decodeUtf8(const uchar* p, qsizetype n, char32_t* out) {
    const uchar b0 = p[0];
    if (b0 < 0x80) {
        *out = b0;
        return 1;
    }
    int len = 0;
    char32_t c = 0, min = 0;
    if ((b0 & 0xE0) == 0xC0) len = 2, c = b0 & 0x1F, min = 0x80;
    else if ((b0 & 0xF0) == 0xE0) len = 3, c = b0 & 0x0F, min = 0x800;
    else if ((b0 & 0xF8) == 0xF0) len = 4, c = b0 & 0x07, min = 0x10000;
    else return 0;
    if (n < len) return 0;
    for (int i = 1; i < len; ++i) {
        if ((p[i] & 0xC0) != 0x80) return 0;
        c = (c << 6) | (p[i] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return 0;
    *out = c;
    return len;
}

void appendCut(QString& out, qsizetype total) {
    out += QStringLiteral("... (%1 characters)").arg(total);
}

}  // namespace

bool isUnprintable(char32_t c) {
    if (c < 0x20 || (c >= 0x7F && c <= 0x9F) || c > 0x10FFFF) return true;
    switch (QChar::category(c)) {
        case QChar::Other_Control:  // C0, DEL, C1 (also caught above)
        case QChar::Other_Format:  // bidi controls, zero-width characters, BOM, ALM U+061C
        case QChar::Other_Surrogate:  // a lone surrogate
        case QChar::Other_PrivateUse:
        case QChar::Other_NotAssigned:  // unassigned and noncharacters (U+FFFE, U+FFFF, ...)
        case QChar::Separator_Line:  // U+2028
        case QChar::Separator_Paragraph:  // U+2029
            return true;
        default: return false;
    }
}

QString printableText(QStringView text, qsizetype maxChars) {
    QString out;
    out.reserve(text.size());
    qsizetype kept = 0, total = 0;
    for (qsizetype i = 0; i < text.size(); ++i, ++total) {
        char32_t c = text[i].unicode();
        if (QChar::isHighSurrogate(c) && i + 1 < text.size() && text[i + 1].isLowSurrogate()) {
            c = QChar::surrogateToUcs4(text[i].unicode(), text[i + 1].unicode());
            ++i;
        }
        if (maxChars >= 0 && kept >= maxChars) continue;  // only counting from here on
        appendCodePoint(out, c);
        ++kept;
    }
    if (kept < total) appendCut(out, total);
    return out;
}

QString printableBytes(QByteArrayView bytes, qsizetype maxChars) {
    QString out;
    out.reserve(bytes.size());
    const auto* p = reinterpret_cast<const uchar*>(bytes.data());
    qsizetype kept = 0, total = 0;
    for (qsizetype i = 0; i < bytes.size(); ++total) {
        char32_t c = 0;
        const int len = decodeUtf8(p + i, bytes.size() - i, &c);
        const bool keep = maxChars < 0 || kept < maxChars;
        if (keep && len == 0) out += QLatin1String("\\x") + hex(p[i], 2);
        else if (keep) appendCodePoint(out, c);
        kept += keep;
        i += len == 0 ? 1 : len;
    }
    if (kept < total) appendCut(out, total);
    return out;
}

qsizetype firstInvalidUtf8(QByteArrayView bytes) {
    const auto* p = reinterpret_cast<const uchar*>(bytes.data());
    for (qsizetype i = 0; i < bytes.size();) {
        if (p[i] < 0x80) {  // the common case, without the call
            ++i;
            continue;
        }
        char32_t c = 0;
        const int len = decodeUtf8(p + i, bytes.size() - i, &c);
        if (len == 0) return i;
        i += len;
    }
    return -1;
}

}  // namespace hips
