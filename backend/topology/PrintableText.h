#pragma once
// Escaping of untrusted text for logs, history rows and error messages: a peer name, a routing id
// or an id from a topology file must never move the cursor, reorder a line (bidi controls), start a
// forged log line or cut a C string (NUL). The output holds only printable characters:
//   "\n" "\r" "\t"        for newline, carriage return, tab (two characters each)
//   "\xNN"                other ASCII controls and DEL, and (printableBytes) bytes that are not
//   UTF-8
//   "\uNNNN"              C1 controls, bidi and other format characters, line/paragraph separators,
//                         private-use, unassigned and noncharacters, lone surrogates
//   "\UNNNNNNNN"          the same above U+FFFF (e.g. tag characters)
// A backslash is kept as it is, so escaping is idempotent: printableText(printableText(s)) ==
// printableText(s).
#include <QByteArrayView>
#include <QString>
#include <QStringView>

namespace hips {

// True for a code point printableText escapes (see above); also true for a lone surrogate.
bool isUnprintable(char32_t codePoint);

// `text` with every unprintable character escaped. With maxChars >= 0, at most that many input
// characters are kept and "... (N characters)" is appended when some were cut.
QString printableText(QStringView text, qsizetype maxChars = -1);

// The same for raw bytes (a ZeroMQ routing id, a line read from a child process): valid UTF-8 is
// decoded and escaped as above, each byte of an invalid sequence becomes "\xNN".
QString printableBytes(QByteArrayView bytes, qsizetype maxChars = -1);

// Offset of the first byte that is not part of well-formed UTF-8 (overlong forms, surrogates and
// code points above U+10FFFF are ill-formed), or -1 when all of `bytes` is valid.
qsizetype firstInvalidUtf8(QByteArrayView bytes);

}  // namespace hips
