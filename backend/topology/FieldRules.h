#pragma once
// What a topology accepts in its ids, addresses and free-text fields. Each function returns an
// empty string when the value is acceptable, else a message that starts with `what` (e.g. "party
// id"), shows the offending character escaped (printableText) and says what to use instead.
// TopologyReader::validate applies them; the designer can call them while the user types.
#include <QString>
#include <QStringView>

namespace hips {

// Party and host ids: 1..kMaxIdLength letters (any script), combining marks, decimal digits, '_',
// '-' and '.', starting with a letter, a digit or '_' (so never "..", a hidden file or an option).
// No '/', which separates party and role in node ids; no whitespace, control or bidi characters.
QString idProblem(QStringView id, const QString& what);

// A host address: an IPv4 address (dotted quad, no leading zeros), an IPv6 address (without
// brackets or zone), or a DNS host name (labels of A-Z a-z 0-9 '-', at most 63 characters each and
// 253 in all; internationalised names in their xn-- form).
QString hostAddressProblem(QStringView address, const QString& what);

// Free text (names, paths): at most maxLength characters, none of them unprintable.
QString textProblem(QStringView text, qsizetype maxLength, const QString& what);

// An SSH user name: free text without whitespace that does not start with '-'.
QString userNameProblem(QStringView user, const QString& what);

}  // namespace hips
