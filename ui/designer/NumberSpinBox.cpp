#include "NumberSpinBox.h"

#include <QLocale>
#include <QRegularExpression>
#include <optional>

namespace hips {

// As the user's locale writes it, else as C does (a '.' under a locale with ','); nullopt if neither.
static std::optional<double> parsed(const QLocale& locale, const QString& text) {
    bool ok = false;
    const double value = locale.toDouble(text.trimmed(), &ok);
    if (ok) return value;
    const double plain = QLocale::c().toDouble(text.trimmed(), &ok);
    return ok ? std::optional<double>(plain) : std::nullopt;
}

NumberSpinBox::NumberSpinBox(QWidget* parent) : QDoubleSpinBox(parent) {
    setDecimals(15);  // what setValue rounds to: beyond any value a topology holds
}

QString NumberSpinBox::textFromValue(double value) const {
    QLocale plain = locale();
    plain.setNumberOptions(QLocale::OmitGroupSeparator);
    return plain.toString(value, 'g', 6);
}

double NumberSpinBox::valueFromText(const QString& text) const {
    return parsed(locale(), text).value_or(0.0);
}

// A number in range is acceptable; one on its way to being typed ("", "1e", "0.", "-") is
// intermediate; anything else is refused at the keystroke.
QValidator::State NumberSpinBox::validate(QString& text, int&) const {
    if (const auto value = parsed(locale(), text))
        return *value >= minimum() && *value <= maximum() ? QValidator::Acceptable : QValidator::Intermediate;
    static const QRegularExpression partial(QStringLiteral("^[-+]?[0-9]*[.,]?[0-9]*([eE][-+]?[0-9]*)?$"));
    return partial.match(text.trimmed()).hasMatch() ? QValidator::Intermediate : QValidator::Invalid;
}

}  // namespace hips
